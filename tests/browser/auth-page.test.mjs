// The authorize page of hivegate's app authorization service in Debian's
// Chromium (driven by playwright-core), against `hivegate demo`:
//   - with a stub window.hive_keychain that plays the extension: it signs
//     the challenge with the user's demo key and adds the service account
//     to the user's posting authority, outside the page, as Keychain does;
//   - without Keychain, with the posting key typed into the page, which
//     signs in the page;
// and in both, every request the page makes is recorded to show that no
// key leaves it: only the signature does.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import dhive from "@hiveio/dhive";
import { chromium } from "playwright-core";
import { repoRoot, startDemo } from "../lib/gateway.mjs";
import { authorizes, demoApp, demoKey, grantPostingAuthority } from "../lib/auth.mjs";

const waitMs = 20_000;
const artifacts = path.join(repoRoot, "ci-artifacts");
const callback = "http://127.0.0.1:4567/callback";

let demo;
let browser;

before(async () => {
  demo = await startDemo();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_BIN || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run"],
    timeout: 60_000,
  });
});

after(async () => {
  await browser?.close();
  await demo?.stop();
});

/** The login URL of the demo app, on the demo gateway. */
function authorizeURL(scope, state) {
  const q = new URLSearchParams({ client_id: demoApp.clientId, redirect_uri: callback, response_type: "code", scope, state });
  return `${demo.url}/oauth2/authorize?${q}`;
}

/**
 * Opens a page that records every request (URL, headers, body) and answers
 * the app's callback itself; keychain installs the stub extension.
 */
async function openPage(keychain) {
  const context = await browser.newContext({ viewport: { width: 900, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(waitMs);
  const requests = [];
  const problems = [];
  page.on("request", (r) => requests.push({ url: r.url(), headers: JSON.stringify(r.headers()), body: r.postData() || "" }));
  page.on("pageerror", (e) => problems.push(e.message));
  await page.route(`${callback}**`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<p>back in the app</p>" }));
  const calls = [];
  if (keychain) {
    // The extension's side: it holds the keys, the page only sees results.
    await page.exposeFunction("__keychainSign", async (user, message, role) => {
      calls.push(["requestSignBuffer", user, role]);
      const sig = demoKey(user, role.toLowerCase()).sign(dhive.cryptoUtils.sha256(message)).toString();
      return { success: true, result: sig };
    });
    await page.exposeFunction("__keychainAddAuthority", async (user, authorized, role, weight) => {
      calls.push(["requestAddAccountAuthority", user, authorized, role, weight]);
      await grantPostingAuthority(demo.url, user, authorized);
      return { success: true, result: {} };
    });
    await page.addInitScript(() => {
      window.hive_keychain = {
        requestSignBuffer(user, message, role, cb) { window.__keychainSign(user, message, role).then(cb); },
        requestAddAccountAuthority(user, authorized, role, weight, cb) {
          window.__keychainAddAuthority(user, authorized, role, weight).then(cb);
        },
      };
    });
  }
  return { context, page, requests, problems, calls };
}

/** Asserts that no recorded request carries any form of a key. */
function assertNoKeyLeft(requests, keys) {
  assert.ok(requests.length > 0);
  for (const key of keys) {
    const forms = [key.toString(), Buffer.from(key.key).toString("hex"), Buffer.from(key.key).toString("base64")];
    for (const r of requests) {
      for (const f of forms) {
        assert.ok(!r.url.includes(f) && !r.headers.includes(f) && !r.body.includes(f), `a request to ${r.url} carries a key`);
      }
    }
  }
}

/** Exchanges the code of a redirect for tokens, as the app's server does. */
async function exchange(redirect) {
  const res = await fetch(`${demo.url}/api/oauth2/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      code: redirect.searchParams.get("code"), client_id: demoApp.clientId, client_secret: demoApp.secret, redirect_uri: callback,
    }),
  });
  assert.equal(res.status, 200);
  return res.json();
}

/** A demo user who has not authorized the service account yet. */
async function unauthorizedUser(candidates) {
  for (const u of candidates) {
    if (!(await authorizes(demo.url, u, 0))) return u;
  }
  throw new Error("every candidate already authorizes demo.app");
}

test("Keychain: sign the challenge, add the posting authority, back to the app with a code", async () => {
  const user = await unauthorizedUser(["carol", "dave", "eve", "frank", "grace", "heidi"]);
  const { context, page, requests, problems, calls } = await openPage(true);
  try {
    await page.goto(authorizeURL("login,posting", "kc-state"));
    await page.locator("#title").filter({ hasText: "Log in to hivegate demo app" }).waitFor();
    assert.equal(await page.locator(".scope").allTextContents().then((s) => s.join(",")), "login,posting");
    await page.fill("#username", user);
    await page.click("#submit");
    await page.locator("#consent").waitFor({ state: "visible" });
    assert.equal(await page.textContent("#who"), `Logged in as @${user}.`);
    assert.match(await page.textContent("#authority"), /Hive Keychain to add @demo\.app, the app's account/);
    assert.ok(await page.locator("#keyfield").isHidden(), "with Keychain the page asks for no key");
    await mkdir(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, "auth-page-consent.png"), fullPage: true });
    await page.click("#approve");
    await page.waitForURL(`${callback}?**`);
    const back = new URL(page.url());
    assert.equal(back.searchParams.get("state"), "kc-state");
    assert.equal(back.searchParams.get("username"), user);
    assert.deepEqual(calls, [["requestSignBuffer", user, "Posting"], ["requestAddAccountAuthority", user, "demo.app", "Posting", 1]]);
    assert.ok(await authorizes(demo.url, user), "the chain lists demo.app in the user's posting authority");

    const tokens = await exchange(back);
    const me = await (await fetch(`${demo.url}/api/me`, { method: "POST", headers: { Authorization: tokens.access_token } })).json();
    assert.equal(me.user, user);
    assertNoKeyLeft(requests, ["posting", "active", "owner"].map((r) => demoKey(user, r)));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("no Keychain: the key typed into the page signs there and is never sent", async () => {
  const user = "dave";
  const key = demoKey(user, "posting");
  const { context, page, requests, problems } = await openPage(false);
  try {
    await page.goto(authorizeURL("login", "key-state"));
    await page.locator("#keyfield").waitFor({ state: "visible" });
    await page.fill("#username", user);
    await page.fill("#key", key.toString());
    await page.click("#submit");
    await page.locator("#consent").waitFor({ state: "visible" });
    assert.equal(await page.inputValue("#key"), "", "the page forgets the key once it has signed");
    await page.click("#approve");
    await page.waitForURL(`${callback}?**`);
    const back = new URL(page.url());
    assert.equal(back.searchParams.get("state"), "key-state");
    const tokens = await exchange(back);
    assert.equal(tokens.username, user);

    const login = requests.find((r) => r.url.endsWith("/oauth2/login"));
    assert.match(JSON.parse(login.body).signature, /^[0-9a-f]{130}$/, "what the page sent is a signature");
    assertNoKeyLeft(requests, [key]);
    assert.deepEqual(problems, []);

    // A key of another account is refused, and the page says so.
    await page.goto(authorizeURL("login", "again"));
    await page.locator("#keyfield").waitFor({ state: "visible" });
    await page.fill("#username", "eve");
    await page.fill("#key", key.toString());
    await page.click("#submit");
    await page.locator("#status.error").filter({ hasText: "not by a key of @eve" }).waitFor();
  } finally {
    await context.close();
  }
});

test("an unregistered redirect URI is shown on the page, never followed", async () => {
  const { context, page, requests } = await openPage(false);
  try {
    const q = new URLSearchParams({ client_id: demoApp.clientId, redirect_uri: "https://evil.example/steal", state: "s" });
    const res = await page.goto(`${demo.url}/oauth2/authorize?${q}`);
    assert.equal(res.status(), 400);
    assert.equal(await page.textContent("#title"), "Unknown redirect URI");
    assert.ok(!requests.some((r) => r.url.startsWith("https://evil.example")));
  } finally {
    await context.close();
  }
});
