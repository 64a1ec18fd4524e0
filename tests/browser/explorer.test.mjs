// The API explorer (web/, built into web/dist) in Debian's Chromium, driven by
// playwright-core, from one origin against `hivegate demo` on another:
//   - it lists every service and RPC of proto/ (compared with `buf build`),
//   - it pages through ListAccounts to the end over Connect and gRPC-Web by
//     following the response's cursor with the keyboard, showing every
//     account of the simulated node once, in order, with no page repeating a
//     row, and stops when a response carries no cursor,
//   - it calls one RPC of every service from a deep link and shows a table,
//   - it shows the gateway's error and a network error.
// RPCs are found by their JSON-RPC method (hivegate.v1.jsonrpc_method) or by
// "Service/Method", never by a package name, so renamed packages keep the test.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { chromium } from "playwright-core";
import { repoRoot, rpc, startDemo } from "../lib/gateway.mjs";
import { serveStatic } from "../lib/static.mjs";
import { logIn } from "../lib/auth.mjs";

/** The bound on every wait for the page. */
const waitMs = 20_000;
/** The page size of the paging test: not a divisor of the demo's 200 accounts. */
const limit = 37;

const artifacts = path.join(repoRoot, "ci-artifacts");

let demo;
let site;
let browser;
/** Every account name of the simulated node, in name order, from JSON-RPC. */
let allNames;
/** alice's posting key, for AccountByKeyApiService. */
let aliceKey;

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
  const accounts = await rpc(demo.url, "database_api.list_accounts", { start: "", limit: 1000, order: "by_name" });
  allNames = accounts.accounts.map((a) => a.name);
  assert.ok(allNames.length > 2 * limit && allNames.length < 1000, `the demo chain has ${allNames.length} accounts: several pages, one call`);
  const [alice] = await rpc(demo.url, "condenser_api.get_accounts", [["alice"]]);
  aliceKey = alice.posting.key_auths[0][0];
});

after(async () => {
  await browser?.close();
  await site?.close();
  await demo?.stop();
});

/** Opens the explorer with the given settings and hash in a fresh context. */
async function openPage(query, hash = "") {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(waitMs);
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  /** The calls the page made to the gateway. */
  const calls = [];
  page.on("request", (req) => {
    if (req.url().startsWith(demo.url) && req.method() === "POST") {
      calls.push({ path: new URL(req.url()).pathname, contentType: req.headers()["content-type"] });
    }
  });
  await page.goto(`${site.url}/?${new URLSearchParams(query)}${hash}`, { timeout: waitMs });
  await page.waitForSelector("body[data-ready]");
  return { page, context, calls, problems };
}

/**
 * Waits until the result shows page n settled and returns its state; fails
 * at once with the shown error when there is one.
 */
async function waitForPage(page, n) {
  await page.waitForSelector(`#result[data-page="${n}"]:is([data-state="ready"], [data-state="end"], [data-state="stuck"]), #result[data-state="error"]`);
  const state = await page.$eval("#result", (s) => s.dataset.state);
  if (state === "error") assert.fail(`waiting for page ${n}, the page shows an error: ${await page.textContent("#result .error")}`);
  return state;
}

/** Reads the result table: its header and its rows' cells. */
async function table(page) {
  return page.$eval("#result-table", (t) => ({
    head: [...t.querySelectorAll("thead th")].map((th) => th.textContent),
    rows: [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.cells].map((td) => td.textContent)),
  }));
}

/**
 * The RPCs of proto/ from `buf build`: all of them as "package.Service/Method",
 * and those whose response has a next_start field.
 */
async function protoMethods() {
  const buf = path.join(repoRoot, "tests", "node_modules", ".bin", "buf");
  const { stdout } = await promisify(execFile)(buf, ["build", "-o", "-#format=json"], { cwd: repoRoot, maxBuffer: 64 << 20 });
  const set = JSON.parse(stdout);
  const messages = new Map(set.file.flatMap((f) => (f.messageType ?? []).map((m) => [`.${f.package}.${m.name}`, m])));
  const all = [];
  const withNextStart = [];
  for (const f of set.file) {
    for (const s of f.service ?? []) {
      for (const m of s.method) {
        const p = `${f.package}.${s.name}/${m.name}`;
        all.push(p);
        if (messages.get(m.outputType)?.field?.some((x) => x.name === "next_start")) withNextStart.push(p);
      }
    }
  }
  return { all: all.sort(), withNextStart: withNextStart.sort() };
}

describe("API explorer in Chromium against hivegate", () => {
  test("lists every service and RPC of the protos", async () => {
    const { all: want, withNextStart } = await protoMethods();
    const { page, context, problems } = await openPage({ gateway: demo.url });
    try {
      const shown = await page.$$eval("#services a[data-method]", (as) => as.map((a) => a.dataset.method));
      assert.deepEqual([...shown].sort(), want, "the page lists exactly the RPCs of proto/");
      // The cursor convention finds every response's next_start.
      const paged = await page.$$eval("#services a[data-paging]", (as) => as.map((a) => a.dataset.method));
      assert.ok(withNextStart.length > 30, `${withNextStart.length} RPCs page with next_start`);
      assert.deepEqual(withNextStart.filter((m) => !paged.includes(m)), [], "every RPC whose response has next_start pages");
      const services = new Set(want.map((m) => m.split("/")[0]));
      assert.equal(await page.$eval("#counts", (c) => c.dataset.services), String(services.size));
      assert.equal(await page.$eval("#counts", (c) => c.dataset.rpcs), String(want.length));

      // The filter and the keyboard: "/" focuses it, Enter opens the first match.
      await page.keyboard.press("/");
      await page.keyboard.type("list_accounts");
      const visible = await page.$$eval("#services a[data-method]", (as) => as.filter((a) => a.offsetParent !== null).map((a) => a.dataset.jsonrpc));
      assert.deepEqual(visible, ["database_api.list_accounts"], "the filter matches JSON-RPC names");
      await page.keyboard.press("Enter");
      await page.waitForSelector('#request:not([hidden]) [data-path="limit"]');
      assert.match(decodeURIComponent(new URL(page.url()).hash), /^#hive\.database_api\.v1\.DatabaseApiService\/ListAccounts$/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  const transports = [
    { transport: "connect", label: "Connect", contentType: "application/json" },
    { transport: "grpcweb", label: "gRPC-Web", contentType: "application/grpc-web+proto" },
  ];
  for (const { transport, label, contentType } of transports) {
    test(`pages through ListAccounts to the end over ${label}`, async () => {
      const { page, context, calls, problems } = await openPage({ gateway: demo.url, transport });
      try {
        await page.click('#services a[data-jsonrpc="database_api.list_accounts"]');
        await page.fill('[data-path="limit"]', String(limit));
        const byName = await page.$eval('[data-path="order"]', (s) => [...s.options].map((o) => o.value).find((v) => v.endsWith("BY_NAME")));
        await page.selectOption('[data-path="order"]', byName);
        await page.focus('[data-path="limit"]');
        await page.keyboard.press("Enter");

        // Enough pages for every account, and two more: a cursor on the
        // last page, or one that leads back, fails here rather than loops.
        const maxPages = Math.ceil(allNames.length / limit) + 2;
        const seen = [];
        const links = new Set();
        let state;
        for (let n = 1; ; n++) {
          assert.ok(n <= maxPages, `page ${n}: still a cursor after ${maxPages - 1} pages of ${limit} for ${allNames.length} accounts`);
          if (n > 1) await page.keyboard.press("Alt+n");
          state = await waitForPage(page, n);
          const t = await table(page);
          const col = t.head.indexOf("name");
          assert.ok(col > 0, `page ${n}: the table has a name column: ${t.head.slice(0, 8)}`);
          const names = t.rows.map((r) => r[col]);
          for (const name of names) {
            assert.ok(!seen.includes(name), `page ${n} repeats ${name}, shown on an earlier page (rows ${seen.length + 1}..)`);
          }
          assert.deepEqual(
            t.rows.map((r) => r[0]),
            names.map((_, i) => String(seen.length + 1 + i)),
            `page ${n}: rows are numbered on from the previous page`,
          );
          seen.push(...names);
          const hash = decodeURIComponent(new URL(page.url()).hash);
          assert.ok(!links.has(hash), `page ${n}: the link holds the cursor the page was fetched with, not an earlier page's: ${hash}`);
          links.add(hash);
          if (state !== "ready") break;
        }
        assert.equal(state, "end", "the list ends because the last response carries no cursor (not a cursor that repeats the request)");
        assert.deepEqual(seen, allNames, "every account once, in name order");
        assert.match(await page.textContent("#result .status"), /end of list/);
        assert.equal(await page.$eval("#next", (b) => b.disabled), true, "Next page is disabled at the end");

        // JSON on demand: the last response as protojson.
        // The page fills the view on the details' "toggle" event, which the
        // browser fires in a task after the click: wait for it.
        await page.click("#json summary");
        await page.waitForFunction(() => document.querySelector("#json pre")?.textContent.trim() !== "");
        const json = JSON.parse(await page.textContent("#json pre"));
        assert.deepEqual(json.accounts.map((a) => a.name), seen.slice(-json.accounts.length));
        assert.equal(json.nextStart, undefined);

        assert.ok(calls.length >= 2, "more than one page was fetched");
        for (const c of calls) {
          assert.match(c.path, /\/ListAccounts$/);
          assert.equal(c.contentType, contentType, `${c.path} is sent with the ${label} protocol`);
        }
        assert.deepEqual(problems, []);
        await mkdir(artifacts, { recursive: true });
        await page.screenshot({ path: path.join(artifacts, `explorer-list-accounts-${transport}.png`), fullPage: true });

        // The address is a deep link: opened afresh, it shows the last
        // page's request (its cursor in the form) and calls it again.
        const link = page.url();
        const lastRows = (await table(page)).rows.map((r) => r.slice(1));
        const again = await browser.newPage();
        try {
          await again.goto(link, { timeout: waitMs });
          await again.waitForSelector('#request:not([hidden]) [data-path="limit"]', { timeout: waitMs });
          assert.equal(await again.inputValue('[data-path="limit"]'), String(limit));
          await again.keyboard.press("Control+Enter");
          await waitForPage(again, 1);
          const hash = (u) => decodeURIComponent(new URL(u).hash);
          assert.equal(hash(again.url()), hash(link), "the form holds the linked request exactly (the call rewrites the hash from it)");
          assert.deepEqual((await table(again)).rows.map((r) => r.slice(1)), lastRows, "the link fetches the same page");
        } finally {
          await again.close();
        }
      } finally {
        await context.close();
      }
    });
  }

  // Each shape of cursor the convention knows: a cursor of the request
  // field's own type, one whose fields are request fields, and one whose
  // fields are fields of a message in the request.
  const cursorCases = [
    { jsonrpc: "database_api.list_witnesses", request: { limit: 3, order: "LIST_WITNESSES_ORDER_BY_NAME" }, fills: { "start.byName.owner": "byName.owner" } },
    { jsonrpc: "reputation_api.get_account_reputations", request: { limit: 3 }, fills: { accountLowerBound: "accountLowerBound" } },
    {
      jsonrpc: "condenser_api.get_discussions_by_created",
      request: { query: { limit: 3 } },
      fills: { "query.startAuthor": "startAuthor", "query.startPermlink": "startPermlink" },
    },
  ];
  for (const { jsonrpc, request, fills } of cursorCases) {
    test(`Next page feeds ${jsonrpc}'s cursor into the request`, async () => {
      const { page, context, problems } = await openPage({ gateway: demo.url });
      try {
        const method = await page.$eval(`#services a[data-jsonrpc="${jsonrpc}"]`, (a) => a.dataset.method);
        await page.evaluate((h) => (location.hash = h), `#${method}?${encodeURIComponent(JSON.stringify(request))}`);
        await page.waitForSelector(`#request[data-method="${method}"]`);
        await page.keyboard.press("Control+Enter");
        assert.equal(await waitForPage(page, 1), "ready", "page 1 has a cursor");
        await page.click("#json summary");
        await page.waitForFunction(() => document.querySelector("#json pre")?.textContent.trim() !== "");
        const { nextStart } = JSON.parse(await page.textContent("#json pre"));
        assert.ok(nextStart, "the response carries next_start");
        await page.keyboard.press("Alt+n");
        await waitForPage(page, 2);
        const sent = JSON.parse(decodeURIComponent(new URL(page.url()).hash.split("?")[1]));
        for (const [to, from] of Object.entries(fills)) {
          const want = from.split(".").reduce((o, k) => o?.[k], nextStart);
          assert.ok(want !== undefined && want !== "", `next_start.${from} is set`);
          assert.equal(to.split(".").reduce((o, k) => o?.[k], sent), want, `page 2's request has ${to} = next_start.${from}`);
          assert.equal(await page.inputValue(`[data-path="${to}"]`), String(want), `the form shows ${to}`);
        }
        assert.equal(await page.$eval("#result", (r) => r.dataset.rows), "3", "page 2 has a full page of rows");
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  test("calls one RPC of every service and shows a result table", async () => {
    const token = (await logIn(demo.url, "alice")).access_token;
    // A call known to answer on the simulated node, per service: by
    // JSON-RPC method or, for RPCs without one, by "Service/Method".
    const known = {
      "database_api.get_dynamic_global_properties": {},
      "market_history_api.get_ticker": {},
      "follow_api.get_follow_count": { account: "alice" },
      "tags_api.get_discussions_by_created": { limit: 3 },
      "rc_api.get_resource_params": {},
      "account_history_api.get_ops_in_block": { blockNum: 1 },
      "condenser_api.get_dynamic_global_properties": {},
      "block_api.get_block": { blockNum: 1 },
      "reputation_api.get_account_reputations": { limit: 3 },
      "hive.get_info": {},
      "hive_api.get_version": {},
      "search_api.find_text": { pattern: "hive", limit: 3, sort: "FIND_TEXT_SORT_CREATED" },
      "transaction_status_api.find_transaction": { transactionId: "0000000000000000000000000000000000000000" },
      "account_by_key_api.get_key_references": { keys: [aliceKey] },
      "bridge.get_profile": { account: "alice" },
      "JsonRpcService/Call": { method: "condenser_api.get_block", params: [1] },
      "AuthService/Me": {},
    };
    const { page, context, problems } = await openPage({ gateway: demo.url, transport: "connect" });
    try {
      await page.fill("#token", token);
      const services = await page.$$eval("#services section.service", (ss) =>
        ss.map((s) => ({
          service: s.dataset.service,
          methods: [...s.querySelectorAll("a[data-method]")].map((a) => ({ path: a.dataset.method, jsonrpc: a.dataset.jsonrpc })),
        })),
      );
      assert.ok(services.length >= 16, `${services.length} services listed`);
      // Services of server-streaming RPCs only: the explorer lists them and
      // says it cannot call them (the Call button stays disabled).
      const streamingOnly = { "hive.stream.v1.StreamService": "hive.stream.v1.StreamService/StreamBlocks" };
      for (const { service, methods } of services) {
        if (service in streamingOnly) {
          const path = streamingOnly[service];
          assert.ok(methods.some((m) => m.path === path), `${service} lists ${path}`);
          await page.evaluate((h) => (location.hash = h), `#${path}?{}`);
          await page.waitForSelector(`#request[data-method="${path}"]`);
          assert.ok(await page.$eval("#call", (b) => b.disabled), `${path}: Call is disabled for a streaming RPC`);
          assert.match(await page.textContent("#result .status"), /server_streaming RPCs are not supported by the explorer/);
          continue;
        }
        const pick = methods.find((m) => (m.jsonrpc && m.jsonrpc in known) || m.path.split(".").pop() in known);
        assert.ok(pick, `no known call for ${service}: add one of its RPCs to the test's table`);
        const request = known[pick.jsonrpc] ?? known[pick.path.split(".").pop()];
        // A deep link: the hash names the RPC and holds the request.
        await page.evaluate((h) => (location.hash = h), `#${pick.path}?${encodeURIComponent(JSON.stringify(request))}`);
        await page.waitForSelector(`#request[data-method="${pick.path}"]`);
        const first = Object.keys(request)[0];
        if (first && typeof request[first] !== "object") {
          assert.equal(await page.inputValue(`[data-path="${first}"]`), String(request[first]), `${pick.path}: the form shows the linked request`);
        }
        const before = await page.$eval("#result", (r) => r.dataset.page);
        assert.equal(before, "0", `${pick.path}: nothing shown before the call`);
        await page.keyboard.press("Control+Enter");
        await waitForPage(page, 1);
        const t = await table(page);
        assert.ok(t.rows.length > 0, `${pick.path}: the result table has rows`);
        assert.ok(t.rows.every((r) => r.length === t.head.length), `${pick.path}: every row has a cell per column`);
      }
      assert.deepEqual(problems, []);
      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, "explorer-every-service.png"), fullPage: true });
    } finally {
      await context.close();
    }
  });

  test("shows the gateway's error for an invalid page size", async () => {
    const { page, context } = await openPage({ gateway: demo.url, transport: "connect" });
    try {
      await page.click('#services a[data-jsonrpc="database_api.list_accounts"]');
      await page.fill('[data-path="limit"]', "1001");
      await page.click("#call");
      await page.waitForSelector('#result[data-state="error"]');
      const error = await page.textContent("#result .error");
      assert.match(error, /^\[invalid_argument\] /, "the Connect code is shown");
      assert.match(error, /limit/i, "the message says what is wrong");
      assert.match(error, /\nJSON-RPC error -?\d+: .*limit/, "the JSON-RPC error detail hivegate attaches is decoded and shown");
      assert.equal(await page.$eval("#result", (r) => r.dataset.page), "0", "no page was shown");
      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, "explorer-error.png"), fullPage: true });
    } finally {
      await context.close();
    }
  });

  test("shows a network error for a gateway that is not there", async () => {
    const closed = await closedPort();
    const { page, context } = await openPage({ gateway: `http://127.0.0.1:${closed}`, transport: "grpcweb" });
    try {
      await page.click('#services a[data-jsonrpc="database_api.get_dynamic_global_properties"]');
      await page.click("#call");
      await page.waitForSelector('#result[data-state="error"]');
      const error = await page.textContent("#result .error");
      assert.match(error, /^\[unknown\] Failed to fetch/, "Connect's code and the browser's fetch failure are shown");
      assert.match(error, /could not be reached/, "the page explains the failure");
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
