// The real hivesigner SDK (v3) against `hivegate demo`, unchanged: only
// its apiURL points at hivegate. A demo user logs in through the authorize
// page's API (signing as Keychain would), the app gets a token for the
// code and its secret, and the SDK's me, vote, comment, customJson and
// revokeToken work; the chain shows the vote, the reply and the follow.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import hivesigner from "hivesigner";
import dhive from "@hiveio/dhive";
import { rpc, startDemo } from "../lib/gateway.mjs";
import { authorizes, demoApp, demoKey, logIn } from "../lib/auth.mjs";

let demo;
before(async () => {
  demo = await startDemo();
});
after(async () => {
  await demo?.stop();
});

test("hivesigner SDK: me, vote, comment, customJson, revokeToken", async () => {
  const user = "bob";
  const tokens = await logIn(demo.url, user);
  assert.equal(tokens.username, user);
  assert.ok(await authorizes(demo.url, user), "the login added the app's account, demo.app, to the user's posting authority");

  // alice's post, published with her own key through the gateway.
  const permlink = `sdk-post-${Date.now()}`;
  const chain = new dhive.Client([demo.url], { timeout: 30_000 });
  await chain.broadcast.comment(
    { parent_author: "", parent_permlink: "hive", author: "alice", permlink, title: "SDK", body: "a post", json_metadata: "{}" },
    demoKey("alice", "posting"),
  );

  // demo.app has a secret: it uses the code flow (responseType "code").
  const client = new hivesigner.Client({
    app: demoApp.clientId,
    callbackURL: "http://127.0.0.1:4321/callback",
    scope: ["login", "posting"],
    responseType: "code",
    apiURL: demo.url,
    accessToken: tokens.access_token,
  });
  // The SDK's own login URL, moved to hivegate's origin, opens the page.
  const login = new URL(client.getLoginURL("st"));
  const page = await fetch(`${demo.url}${login.pathname}${login.search}`);
  assert.equal(page.status, 200, `the SDK's login URL: ${login.search}`);
  // The SDK's default, the implicit flow, is refused for an app with a
  // secret: back to the app with unauthorized_client and the state.
  const implicit = new URL(new hivesigner.Client({ app: demoApp.clientId, callbackURL: "http://127.0.0.1:4321/callback", scope: ["login"] }).getLoginURL("st"));
  const refused = await fetch(`${demo.url}${implicit.pathname}${implicit.search}`, { redirect: "manual" });
  assert.equal(refused.status, 302);
  const back = new URL(refused.headers.get("location"));
  assert.equal(back.searchParams.get("error"), "unauthorized_client");
  assert.equal(back.searchParams.get("state"), "st");

  const me = await client.me();
  assert.equal(me.user, user);
  assert.equal(me.account.name, user);
  assert.ok(me.scope.includes("vote"), `scope ${me.scope}`);

  const vote = await client.vote(user, "alice", permlink, 10000);
  assert.match(vote.result.id, /^[0-9a-f]{40}$/);
  assert.equal(vote.result.expired, false);

  const reply = `re-${permlink}`;
  const comment = await client.comment("alice", permlink, user, reply, "", "Hello from the hivesigner SDK", { app: "e2e" });
  assert.match(comment.result.id, /^[0-9a-f]{40}$/);

  const follow = JSON.stringify(["follow", { follower: user, following: "alice", what: ["blog"] }]);
  const custom = await client.customJson([], [user], "follow", follow);
  assert.match(custom.result.id, /^[0-9a-f]{40}$/);

  const post = await rpc(demo.url, "condenser_api.get_content", ["alice", permlink]);
  assert.deepEqual(post.active_votes.map((v) => v.voter), [user]);
  assert.equal(post.children, 1);
  const mine = await rpc(demo.url, "condenser_api.get_content", [user, reply]);
  assert.equal(mine.body, "Hello from the hivesigner SDK");
  assert.equal(JSON.parse(mine.json_metadata).app, "e2e");
  const following = await rpc(demo.url, "condenser_api.get_following", [user, "", "blog", 1000]);
  assert.ok(following.some((f) => f.following === "alice"), "the follow is on the chain");

  // Refusals come back as the SDK expects them: thrown error objects.
  await assert.rejects(client.vote("alice", "alice", permlink, 100), (e) => e.error === "unauthorized_client");

  const token = client.accessToken;
  await client.revokeToken();
  assert.equal(client.accessToken, undefined);
  const again = new hivesigner.Client({ app: demoApp.clientId, apiURL: demo.url, accessToken: token });
  await assert.rejects(again.me(), (e) => e.error === "invalid_token" && /revoked/.test(e.error_description));
});

test("per-app consent: the user removes demo.app on chain and the SDK is refused, naming the link", async () => {
  const user = "dave";
  const tokens = await logIn(demo.url, user);
  const client = new hivesigner.Client({ app: demoApp.clientId, apiURL: demo.url, accessToken: tokens.access_token });
  const follow = (whom) => JSON.stringify(["follow", { follower: user, following: whom, what: ["blog"] }]);
  const ok = await client.customJson([], [user], "follow", follow("alice"));
  assert.match(ok.result.id, /^[0-9a-f]{40}$/);
  // demo.app (the app's account, not hivegate's service account) is what
  // the login added, and what the user removes to revoke the app.
  assert.ok(await authorizes(demo.url, user), "the login added demo.app"); // waits out the gateway's 3 s cache
  const [a] = await rpc(demo.url, "condenser_api.get_accounts", [[user]]);
  assert.ok(a.posting.account_auths.some(([n]) => n === demoApp.account), `posting ${JSON.stringify(a.posting)}`);
  assert.ok(!a.posting.account_auths.some(([n]) => n === demoApp.serviceAccount), "the service account itself was not added");
  const chain = new dhive.Client([demo.url], { timeout: 30_000 });
  await chain.broadcast.updateAccount(
    {
      account: user,
      posting: { ...a.posting, account_auths: a.posting.account_auths.filter(([n]) => n !== demoApp.account) },
      memo_key: a.memo_key,
      json_metadata: a.json_metadata,
    },
    demoKey(user, "active"),
  );
  await assert.rejects(
    client.customJson([], [user], "follow", follow("bob")),
    (e) => e.error === "unauthorized_client" && e.error_description.includes(`@${user} has not authorized app @demo.app (posting)`),
  );
});
