// Starts `hivegate demo` (a simulated Hive node plus the gateway) as a child
// process for the end-to-end tests, and stops it again.
//
// HIVEGATE_BIN names a prebuilt hivegate binary (tests/run.sh builds one);
// without it the tests use `go run ./cmd/hivegate` from the repository root.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import os from "node:os";
import path from "node:path";

/** The repository root: the directory above tests/. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * A running demo.
 * @typedef {object} Demo
 * @property {string} url      the gateway, http://127.0.0.1:PORT
 * @property {string} nodeUrl  the simulated Hive node the gateway forwards to
 * @property {string} appUrl   the demo's example app (demo.app), on its own origin
 * @property {() => Promise<void>} stop  stops the gateway and its node
 */

/**
 * Starts `hivegate demo --listen 127.0.0.1:0 --log-format json` and resolves
 * once the gateway listens. The addresses come from the demo's JSON log lines
 * "simulated Hive node ready" (url), "hivegate listening" (addr) and "demo app
 * ready" (url).
 * @param {{timeoutMs?: number, seed?: number}} [opts]
 * @returns {Promise<Demo>}
 */
export async function startDemo({ timeoutMs = 180_000, seed = 1 } = {}) {
  const args = ["demo", "--listen", "127.0.0.1:0", "--log-format", "json", "--seed", String(seed)];
  const bin = process.env.HIVEGATE_BIN;
  const [cmd, argv] = bin ? [bin, args] : ["go", ["run", "./cmd/hivegate", ...args]];
  // detached: the child leads its own process group, so stop() also ends the
  // binary `go run` starts.
  const child = spawn(cmd, argv, { cwd: repoRoot, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  // If this test process ends without stop() (an interrupt, a crash), take
  // the demo down with it rather than leave it listening.
  const onExit = () => signalGroup(child.pid, "SIGKILL");
  const onSignal = (sig) => {
    onExit();
    process.exit(128 + (os.constants.signals[sig] ?? 0));
  };
  process.once("exit", onExit);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const exited = new Promise((resolve) =>
    child.once("exit", (code, signal) => {
      process.off("exit", onExit);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve({ code, signal });
    }),
  );
  const output = [];
  let nodeUrl;
  let url;
  let appUrl;

  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hivegate demo not ready after ${timeoutMs} ms`)), timeoutMs);
    const check = () => {
      if (nodeUrl && url && appUrl) {
        clearTimeout(timer);
        resolve();
      }
    };
    createInterface({ input: child.stdout }).on("line", (line) => output.push(line));
    createInterface({ input: child.stderr }).on("line", (line) => {
      output.push(line);
      let rec;
      try {
        rec = JSON.parse(line);
      } catch {
        return; // go run's own messages, compiler output
      }
      if (rec.msg === "simulated Hive node ready") nodeUrl = rec.url;
      if (rec.msg === "demo app ready") appUrl = rec.url;
      // The admin listener (loopback, metrics) logs the same line first.
      if (rec.msg === "hivegate listening" && rec.listener === "main") url = `http://${rec.addr}`;
      check();
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`hivegate demo exited early (code ${code}, signal ${signal})`));
    });
  });

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(child.pid, "SIGTERM");
    const killer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), 25_000);
    await exited;
    clearTimeout(killer);
  };

  try {
    await ready;
  } catch (err) {
    await stop();
    err.message += `\n--- hivegate output ---\n${output.join("\n")}`;
    throw err;
  }
  return { url, nodeUrl, appUrl, stop };
}

/** Sends sig to the process group led by pid, ignoring a group already gone. */
function signalGroup(pid, sig) {
  try {
    process.kill(-pid, sig);
  } catch (err) {
    if (err.code !== "ESRCH") throw err;
  }
}

/**
 * Posts one JSON-RPC body (a request object or a batch array) to url and
 * returns the parsed response, failing on a non-200 status.
 * @param {string} url
 * @param {unknown} body
 */
export async function postJSON(url, body) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== 200) {
    throw new Error(`POST ${url}: status ${res.status}: ${text}`);
  }
  return JSON.parse(text);
}

/**
 * Calls one JSON-RPC method and returns its result, failing on an error.
 * @param {string} url
 * @param {string} method
 * @param {unknown} params
 */
export async function rpc(url, method, params) {
  const res = await postJSON(url, { jsonrpc: "2.0", id: 1, method, params });
  if (res.error) {
    throw new Error(`${method}: JSON-RPC error ${JSON.stringify(res.error)}`);
  }
  return res.result;
}
