// The lines an app writes to move from HiveSigner to hivegate, exactly as
// docs/authorization.md ("The lines an app writes") shows them, run
// against `hivegate demo` with the real hivesigner SDK (3.3.5). The SDK's
// getLoginURL() and login() always point at hivesigner.com, so the app
// builds the login URL for hivegate; everything else goes through the SDK
// with apiURL pointed at hivegate. A second test checks that the document
// still shows these lines, character for character.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import hivesigner from "hivesigner";
import dhive from "@hiveio/dhive";
import { repoRoot, rpc, startDemo } from "../lib/gateway.mjs";
import { approveLogin, demoApp, demoKey } from "../lib/auth.mjs";

let demo;
before(async () => {
  demo = await startDemo();
});
after(async () => {
  await demo?.stop();
});

test("the documented app lines: login URL for hivegate, code exchange, me and vote through the SDK", async () => {
  // alice's post to vote on, published with her own key through the gateway.
  const chain = new dhive.Client([demo.url], { timeout: 30_000 });
  await chain.broadcast.comment(
    { parent_author: "", parent_permlink: "hive", author: "alice", permlink: "a-post", title: "A post", body: "a post", json_metadata: "{}" },
    demoKey("alice", "posting"),
  );
  // What the app has: hivegate's URL, a fresh state, and (on its server) its secret.
  const hivegate = demo.url;
  const state = "st-" + Date.now();
  const secret = demoApp.secret;
  // The browser the login line sends somewhere.
  let sentTo;
  const window = { location: { assign: (u) => (sentTo = String(u)) } };

  // app lines: login
  const client = new hivesigner.Client({
    app: "demo.app",
    callbackURL: "http://127.0.0.1:8091/callback",
    scope: ["login", "posting"],
    responseType: "code",
    apiURL: hivegate,
  });
  // client.login() and client.getLoginURL() go to hivesigner.com: send the user to hivegate.
  const sdkURL = new URL(client.getLoginURL(state));
  window.location.assign(new URL(sdkURL.pathname + sdkURL.search, hivegate));
  // app lines: end

  assert.ok(sentTo.startsWith(`${demo.url}/oauth2/authorize?`), `the login went to ${sentTo}`);
  // The user logs in on hivegate's page and approves; the browser comes back with the code.
  const back = new URL(await approveLogin(sentTo, "bob"));
  assert.equal(back.origin + back.pathname, "http://127.0.0.1:8091/callback");
  assert.equal(back.searchParams.get("state"), state);
  const code = back.searchParams.get("code");

  // app lines: callback
  const tokens = await client.send("oauth2/token", "POST", {
    code,
    client_secret: secret,
    redirect_uri: client.callbackURL,
  });
  client.setAccessToken(tokens.access_token);
  // app lines: end
  assert.equal(tokens.username, "bob");

  // app lines: use
  const me = await client.me();
  const vote = await client.vote(me.user, "alice", "a-post", 10000);
  // app lines: end

  assert.equal(me.user, "bob");
  assert.match(vote.result.id, /^[0-9a-f]{40}$/);
  const post = await rpc(demo.url, "condenser_api.get_content", ["alice", "a-post"]);
  assert.deepEqual(post.active_votes.map((v) => v.voter), ["bob"]);
});

test("docs/authorization.md shows the app lines this file runs", async () => {
  const self = await readFile(fileURLToPath(import.meta.url), "utf8");
  const doc = await readFile(path.join(repoRoot, "docs", "authorization.md"), "utf8");
  const blocks = [...self.matchAll(/^( *)\/\/ app lines: (\w+)\n([\s\S]*?)^ *\/\/ app lines: end$/gm)];
  assert.deepEqual(blocks.map((b) => b[2]), ["login", "callback", "use"]);
  for (const [, indent, name, body] of blocks) {
    const lines = body.replace(/\n$/, "").split("\n").map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
    assert.ok(doc.includes(lines.join("\n")), `docs/authorization.md does not show the "${name}" lines:\n${lines.join("\n")}`);
  }
});
