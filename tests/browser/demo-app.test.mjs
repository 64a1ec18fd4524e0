// The demo's example app in Debian's Chromium (playwright-core), as a new
// app developer tries `hivegate demo` without Hive Keychain: the app sends
// the browser to hivegate's login page, the user types a demo posting key
// (it signs in the page), approves the page's DEMO ONLY step that adds the
// service account to their posting authority, comes back to the app's own
// callback (which listens), sees the code exchanged and /api/me, and votes.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";
import { repoRoot, rpc, startDemo } from "../lib/gateway.mjs";
import { authorizes, demoKey } from "../lib/auth.mjs";

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

test("example app: log in without Keychain (demo-only authority step), code exchanged, me, vote", async () => {
  const user = "grace";
  const key = demoKey(user, "posting");
  assert.equal(await authorizes(demo.url, user, 0), false, "grace starts without demo.app in her posting authority");
  const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(waitMs);
  const requests = [];
  const problems = [];
  page.on("request", (r) => requests.push({ url: r.url(), headers: JSON.stringify(r.headers()), body: r.postData() || "" }));
  page.on("pageerror", (e) => problems.push(e.message));
  try {
    await page.goto(`${demo.appUrl}/`);
    await page.click("#login");
    await page.waitForURL(`${demo.url}/oauth2/authorize?**`);
    await page.locator("#demo").waitFor({ state: "visible" });
    await page.locator("#keyfield").waitFor({ state: "visible" });
    await page.fill("#username", user);
    await page.fill("#key", key.toString());
    await page.click("#submit");
    await page.locator("#consent").waitFor({ state: "visible" });
    const authority = page.locator("#authority.demo");
    await authority.waitFor({ state: "visible" });
    assert.match(await authority.textContent(), /^DEMO ONLY \(hivegate demo\).*@demo\.app/);
    await mkdir(artifacts, { recursive: true });
    await page.screenshot({ path: path.join(artifacts, "demo-app-consent.png"), fullPage: true });
    await page.click("#approve");

    await page.waitForURL(`${demo.appUrl}/callback?**`);
    await page.locator("#user").filter({ hasText: `Logged in as @${user}.` }).waitFor();
    const steps = await page.locator(".step").allTextContents();
    assert.equal(steps.length, 3, steps.join("\n---\n"));
    assert.match(steps[1], /exchanged the code for a token[\s\S]*POST .*\/api\/oauth2\/token[\s\S]*"username": "grace"/);
    assert.match(steps[2], /\/api\/me[\s\S]*"user": "grace"/);
    assert.ok(await authorizes(demo.url, user), "the demo-only step put demo.app in grace's posting authority");

    const author = await page.inputValue('input[name="author"]');
    const permlink = await page.inputValue('input[name="permlink"]');
    await page.click('#vote button[type="submit"]');
    await page.locator(".step .answer").filter({ hasText: '"block_num"' }).waitFor();
    await page.screenshot({ path: path.join(artifacts, "demo-app-voted.png"), fullPage: true });
    const votes = await rpc(demo.url, "condenser_api.get_active_votes", [author, permlink]);
    assert.ok(votes.some((v) => v.voter === user), `grace's vote on @${author}/${permlink}`);

    // The typed key signed in the page: no request carried it.
    const forms = [key.toString(), Buffer.from(key.key).toString("hex"), Buffer.from(key.key).toString("base64")];
    for (const r of requests) {
      for (const f of forms) assert.ok(!r.url.includes(f) && !r.headers.includes(f) && !r.body.includes(f), `a request to ${r.url} carries the key`);
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
