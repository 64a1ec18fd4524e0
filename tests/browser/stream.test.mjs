// hive.stream.v1 server streams in Debian's Chromium: a small page, bundled
// here by esbuild from the generated TypeScript client (web/src/gen) and
// @connectrpc/connect-web, loads from an origin other than `hivegate demo`'s
// and reads live blocks from StreamService/StreamBlocks over Connect and
// over gRPC-Web; each block follows the one before and carries a cursor,
// and a stream started from a cursor continues right after it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { repoRoot, startDemo } from "../lib/gateway.mjs";
import { serveStatic } from "../lib/static.mjs";

/** The bound on every wait for the page: the demo's node makes a block every 3 s. */
const waitMs = 30_000;

const entry = `
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { StreamService } from "${path.join(repoRoot, "web/src/gen/hive/stream/v1/stream_pb.ts")}";

async function read(transport, from, n) {
  const client = createClient(StreamService, transport);
  const ctl = new AbortController();
  const got = [];
  for await (const msg of client.streamBlocks({ from, headersOnly: true }, { signal: ctl.signal })) {
    if (msg.event.case === "block") got.push({ num: Number(msg.event.value.blockNum), cursor: msg.cursor });
    if (got.length === n) break;
  }
  ctl.abort();
  return got;
}

window.readStreams = async (baseUrl) => {
  const out = {};
  for (const [name, transport] of [["connect", createConnectTransport({ baseUrl })], ["grpcweb", createGrpcWebTransport({ baseUrl })]]) {
    const live = await read(transport, { from: { case: "head", value: true } }, 2);
    const resumed = await read(transport, { from: { case: "cursor", value: live[0].cursor } }, 1);
    out[name] = { live, resumed };
  }
  return out;
};
`;

let demo;
let site;
let dir;
let browser;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hivegate-stream-page-"));
  const require = createRequire(path.join(repoRoot, "web", "package.json"));
  const esbuild = require("esbuild");
  await writeFile(path.join(dir, "entry.ts"), entry);
  await esbuild.build({
    entryPoints: [path.join(dir, "entry.ts")],
    bundle: true,
    format: "esm",
    outfile: path.join(dir, "stream.js"),
    nodePaths: [path.join(repoRoot, "web", "node_modules")],
    logLevel: "silent",
  });
  await writeFile(path.join(dir, "index.html"), `<!doctype html><title>streams</title><script type="module" src="stream.js"></script>`);
  demo = await startDemo();
  site = await serveStatic(dir);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_BIN || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking", "--no-first-run"],
    timeout: 60_000,
  });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await demo?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("Connect-Web reads live blocks from StreamBlocks over Connect and gRPC-Web, and resumes from a cursor", { timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  try {
    await page.goto(site.url + "/");
    await page.waitForFunction(() => typeof window.readStreams === "function", null, { timeout: waitMs });
    const out = await page.evaluate((url) => window.readStreams(url), demo.url);
    for (const name of ["connect", "grpcweb"]) {
      const { live, resumed } = out[name];
      assert.equal(live.length, 2, `${name}: two live blocks`);
      assert.equal(live[1].num, live[0].num + 1, `${name}: consecutive blocks ${live[0].num}, ${live[1].num}`);
      assert.ok(live.every((b) => b.cursor.length > 0), `${name}: every block has a cursor`);
      assert.equal(resumed[0].num, live[0].num + 1, `${name}: from the first block's cursor, the next block comes`);
    }
  } finally {
    await page.close();
  }
});
