// HiveAuth on the login page in Debian's Chromium (playwright-core),
// against `hivegate demo`: its simulated HAS relay (auth.hiveauth_relay)
// and the simulated wallet's page beside it. The user types only an
// account name, chooses "Log in with HiveAuth", gets a has://auth_req/
// link (and its QR code) naming the account, the relay and a key, opens it in the demo's
// simulated wallet (DEMO ONLY: a real wallet is an app on the phone),
// approves there, and the login page continues by itself to the consent
// and back to the app. A rejection in the wallet shows its reason on the
// page.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";
import { repoRoot, startDemo } from "../lib/gateway.mjs";

const waitMs = 20_000;
const artifacts = path.join(repoRoot, "ci-artifacts");

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

/** Opens the example app's login, asks for HiveAuth as user; returns the page and the has:// link. */
async function startHiveAuth(context, user) {
  const page = await context.newPage();
  page.setDefaultTimeout(waitMs);
  await page.goto(`${demo.appUrl}/`);
  await page.click("#login");
  await page.waitForURL(`${demo.url}/oauth2/authorize?**`);
  await page.fill("#username", user);
  await page.click("#hiveauth");
  await page.locator("#has").waitFor({ state: "visible" });
  const link = await page.getAttribute("#has-link", "href");
  assert.equal(await page.inputValue("#has-uri"), link);
  assert.match(link, /^has:\/\/auth_req\/[A-Za-z0-9+/=]+$/);
  const payload = JSON.parse(Buffer.from(link.slice("has://auth_req/".length), "base64").toString());
  assert.equal(payload.account, user);
  assert.match(payload.host, /^ws:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(payload.uuid && payload.key, JSON.stringify(payload));
  assert.equal(await page.locator("#has-user").textContent(), `@${user}`);
  // The QR code of the link: an SVG image (uqr) the page drew.
  const qr = await page.$eval("#has-qr", (img) => ({ src: img.src, w: img.naturalWidth, ok: img.complete }));
  assert.ok(qr.ok && qr.w > 0 && qr.src.startsWith("data:image/svg+xml"), JSON.stringify(qr).slice(0, 200));
  return { page, link };
}

/** Opens the page's DEMO ONLY wallet link and presses button there; returns the wallet page's text. */
async function answerInWallet(context, page, button) {
  const demoLink = page.locator("#has-demo-link");
  await demoLink.waitFor({ state: "visible" });
  const [wallet] = await Promise.all([context.waitForEvent("page"), demoLink.click()]);
  wallet.setDefaultTimeout(waitMs);
  await wallet.waitForLoadState();
  await wallet.click(button);
  await wallet.locator("#wallet-done").waitFor();
  const done = await wallet.locator("#wallet-done").textContent();
  await wallet.close();
  return done;
}

test("HiveAuth: approved in the wallet, the page continues to the consent and back to the app", async () => {
  const user = "alice";
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const problems = [];
  try {
    const { page } = await startHiveAuth(context, user);
    page.on("pageerror", (e) => problems.push(e.message));
    await mkdir(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, "hiveauth-link.png"), fullPage: true });
    const done = await answerInWallet(context, page, "#wallet-approve");
    assert.match(done, /^Approved: @alice logs in to hivegate demo app$/);
    await page.locator("#consent").waitFor({ state: "visible" });
    assert.equal(await page.locator("#who").textContent(), `Logged in as @${user}.`);
    assert.ok(await page.locator("#has").isHidden());
    await page.click("#approve");
    await page.waitForURL(`${demo.appUrl}/callback?**`);
    await page.locator("#user").filter({ hasText: `Logged in as @${user}.` }).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("HiveAuth: rejected in the wallet, the page says so and offers the login again", async () => {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  try {
    const { page } = await startHiveAuth(context, "bob");
    const done = await answerInWallet(context, page, "#wallet-reject");
    assert.match(done, /^Rejected: @bob/);
    await page.locator("#status.error").filter({ hasText: "the login was rejected in your HiveAuth wallet" }).waitFor();
    assert.ok(await page.locator("#login").isVisible());
    assert.ok(await page.locator("#has").isHidden());
  } finally {
    await context.close();
  }
});
