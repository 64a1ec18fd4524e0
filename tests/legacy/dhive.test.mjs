// The legacy JSON-RPC path with a real client library: @hiveio/dhive, the
// library most Hive apps use, against `hivegate demo`. Every call is also
// made against the simulated node directly: the answers through hivegate must
// be deep-equal to the node's own.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import dhive from "@hiveio/dhive";
import { postJSON, rpc, startDemo } from "../lib/gateway.mjs";

const { Client } = dhive;

/** @type {import("../lib/gateway.mjs").Demo} */
let demo;
/** dhive through hivegate. */
let viaGateway;
/** dhive straight to the simulated node. */
let viaNode;

before(async () => {
  demo = await startDemo();
  // One address each, so dhive never fails over; a short timeout bounds every call.
  const opts = { timeout: 20_000, failoverThreshold: 1 };
  viaGateway = new Client([demo.url], opts);
  viaNode = new Client([demo.nodeUrl], opts);
});

after(async () => {
  await demo?.stop();
});

/**
 * Runs call against a client and returns its outcome: the result, or the
 * error's name, message and JSON-RPC data (dhive keeps the data in jse_info).
 */
async function outcome(call, client) {
  try {
    return { result: await call(client) };
  } catch (err) {
    return { error: { name: err.name, message: err.message, data: err.jse_info } };
  }
}

/**
 * Asserts that call gives deep-equal outcomes through hivegate and directly,
 * and returns the outcome through hivegate. The simulated head block moves
 * every 3 s (and hivegate may serve the dynamic global properties up to 1 s
 * old from its cache), so a comparison whose two direct answers differ, or
 * that caught a cached answer a block old, is made again, at most 5 times.
 */
async function sameAnswer(call) {
  let last;
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await outcome(call, viaNode);
    const gateway = await outcome(call, viaGateway);
    const afterwards = await outcome(call, viaNode);
    if (isDeepStrictEqual(gateway, before) && isDeepStrictEqual(before, afterwards)) {
      return gateway;
    }
    last = { gateway, node: afterwards };
    await sleep(1_100);
  }
  assert.deepEqual(last.gateway, last.node, "answer through hivegate differs from the node's");
  return last.gateway;
}

describe("dhive against hivegate", () => {
  test("database.getDynamicGlobalProperties", async () => {
    const { result } = await sameAnswer((c) => c.database.getDynamicGlobalProperties());
    assert.ok(result, "no result");
    assert.ok(result.head_block_number >= 1_000_000, `head_block_number ${result.head_block_number}`);
    assert.ok(result.last_irreversible_block_num < result.head_block_number);
    assert.match(result.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  });

  test("database.getAccounts", async () => {
    const { result } = await sameAnswer((c) => c.database.getAccounts(["alice", "bob", "nobody-here"]));
    assert.deepEqual(
      result.map((a) => a.name),
      ["alice", "bob"],
      "get_accounts returns the existing accounts in the order asked",
    );
    assert.match(result[0].balance, /^\d+\.\d{3} HIVE$/, "condenser_api balances are legacy asset strings");
  });

  test("database.getBlock", async () => {
    const { result } = await sameAnswer((c) => c.database.getBlock(1000));
    assert.ok(result, "block 1000 exists");
    assert.equal(result.block_id.slice(0, 8), (1000).toString(16).padStart(8, "0"), "block id starts with the block number");
    assert.equal(result.previous.slice(0, 8), (999).toString(16).padStart(8, "0"));
    assert.equal(result.transactions.length, result.transaction_ids.length);
  });

  test("database.getAccountHistory", async () => {
    const { result } = await sameAnswer((c) => c.database.getAccountHistory("alice", -1, 10));
    assert.ok(result.length > 0 && result.length <= 11, `got ${result.length} entries`);
    const indexes = result.map(([i]) => i);
    assert.deepEqual(indexes, [...indexes].sort((a, b) => a - b), "history comes oldest first");
    for (const [, op] of result) {
      assert.equal(typeof op.op[0], "string", "each entry has a named operation");
    }
  });

  test("a hived error surfaces as dhive's RPCError", async () => {
    const tooMany = await sameAnswer((c) => c.database.getAccountHistory("alice", -1, 1001));
    assert.ok(tooMany.error, "limit 1001 must fail");
    assert.equal(tooMany.error.name, "RPCError");
    assert.match(tooMany.error.message, /limit/);

    const noMethod = await sameAnswer((c) => c.call("condenser_api", "no_such_method", []));
    assert.ok(noMethod.error, "an unknown method must fail");
    assert.equal(noMethod.error.name, "RPCError");
    assert.match(noMethod.error.message, /no_such_method/);
    assert.equal(noMethod.error.data?.name, "assert_exception", "hived's fc exception is passed through as data");
  });

  test("a batch keeps order and ids (sent with fetch: dhive does not batch)", async () => {
    const batch = [
      { jsonrpc: "2.0", id: "first", method: "condenser_api.get_block", params: [1] },
      { jsonrpc: "2.0", id: 2, method: "condenser_api.get_accounts", params: [["carol"]] },
      { jsonrpc: "2.0", id: 3, method: "condenser_api.no_such_method", params: [] },
      { jsonrpc: "2.0", id: 4, method: "database_api.list_accounts", params: { start: "", limit: 3, order: "by_name" } },
    ];
    const res = await postJSON(demo.url, batch);
    assert.ok(Array.isArray(res), "a batch answers with an array");
    assert.deepEqual(
      res.map((r) => r.id),
      batch.map((r) => r.id),
      "one response per request, in request order",
    );
    for (const [i, r] of res.entries()) {
      assert.equal(r.jsonrpc, "2.0", `response ${i}`);
    }
    assert.deepEqual(res[0].result, await rpc(demo.nodeUrl, "condenser_api.get_block", [1]));
    assert.deepEqual(res[1].result, await rpc(demo.nodeUrl, "condenser_api.get_accounts", [["carol"]]));
    assert.ok(res[2].error && !("result" in res[2]), "the failing member carries an error");
    assert.equal(typeof res[2].error.code, "number");
    assert.deepEqual(res[3].result, await rpc(demo.nodeUrl, "database_api.list_accounts", batch[3].params));
  });
});
