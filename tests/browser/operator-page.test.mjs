// The operator page (web/src/operator, served by the admin listener at
// /operator/) in Debian's Chromium against `hivegate serve`, whose hived
// backend has two nodes: two counting loopback proxies in front of the
// simulated node of `hivegate demo`. The page must show the route table and
// both nodes; cordoning node 1 from the page must keep every later call off
// it (the proxies count them) while the backend serves through node 2; the
// page must refuse to cordon the last node unless the operator confirms;
// uncordoning puts node 1 back.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request } from "node:http";
import { createInterface } from "node:readline";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { postJSON, repoRoot, startDemo } from "../lib/gateway.mjs";

const waitMs = 20_000;
const artifacts = path.join(repoRoot, "ci-artifacts");
/** The method the test calls: never cached (ttls below), not one the probes use. */
const method = "condenser_api.get_config";

let demo;
let proxies = [];
let gateway;
let browser;
let tmp;

/**
 * A loopback HTTP proxy to target that counts the JSON-RPC calls it
 * forwards, by method (each element of a batch counts).
 */
async function countingProxy(target) {
  const counts = new Map();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString("utf8"));
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
          counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
        }
      } catch {
        // not JSON-RPC: forwarded as it is
      }
      const up = request(target, { method: req.method, headers: { "content-type": "application/json", "content-length": body.length } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on("error", () => res.writeHead(502).end());
      up.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    count: (m) => counts.get(m) ?? 0,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Starts `hivegate serve --config file` on loopback ports and resolves with
 * its main and admin URLs once both listen.
 */
async function startServe(file) {
  const args = ["serve", "--config", file, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--log-format", "json"];
  const bin = process.env.HIVEGATE_BIN;
  const [cmd, argv] = bin ? [bin, args] : ["go", ["run", "./cmd/hivegate", ...args]];
  const child = spawn(cmd, argv, { cwd: repoRoot, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const kill = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch (err) {
      if (err.code !== "ESRCH") throw err;
    }
  };
  const onExit = () => kill("SIGKILL");
  process.once("exit", onExit);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const output = [];
  const addrs = {};
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hivegate serve not ready:\n${output.join("\n")}`)), 180_000);
    createInterface({ input: child.stderr }).on("line", (line) => {
      output.push(line);
      try {
        const rec = JSON.parse(line);
        if (rec.msg === "hivegate listening") addrs[rec.listener] = `http://${rec.addr}`;
      } catch {
        return;
      }
      if (addrs.main && addrs.admin) {
        clearTimeout(timer);
        resolve();
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`hivegate serve exited early (${code}):\n${output.join("\n")}`));
    });
  });
  return {
    url: addrs.main,
    admin: addrs.admin,
    stop: async () => {
      process.off("exit", onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      kill("SIGTERM");
      const killer = setTimeout(() => kill("SIGKILL"), 25_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

before(async () => {
  demo = await startDemo();
  proxies = [await countingProxy(demo.nodeUrl), await countingProxy(demo.nodeUrl)];
  tmp = await mkdtemp(path.join(os.tmpdir(), "hivegate-operator-"));
  gateway = await startServe(await writeConfig("hivegate.yaml", ""));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_BIN || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    timeout: 60_000,
  });
});

/** Writes the test's config, with extra hivegate settings lines, into tmp. */
async function writeConfig(name, settings) {
  const file = path.join(tmp, name);
  await writeFile(
    file,
    `hivegate:
${settings}  cache_max_capacity: 16777216
  # The simulated chain's blocks are dated from 2024: no head is fresh.
  node_max_head_age: 0
  node_max_sync_age: 0
backends:
  hived:
    - ${proxies[0].url}
    - ${proxies[1].url}
urls:
  appbase: hived
ttls:
  appbase: 3
  appbase.condenser_api.get_config: NO_CACHE
timeouts:
  appbase: 5
retries:
  appbase: 1
`,
  );
  return file;
}

after(async () => {
  await browser?.close();
  await gateway?.stop();
  for (const p of proxies) await p.close();
  await demo?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Makes n calls of method through the gateway; all must succeed. */
async function calls(n) {
  for (let i = 0; i < n; i++) {
    const res = await postJSON(gateway.url, { jsonrpc: "2.0", id: i, method, params: [] });
    assert.ok(res.result, `call ${i}: ${JSON.stringify(res.error)}`);
  }
}

/** The calls of method each proxy (node 1, node 2) forwarded. */
const counts = () => proxies.map((p) => p.count(method));

/** What the page shows for one node. */
async function nodeRow(page, n) {
  return page.$eval(`tr.node[data-backend="hived"][data-node="${n}"]`, (tr) => ({
    state: tr.dataset.state,
    url: tr.querySelector("code").textContent,
    button: tr.querySelector("button").textContent,
  }));
}

/** Waits until node n's row shows state. */
async function waitForState(page, n, state) {
  await page.waitForSelector(`tr.node[data-backend="hived"][data-node="${n}"][data-state="${state}"]`, { timeout: waitMs });
}

describe("operator page in Chromium", () => {
  test("shows routes and nodes, cordons a node that calls then avoid, and uncordons it", async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    page.setDefaultTimeout(waitMs);
    const problems = [];
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    try {
      await page.goto(`${gateway.admin}/operator/?every=300`, { timeout: waitMs });
      await page.waitForSelector('body[data-state="ready"]');

      // The route table.
      const routes = await page.$$eval("#routes-table tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
      assert.deepEqual(
        routes.find((r) => r[0] === "appbase.condenser_api.get_config"),
        ["appbase.condenser_api.get_config", "hived", "NO_CACHE", "5 s", "1"],
      );
      assert.deepEqual(routes.find((r) => r[0] === "appbase"), ["appbase", "hived", "3", "5 s", "1"]);

      // Both nodes, in service once probed.
      await waitForState(page, 1, "in service");
      await waitForState(page, 2, "in service");
      assert.equal((await nodeRow(page, 1)).url, `${proxies[0].url}/`);
      assert.equal((await nodeRow(page, 2)).url, `${proxies[1].url}/`);

      // Idle calls go to node 1; the page ranks the method.
      let before = counts();
      await calls(4);
      assert.deepEqual(counts(), [before[0] + 4, before[1]], "an idle backend sends every call to its first node");
      await page.waitForSelector(`#top-rate tr[data-method="appbase.${method}"]`);

      // Cordon node 1 from the page: calls go to node 2 only.
      await page.click('tr.node[data-node="1"] button');
      await waitForState(page, 1, "cordoned");
      assert.match(await page.textContent("#notice"), /hived node 1 cordoned/);
      assert.equal((await nodeRow(page, 1)).button, "Uncordon");
      before = counts();
      await calls(10);
      assert.deepEqual(counts(), [before[0], before[1] + 10], "a cordoned node gets no new calls; the other serves them all");
      const metrics = await (await fetch(`${gateway.admin}/metrics`)).text();
      assert.match(metrics, /hivegate_backend_node_cordoned\{backend="hived",node="1"\} 1/);
      assert.match(metrics, /hivegate_backend_node_in_service\{backend="hived",node="1"\} 0/);
      await mkdir(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, "operator-page-cordoned.png"), fullPage: true });

      // Node 2 is the last node that takes calls: the page asks, the
      // operator declines, nothing changes.
      const asked = new Promise((resolve) =>
        page.once("dialog", async (d) => {
          resolve(d.message());
          await d.dismiss();
        }),
      );
      await page.click('tr.node[data-node="2"] button');
      assert.match(await asked, /last node that takes calls \(node 1: cordoned\)[\s\S]*Cordon hived node 2 anyway\?/);
      await page.waitForSelector("#notice.error");
      assert.match(await page.textContent("#notice"), /hived node 2 not cordoned/);
      await waitForState(page, 2, "in service");
      before = counts();
      await calls(3);
      assert.deepEqual(counts(), [before[0], before[1] + 3], "node 2 still serves");

      // Confirmed, the cordon is forced: hived has no node to call.
      page.once("dialog", (d) => d.accept());
      await page.click('tr.node[data-node="2"] button');
      await waitForState(page, 2, "cordoned");
      await page.waitForSelector('tr.backend[data-backend="hived"][data-in-service="false"]');
      assert.match(await page.textContent("#notice"), /hived node 2 cordoned by force/);
      before = counts();
      const refused = await postJSON(gateway.url, { jsonrpc: "2.0", id: 1, method, params: [] }).catch((e) => e);
      assert.match(String(refused.message ?? JSON.stringify(refused)), /every node cordoned/);
      assert.deepEqual(counts(), before, "no call reaches a node while every node is cordoned");
      await page.click('tr.node[data-node="2"] button');
      await waitForState(page, 2, "in service");

      // Uncordon node 1: idle calls go to it again.
      await page.click('tr.node[data-node="1"] button');
      await waitForState(page, 1, "in service");
      before = counts();
      await calls(3);
      assert.deepEqual(counts(), [before[0] + 3, before[1]], "the uncordoned node takes calls again");

      // A call the node refuses shows in the recent errors.
      const bad = await postJSON(gateway.url, { jsonrpc: "2.0", id: 1, method: "condenser_api.no_such_method", params: [] });
      assert.ok(bad.error, "the node refuses an unknown method");
      await page.waitForSelector('#errors-table tr[data-kind="backend_error"]');
      const err = await page.$eval('#errors-table tr[data-kind="backend_error"]', (tr) => [...tr.cells].map((c) => c.textContent));
      assert.equal(err[1], "appbase.condenser_api.no_such_method");
      assert.equal(err[4], "hived");
      assert.equal(err[2], String(bad.error.code));

      await page.screenshot({ path: path.join(artifacts, "operator-page.png"), fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  test("asks for hivegate.admin_token and reads nothing without it", async () => {
    const guarded = await startServe(await writeConfig("token.yaml", "  admin_token: page-test-token\n"));
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(waitMs);
    try {
      await page.goto(`${guarded.admin}/operator/?every=300`, { timeout: waitMs });
      await page.waitForSelector('body[data-state="login"] #login:not([hidden])');
      assert.equal(await page.$$eval("tr.node", (rows) => rows.length), 0, "nothing is shown without the token");
      await page.fill("#token", "wrong-token");
      const refused = page.waitForResponse((r) => r.url().endsWith("/admin/nodes") && r.request().headers().authorization === "Bearer wrong-token");
      await page.click('#login button[type="submit"]');
      assert.equal((await refused).status(), 401, "a wrong token is refused");
      await page.waitForSelector('body[data-state="login"] #login:not([hidden])');
      await page.fill("#token", "page-test-token");
      await page.click('#login button[type="submit"]');
      await page.waitForSelector('body[data-state="ready"]');
      await page.waitForSelector('tr.node[data-backend="hived"][data-node="2"]');
      assert.equal(await page.isHidden("#login"), true);
    } finally {
      await context.close();
      await guarded.stop();
    }
  });
});
