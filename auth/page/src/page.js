// hivegate's login page (auth/page): the user proves who they are by
// signing a one-time challenge, with Hive Keychain when it is installed,
// or with a key typed here. A typed key is decoded and used in this page
// only: what is sent is the signature, never the key. For the posting
// scope the page then asks Keychain to add the service account to the
// user's posting authority, unless it is already there. Under `hivegate
// demo` only, a user without Keychain may let the demo add it with the
// demo's own copy of their key (the login answers demo_authority); the
// page marks that step as demo-only. With auth.hiveauth_relay, the page
// also offers HiveAuth: the user approves the login in a HiveAuth wallet.
import * as secp from "@noble/secp256k1";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { base58 } from "@scure/base";
import { renderSVG } from "uqr";

secp.hashes.sha256 = sha256;
secp.hashes.hmacSha256 = (key, msg) => hmac(sha256, key, msg);

const $ = (id) => document.getElementById(id);
const req = JSON.parse($("hg-request").textContent);
const say = (text, error = false) => {
  const s = $("status");
  s.textContent = text;
  s.className = error ? "error" : "";
};

/** POST JSON to the page's own API; a refusal throws its description. */
async function post(path, body) {
  const r = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "same-origin",
    body: JSON.stringify(body),
  });
  const j = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(j.error_description || j.error || `HTTP ${r.status}`);
  return j;
}

const keychain = () => window.hive_keychain;
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** The 32-byte secret of a WIF key (0x80 ‖ key ‖ checksum, base58). */
function secretOf(wif) {
  let raw;
  try {
    raw = base58.decode(wif.trim());
  } catch {
    throw new Error("that is not a private key (WIF)");
  }
  if (raw.length !== 37 || raw[0] !== 0x80) throw new Error("that is not a private key (WIF)");
  const check = sha256(sha256(raw.subarray(0, 33))).subarray(0, 4);
  if (hex(check) !== hex(raw.subarray(33))) throw new Error("the key's checksum does not match: mistyped?");
  return raw.slice(1, 33);
}

/** Signs sha256(message) as Keychain's requestSignBuffer does: 65 bytes, hex. */
function signWithKey(secret, message) {
  const digest = sha256(new TextEncoder().encode(message));
  const sig = secp.sign(digest, secret, { prehash: false, format: "recovered" });
  const out = new Uint8Array(65);
  out[0] = sig[0] + 31; // compressed key, recovery id
  out.set(sig.subarray(1), 1);
  secret.fill(0);
  return hex(out);
}

const viaKeychain = (call) =>
  new Promise((resolve, reject) =>
    call((r) => (r && r.success ? resolve(r.result) : reject(new Error((r && (r.message || r.error)) || "Keychain refused")))),
  );

let session = null;

async function logIn(ev) {
  ev.preventDefault();
  const username = $("username").value.trim().replace(/^@/, "").toLowerCase();
  const useKeychain = !!keychain();
  if (!useKeychain && $("keyfield").hidden) {
    $("keyfield").hidden = false;
    say("No Hive Keychain found: type your posting key. It signs the login here and is never sent.");
    $("key").focus();
    return;
  }
  $("submit").disabled = true;
  try {
    say("Asking for a login challenge…");
    const ch = await post("/oauth2/challenge", { request_id: req.request_id, username });
    let signature;
    if (useKeychain) {
      say("Confirm the login in Hive Keychain…");
      signature = await viaKeychain((cb) => keychain().requestSignBuffer(ch.username, ch.message, "Posting", cb));
    } else {
      const secret = secretOf($("key").value);
      $("key").value = "";
      signature = signWithKey(secret, ch.message);
    }
    say("Checking the signature…");
    session = await post("/oauth2/login", { challenge_id: ch.challenge_id, signature });
    showConsent();
  } catch (e) {
    say(e.message, true);
  } finally {
    $("submit").disabled = false;
  }
}

function showConsent() {
  $("login").hidden = true;
  $("consent").hidden = false;
  $("who").textContent = `Logged in as @${session.username}.`;
  if (session.needs_authority) {
    const a = $("authority");
    a.hidden = false;
    if (keychain()) {
      a.textContent = `Approving asks Hive Keychain to add @${session.authorize_account}, the app's account, to your posting authority (removing it later revokes this app alone).`;
    } else if (session.demo_authority) {
      a.className = "demo";
      a.textContent =
        `DEMO ONLY (hivegate demo): no Hive Keychain here, so approving lets the demo add @${session.authorize_account} ` +
        `to your posting authority with its own copy of your active key (every demo account's keys come from a published ` +
        `password). A real hivegate never holds your keys and has no such step.`;
    } else {
      a.textContent = `@${session.authorize_account} is not in your posting authority yet: add it with your wallet, or ${req.app_name} cannot post for you.`;
    }
  }
  say("");
}

async function decide(approve) {
  $("approve").disabled = $("deny").disabled = true;
  try {
    if (approve && session.needs_authority && keychain()) {
      say("Confirm the posting authority in Hive Keychain…");
      await viaKeychain((cb) =>
        keychain().requestAddAccountAuthority(session.username, session.authorize_account, "Posting", 1, cb),
      );
    } else if (approve && session.needs_authority && session.demo_authority) {
      say(`Demo only: adding @${session.authorize_account} to your posting authority…`);
      await post("/oauth2/demo-authority", { session_id: session.session_id });
    }
    say("Going back to the app…");
    const r = await post("/oauth2/grant", { session_id: session.session_id, approve });
    window.location.assign(r.redirect);
  } catch (e) {
    say(e.message, true);
    $("approve").disabled = $("deny").disabled = false;
  }
}

// HiveAuth (auth.hiveauth_relay): hivegate sends the request to the
// relay and answers the has:// link for the user's wallet; the page
// polls until the wallet answers, then continues as after a Keychain
// login.
let hiveAuthRun = 0;

function stopHiveAuth() {
  hiveAuthRun++;
  $("has").hidden = true;
  $("login").hidden = false;
}

async function logInHiveAuth() {
  const username = $("username").value.trim().replace(/^@/, "").toLowerCase();
  if (!username) {
    say("Type your Hive account name first.", true);
    return;
  }
  const run = ++hiveAuthRun;
  $("hiveauth").disabled = true;
  try {
    say("Sending the login request to your HiveAuth wallet…");
    const start = await post("/oauth2/hiveauth", { request_id: req.request_id, username });
    $("login").hidden = true;
    $("has").hidden = false;
    $("has-user").textContent = `@${start.username}`;
    $("has-link").href = start.uri;
    $("has-uri").value = start.uri;
    $("has-qr").src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(start.uri, { border: 2 }))}`;
    if (start.demo_wallet) {
      $("has-demo").hidden = false;
      $("has-demo-link").href = `${start.demo_wallet}?uri=${encodeURIComponent(start.uri)}`;
    }
    say("");
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      if (run !== hiveAuthRun) return; // cancelled
      const r = await post("/oauth2/hiveauth/wait", { wait_id: start.wait_id });
      if (run !== hiveAuthRun) return;
      if (r.status === "pending") continue;
      session = r;
      $("has").hidden = true;
      showConsent();
      return;
    }
  } catch (e) {
    if (run === hiveAuthRun) {
      stopHiveAuth();
      say(e.message, true);
    }
  } finally {
    $("hiveauth").disabled = false;
  }
}

if (!req.error) {
  $("login").addEventListener("submit", logIn);
  if (req.hiveauth) {
    $("hiveauth").addEventListener("click", logInHiveAuth);
    $("has-cancel").addEventListener("click", () => {
      stopHiveAuth();
      say("");
    });
  }
  $("approve").addEventListener("click", () => decide(true));
  $("deny").addEventListener("click", () => decide(false));
  // Keychain injects itself after the page loads.
  setTimeout(() => {
    if (!keychain()) $("keyfield").hidden = false;
  }, 400);
}
