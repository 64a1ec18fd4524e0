package gateway_test

import (
	"context"
	"encoding/json"
	"testing"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/gateway"
	condenser_apiv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	"github.com/hivegate/hivegate/gen/hive/condenser_api/v1/condenser_apiv1connect"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/server/transcode"
)

// TestTypedGetStatePaths: the simulated node's get_state answer to every
// kind of path (ranked, account tabs, discussion, tags, static page, an
// unroutable account tab) fits GetStateResponse with no key left over and
// survives the round trip, and the typed RPC carries the account tabs.
func TestTypedGetStatePaths(t *testing.T) {
	t.Parallel()
	node := hivesim.New(hivesim.Options{Seed: 1})
	const author, permlink = "elmipeix", "first-city-open-block-code-market-b282"
	for _, path := range []string{
		"", "/hot/sports", "/created", "/payout_comments/sports", "/@" + author, "/@" + author + "/feed",
		"/@" + author + "/comments", "/@" + author + "/recent-replies", "/@" + author + "/settings",
		"/@" + author + "/" + permlink, "/sports/@" + author + "/" + permlink, "/tags", "welcome",
	} {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "condenser_api.get_state", "params": []any{path}})
		var env struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(node.Handle(body), &env); err != nil || env.Error != nil {
			t.Fatalf("%q: node: %s %v", path, env.Error, err)
		}
		var msg condenser_apiv1.GetStateResponse
		unknown, err := transcode.Unmarshal(env.Result, &msg)
		if err != nil || len(unknown) > 0 {
			t.Fatalf("%q: the node's result does not fit: %v, unknown keys %v", path, err, unknown)
		}
		back, err := transcode.Marshal(&msg)
		if err != nil {
			t.Fatal(err)
		}
		if !looselyEqualJSON(t, back, env.Result) {
			t.Errorf("%q: the result does not survive the round trip:\n node %s\n back %s", path, env.Result, back)
		}
	}

	g := startTypedGateway(t, node, gateway.Options{})
	client := condenser_apiv1connect.NewCondenserApiServiceClient(g.h1, g.srv.URL)
	resp, err := client.GetState(context.Background(), connect.NewRequest(&condenser_apiv1.GetStateRequest{Path: "/@" + author}))
	if err != nil {
		t.Fatal(err)
	}
	acc := resp.Msg.GetAccounts()[author]
	if acc == nil || len(acc.GetBlog().GetNames()) == 0 || acc.GetFeed() == nil || acc.GetComments() == nil || acc.GetRecentReplies() == nil {
		t.Fatalf("accounts[%s] = %v, want the blog tab filled and the other tabs set", author, acc)
	}
	for _, ref := range acc.GetBlog().GetNames() {
		if resp.Msg.GetContent()[ref] == nil {
			t.Fatalf("blog entry %s is not in content", ref)
		}
	}
	if resp.Msg.GetProps().GetFields()["message"].GetStringValue() != "Not further supported" {
		t.Fatalf("props = %v", resp.Msg.GetProps())
	}
	if idx, ok := resp.Msg.GetDiscussionIdx()[""]; !ok || idx.GetTrending() != nil {
		t.Fatalf(`discussion_idx = %v, want {"": {}}`, resp.Msg.GetDiscussionIdx())
	}
}
