package hivesim_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

func TestEnvelope(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 31)
	cases := []struct {
		name    string
		body    string
		want    string // exact response body
		code    int    // or: expected error code (when want is "")
		message string
	}{
		{name: "string id echoed", body: `{"jsonrpc":"2.0","id":"abc","method":"condenser_api.get_block","params":[0]}`,
			want: `{"jsonrpc":"2.0","result":null,"id":"abc"}`},
		{name: "big id echoed", body: `{"jsonrpc":"2.0","id":12345678901234567890,"method":"condenser_api.get_block","params":[0]}`,
			want: `{"jsonrpc":"2.0","result":null,"id":12345678901234567890}`},
		{name: "no id", body: `{"jsonrpc":"2.0","method":"block_api.get_block","params":{"block_num":0}}`,
			want: `{"jsonrpc":"2.0","result":{}}`},
		{name: "empty batch", body: `[]`, want: `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Array is invalid"}}`},
		{name: "null id", body: `{"jsonrpc":"2.0","id":null,"method":"jsonrpc.get_methods"}`,
			code: -32600, message: `Only integer value or string is allowed for member "id"`},
		{name: "float id", body: `{"jsonrpc":"2.0","id":1.5,"method":"jsonrpc.get_methods"}`,
			code: -32600, message: `Only integer value or string is allowed for member "id"`},
		{name: "no jsonrpc", body: `{"id":1,"method":"jsonrpc.get_methods"}`,
			code: -32600, message: `jsonrpc value is not "2.0"`},
		{name: "no method", body: `{"jsonrpc":"2.0","id":1}`,
			code: -32600, message: `A member "method" does not exist`},
		{name: "call without params", body: `{"jsonrpc":"2.0","id":1,"method":"call"}`,
			code: -32001, message: `A member "params" does not exist`},
		{name: "unknown api", body: `{"jsonrpc":"2.0","id":1,"method":"nope_api.get"}`,
			code: -32601, message: "Assert Exception:api_itr != data._registered_apis.end(): Could not find API nope_api"},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":1,"method":"database_api.nope"}`,
			code: -32601, message: "Assert Exception:method_itr != api_itr->second.end(): Could not find method nope"},
		{name: "unknown method via call", body: `{"jsonrpc":"2.0","id":1,"method":"call","params":["database_api","nope",{}]}`,
			code: -32601, message: "Assert Exception:method_itr != api_itr->second.end(): Could not find method nope"},
		{name: "condenser argument count", body: `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_dynamic_global_properties","params":[1]}`,
			code: -32003, message: "Assert Exception:args.size() == 0: Expected #s argument(s), was 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw := c.post(t, []byte(tc.body))
			if tc.want != "" {
				if string(raw) != tc.want {
					t.Fatalf("response %s, want %s", raw, tc.want)
				}
				return
			}
			var r response
			if err := json.Unmarshal(raw, &r); err != nil || r.Error == nil {
				t.Fatalf("response %s: %v", raw, err)
			}
			if r.Error.Code != tc.code || r.Error.Message != tc.message {
				t.Fatalf("error %d %q, want %d %q", r.Error.Code, r.Error.Message, tc.code, tc.message)
			}
		})
	}
	// Malformed JSON is a parse error.
	var r response
	if err := json.Unmarshal(c.post(t, []byte(`{"jsonrpc":`)), &r); err != nil || r.Error == nil || r.Error.Code != -32700 {
		t.Fatalf("parse error response %+v, %v", r, err)
	}
}

func TestBatchAndCallForm(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 32)
	named := c.call(t, "database_api.list_accounts", obj{"start": "", "limit": 3, "order": "by_name"})
	viaCall := c.call(t, "call", []any{"database_api", "list_accounts", obj{"start": "", "limit": 3, "order": "by_name"}})
	if string(named.Result) != string(viaCall.Result) {
		t.Fatal("call form differs from the named form")
	}
	condenser := c.result(t, "call", []any{"condenser_api", "get_accounts", []any{[]any{"alice"}}}).([]any)
	if len(condenser) != 1 || str(condenser[0].(obj), "name") != "alice" {
		t.Fatalf("condenser via call = %v", condenser)
	}
	if got := n.Calls("database_api.list_accounts"); got != 2 {
		t.Fatalf("Calls(list_accounts) = %d, want 2", got)
	}
	batch := `[{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]},
		{"jsonrpc":"2.0","id":2,"method":"nope.nope"},
		{"jsonrpc":"2.0","id":"three","method":"database_api.get_dynamic_global_properties","params":{}}]`
	var out []response
	if err := json.Unmarshal(c.post(t, []byte(batch)), &out); err != nil || len(out) != 3 {
		t.Fatalf("batch: %v %d", err, len(out))
	}
	if string(out[0].ID) != "1" || out[0].Result == nil || out[1].Error == nil || string(out[2].ID) != `"three"` || out[2].Result == nil {
		t.Fatalf("batch responses %+v", out)
	}
	if n.Calls("nope.nope") != 1 {
		t.Fatalf("unknown methods are counted too: %d", n.Calls("nope.nope"))
	}
	resp, err := http.Get(c.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET status %d", resp.StatusCode)
	}
}

func TestBroadcastAndMethods(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 33)
	// A transaction signed by alice's posting key, on this chain's head.
	tx := signed(t, newTx(t, c, post(t, "alice", "x")), hivesim.DemoKey("alice", "posting"))
	var trxJSON any
	_ = json.Unmarshal(tx.AppendJSON(nil), &trxJSON)
	trx := obj{"trx": trxJSON, "max_block_age": -1}
	if got := c.result(t, "network_broadcast_api.broadcast_transaction", trx); len(got.(obj)) != 0 {
		t.Fatalf("broadcast result %v", got)
	}
	bs := n.Broadcasts()
	if len(bs) != 1 {
		t.Fatalf("recorded %d broadcasts", len(bs))
	}
	want, _ := json.Marshal(trx)
	if string(canonicalJSON(t, bs[0])) != string(canonicalJSON(t, want)) {
		t.Fatalf("recorded %s, want %s", bs[0], want)
	}
	methods := c.result(t, "jsonrpc.get_methods", obj{}).([]any)
	have := map[string]bool{}
	for _, m := range methods {
		have[m.(string)] = true
	}
	for _, m := range strings.Fields(`database_api.list_accounts database_api.list_witnesses
		database_api.list_witness_votes database_api.list_owner_histories database_api.list_account_recovery_requests
		database_api.list_change_recovery_account_requests database_api.list_escrows database_api.list_withdraw_vesting_routes
		database_api.list_savings_withdrawals database_api.list_vesting_delegations database_api.list_vesting_delegation_expirations
		database_api.list_hbd_conversion_requests database_api.list_collateralized_conversion_requests
		database_api.list_decline_voting_rights_requests database_api.list_limit_orders database_api.list_proposals
		database_api.list_proposal_votes database_api.list_votes database_api.list_comments database_api.list_smt_contributions
		database_api.list_smt_tokens database_api.list_smt_token_emissions database_api.get_dynamic_global_properties
		database_api.find_accounts condenser_api.get_dynamic_global_properties condenser_api.get_accounts
		condenser_api.get_block condenser_api.get_block_header condenser_api.get_account_history condenser_api.get_blog
		condenser_api.get_blog_entries condenser_api.get_feed condenser_api.get_feed_entries condenser_api.get_followers
		condenser_api.get_following condenser_api.get_replies_by_last_update condenser_api.get_discussions_by_author_before_date
		condenser_api.get_trending_tags condenser_api.get_vesting_delegations condenser_api.get_account_reputations
		condenser_api.get_ops_in_block condenser_api.get_content account_history_api.get_account_history block_api.get_block
		block_api.get_block_header block_api.get_block_range follow_api.get_account_reputations
		reputation_api.get_account_reputations tags_api.get_discussions_by_author_before_date
		network_broadcast_api.broadcast_transaction condenser_api.broadcast_transaction
		condenser_api.broadcast_transaction_synchronous jsonrpc.get_methods`) {
		if !have[m] {
			t.Errorf("jsonrpc.get_methods lacks %s", m)
		}
	}
}

func canonicalJSON(t *testing.T, raw []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}

// TestConcurrentCalls exercises the node from many goroutines (run with -race).
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	n, c, clk := testNode(t, 34)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				clk.Advance(1)
				c.post(t, request("database_api.list_witnesses", obj{"start": "", "limit": 5 + i + j, "order": "by_name"}))
			}
		}()
	}
	wg.Wait()
	if got := n.Calls("database_api.list_witnesses"); got != 80 {
		t.Fatalf("Calls = %d, want 80", got)
	}
}
