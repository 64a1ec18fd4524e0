// The browser path with real client software: the page in web/dist, built
// with @connectrpc/connect-web, runs in Debian's Chromium (driven by
// playwright-core) from one origin and talks to `hivegate demo` on another,
// over the Connect protocol and over gRPC-Web. It pages through accounts and
// witnesses and must show exactly what hived's list methods hold, in order,
// without the row hived repeats at the start of each following page.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { chromium } from "playwright-core";
import { repoRoot, rpc, startDemo } from "../lib/gateway.mjs";
import { serveStatic } from "../lib/static.mjs";

/** The bound on every wait for the page. */
const waitMs = 20_000;
/** The page size the test uses: small, so that three pages fit in 200 accounts. */
const limit = 5;

const artifacts = path.join(repoRoot, "ci-artifacts");

let demo;
let site;
let browser;
/** The first 3 pages' worth of account names and 2 of witness names, from JSON-RPC. */
let accountNames;
let witnessNames;

before(async () => {
  demo = await startDemo();
  site = await serveStatic(path.join(repoRoot, "web", "dist"));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_BIN || "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    timeout: 60_000,
  });
  const accounts = await rpc(demo.url, "database_api.list_accounts", { start: "", limit: 3 * limit, order: "by_name" });
  accountNames = accounts.accounts.map((a) => a.name);
  const witnesses = await rpc(demo.url, "database_api.list_witnesses", { start: "", limit: 2 * limit, order: "by_name" });
  witnessNames = witnesses.witnesses.map((w) => w.owner);
  assert.equal(accountNames.length, 3 * limit, "the demo chain has enough accounts");
  assert.equal(witnessNames.length, 2 * limit, "the demo chain has enough witnesses");
});

after(async () => {
  await browser?.close();
  await site?.close();
  await demo?.stop();
});

/** Opens the page with the given query parameters in a fresh context. */
async function openPage(query) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(waitMs);
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  /** Content types of the calls the page made to the gateway. */
  const calls = [];
  page.on("request", (req) => {
    if (req.url().startsWith(demo.url) && req.method() === "POST") {
      calls.push({ path: new URL(req.url()).pathname, contentType: req.headers()["content-type"] });
    }
  });
  await page.goto(`${site.url}/?${new URLSearchParams(query)}`, { timeout: waitMs });
  return { page, context, calls, problems };
}

/**
 * Waits until the list section id shows page n, settled (ready or end), and
 * fails at once with the shown error when the page reports one instead.
 */
async function waitForPage(page, id, n) {
  const settled = `#${id}[data-page="${n}"]:is([data-state="ready"], [data-state="end"])`;
  await page.waitForSelector(`${settled}, #${id}[data-state="error"]`, { timeout: waitMs });
  const state = await page.$eval(`#${id}`, (s) => s.dataset.state);
  if (state === "error") {
    assert.fail(`${id}: waiting for page ${n}, the page shows an error: ${(await shown(page, id)).error}`);
  }
}

/** Reads what a list section shows: the page counter, row numbers and names. */
async function shown(page, id) {
  return page.$eval(`#${id}`, (section) => ({
    page: section.querySelector(".page").textContent,
    range: section.querySelector(".range").textContent,
    numbers: [...section.querySelectorAll("tbody tr td:nth-child(1)")].map((td) => td.textContent),
    names: [...section.querySelectorAll("tbody tr td:nth-child(2)")].map((td) => td.textContent),
    error: section.querySelector(".error").hidden ? "" : section.querySelector(".error").textContent,
  }));
}

/** The row numbers n..n+count-1 as the page writes them. */
function numbers(from, count) {
  return Array.from({ length: count }, (_, i) => String(from + i));
}

const transports = [
  { transport: "connect", label: "Connect", contentType: "application/json" },
  { transport: "grpcweb", label: "gRPC-Web", contentType: "application/grpc-web+proto" },
];

describe("Connect-Web page in Chromium against hivegate", () => {
  for (const { transport, label, contentType } of transports) {
    test(`pages through accounts and witnesses over ${label}`, async () => {
      const { page, context, calls, problems } = await openPage({ gateway: demo.url, transport, limit });
      try {
        assert.equal(await page.$eval("#transport", (s) => s.value), transport, "the form shows the transport");
        assert.equal(await page.$eval("#gateway", (i) => i.value), demo.url, "the form shows the gateway");

        const seen = [];
        for (let n = 1; n <= 3; n++) {
          if (n > 1) await page.click("#accounts button.next");
          await waitForPage(page, "accounts", n);
          const s = await shown(page, "accounts");
          assert.equal(s.error, "", `accounts page ${n}: no error`);
          assert.equal(s.page, `Page ${n}`);
          assert.equal(s.range, `rows ${(n - 1) * limit + 1}–${n * limit}`);
          assert.deepEqual(s.numbers, numbers((n - 1) * limit + 1, limit));
          assert.deepEqual(s.names, accountNames.slice((n - 1) * limit, n * limit), `accounts page ${n} in name order`);
          seen.push(...s.names);
        }
        assert.equal(new Set(seen).size, seen.length, "no account appears on two pages");

        await waitForPage(page, "witnesses", 1);
        assert.deepEqual((await shown(page, "witnesses")).names, witnessNames.slice(0, limit));
        await page.click("#witnesses button.next");
        await waitForPage(page, "witnesses", 2);
        const w = await shown(page, "witnesses");
        assert.equal(w.page, "Page 2");
        assert.deepEqual(w.names, witnessNames.slice(limit, 2 * limit), "witnesses page 2 without the repeated row");

        const rpcPaths = new Set(calls.map((c) => c.path));
        assert.deepEqual(
          [...rpcPaths].sort(),
          ["/hive.database_api.v1.DatabaseApiService/ListAccounts", "/hive.database_api.v1.DatabaseApiService/ListWitnesses"],
          "the page calls the typed services",
        );
        for (const c of calls) {
          assert.equal(c.contentType, contentType, `${c.path} is sent with the ${label} protocol`);
        }
        assert.equal(calls.length, 3 + 2, "one call per page shown");
        assert.deepEqual(problems, []);

        await mkdir(artifacts, { recursive: true });
        await page.screenshot({ path: path.join(artifacts, `connect-web-${transport}.png`), fullPage: true });
        if (transport === "connect") {
          await page.screenshot({ path: path.join(artifacts, "connect-web.png"), fullPage: true });
        }
      } finally {
        await context.close();
      }
    });
  }

  test("shows the gateway's error for an invalid page size", async () => {
    const { page, context } = await openPage({ gateway: demo.url, transport: "connect", limit: 1001 });
    try {
      await page.waitForSelector('#accounts[data-state="error"]', { timeout: waitMs });
      const s = await shown(page, "accounts");
      assert.match(s.error, /^\[invalid_argument\] /, "the Connect code is shown");
      assert.match(s.error, /limit/i, "the message says what is wrong");
      assert.match(s.error, /\nJSON-RPC error -?\d+: .*limit/, "the JSON-RPC error detail hivegate attaches is decoded and shown");
      assert.equal(s.page, "Page 0", "no page was shown");
      assert.deepEqual(s.names, []);
      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, "connect-web-error.png"), fullPage: true });
    } finally {
      await context.close();
    }
  });

  test("shows a network error for a gateway that is not there", async () => {
    const closed = await closedPort();
    const { page, context } = await openPage({ gateway: `http://127.0.0.1:${closed}`, transport: "grpcweb", limit });
    try {
      await page.waitForSelector('#witnesses[data-state="error"]', { timeout: waitMs });
      const s = await shown(page, "witnesses");
      assert.match(s.error, /^\[unknown\] Failed to fetch/, "Connect's code and the browser's fetch failure are shown");
      assert.match(s.error, /could not be reached/, "the page explains the failure");
    } finally {
      await context.close();
    }
  });
});

/** Returns a loopback port nothing listens on (bound, then released). */
async function closedPort() {
  const srv = createServer();
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}
