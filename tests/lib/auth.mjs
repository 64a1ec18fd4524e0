// Helpers of the app authorization tests: the demo's registered app, the
// login page's API as the page calls it, and a wallet (dhive) that adds the
// app's account to a user's posting authority as Hive Keychain's
// requestAddAccountAuthority does (per-app consent: user → app account →
// service account, whose second link demo.app has from the demo's genesis).
import dhive from "@hiveio/dhive";
import { rpc } from "./gateway.mjs";

/** The demo's app, its chain account and the service account (cmd/hivegate/demo.go). */
export const demoApp = { clientId: "demo.app", secret: "demo-secret", account: "demo.app", serviceAccount: "trent" };
/** Every simulated account's keys derive from this password (hivesim/keys.go). */
export const demoPassword = "hivegate-demo";

/** A demo account's key of one role. */
export const demoKey = (account, role) => dhive.PrivateKey.fromLogin(account, demoPassword, role);

/** The request JSON a login page carries. */
export function pageRequest(html) {
  const m = html.match(/<script id="hg-request" type="application\/json">(.*?)<\/script>/s);
  if (!m) throw new Error(`not a login page: ${html.slice(0, 300)}`);
  return JSON.parse(m[1]);
}

/** POSTs JSON to the login page's API from the page's own origin. */
export async function pagePost(base, path, body) {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Whether account's posting authority lists name (default: the demo app's
 * account), waiting up to waitMs for the gateway's cache of get_accounts
 * (3 s in the demo) to show a change.
 */
export async function authorizes(base, account, waitMs = 10_000, name = demoApp.account) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [a] = await rpc(base, "condenser_api.get_accounts", [[account]]);
    const yes = a.posting.account_auths.some(([n]) => n === name);
    if (yes || Date.now() > deadline) return yes;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Adds authorized (default: the demo app's account) to account's posting
 * authority with an account_update signed by the account's active key,
 * broadcast through the gateway with dhive (hived sorts account_auths; so
 * must the signer).
 */
export async function grantPostingAuthority(base, account, authorized = demoApp.account) {
  const [a] = await rpc(base, "condenser_api.get_accounts", [[account]]);
  const auths = [...a.posting.account_auths, [authorized, 1]].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const client = new dhive.Client([base], { timeout: 30_000 });
  await client.broadcast.updateAccount(
    { account, posting: { ...a.posting, account_auths: auths }, memo_key: a.memo_key, json_metadata: a.json_metadata },
    demoKey(account, "active"),
  );
}

/**
 * Opens a login URL on hivegate's page and runs the page's flow as the
 * user would: signs the challenge with account's posting key (as
 * Keychain's requestSignBuffer would), adds the account the login names
 * (authorize_account: the app's) to the user's posting authority when the
 * login says it is missing (as Keychain's requestAddAccountAuthority
 * would), and approves. Returns the URL the
 * page sends the browser back to.
 */
export async function approveLogin(loginURL, account) {
  const base = new URL(loginURL).origin;
  const page = await fetch(loginURL);
  if (page.status !== 200) throw new Error(`authorize: HTTP ${page.status}`);
  const req = pageRequest(await page.text());
  const ch = await pagePost(base, "/oauth2/challenge", { request_id: req.request_id, username: account });
  const signature = demoKey(account, "posting").sign(dhive.cryptoUtils.sha256(ch.message)).toString();
  const login = await pagePost(base, "/oauth2/login", { challenge_id: ch.challenge_id, signature });
  if (login.needs_authority) await grantPostingAuthority(base, account, login.authorize_account);
  const { redirect } = await pagePost(base, "/oauth2/grant", { session_id: login.session_id, approve: true });
  return redirect;
}

/**
 * Runs the login page's flow for account with its posting key (signing the
 * challenge as Keychain's requestSignBuffer would) and exchanges the code:
 * the token endpoint's answer.
 */
export async function logIn(base, account, { scope = "login,posting", redirect = "http://127.0.0.1:4321/callback" } = {}) {
  const q = new URLSearchParams({ client_id: demoApp.clientId, redirect_uri: redirect, response_type: "code", scope, state: "e2e" });
  const back = new URL(await approveLogin(`${base}/oauth2/authorize?${q}`, account));
  if (back.searchParams.get("state") !== "e2e" || back.searchParams.get("username") !== account) {
    throw new Error(`redirect ${back}`);
  }
  const res = await fetch(`${base}/api/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    // redirect_uri: required, as the authorization request carried it.
    body: JSON.stringify({ code: back.searchParams.get("code"), client_secret: demoApp.secret, redirect_uri: redirect }),
  });
  const tokens = await res.json();
  if (!res.ok) throw new Error(`token: HTTP ${res.status} ${JSON.stringify(tokens)}`);
  return tokens;
}
