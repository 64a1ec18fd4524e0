package dispatch_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// Transactions in both operation shapes.
const (
	legacyVote = `{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2030-01-01T00:00:00",` +
		`"operations":[["vote",{"voter":"VOTER","author":"AUTHOR","permlink":"p","weight":10000}]],"extensions":[],"signatures":["1f00"]}`
	typedTransfer = `{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2030-01-01T00:00:00",` +
		`"operations":[{"type":"transfer_operation","value":{"from":"FROM","to":"TO","amount":{"amount":"1","precision":3,"nai":"@@000000021"},"memo":"spammer"}}],"extensions":[],"signatures":[]}`
	customJSON = `{"operations":[["custom_json",{"required_auths":[],"required_posting_auths":["POSTER"],"id":"follow","json":"[\"follow\",{\"follower\":\"spammer\"}]"}]]}`
)

func tx(tmpl string, repl ...string) string { return strings.NewReplacer(repl...).Replace(tmpl) }

func inList(list ...string) func(string) bool {
	return func(s string) bool { return slices.Contains(list, s) }
}

func TestBlacklistedAccount(t *testing.T) {
	t.Parallel()
	clean := tx(legacyVote, "VOTER", "alice", "AUTHOR", "bob")
	testCases := []struct {
		name, params string
		want         string // "" = none
	}{
		{"legacy op, voter", "[" + tx(legacyVote, "VOTER", "spammer", "AUTHOR", "bob") + "]", "spammer"},
		{"legacy op, author (for)", "[" + tx(legacyVote, "VOTER", "alice", "AUTHOR", "spammer") + "]", "spammer"},
		{"typed op, from", "[" + tx(typedTransfer, "FROM", "spammer", "TO", "bob") + "]", "spammer"},
		{"typed op, to", `{"trx":` + tx(typedTransfer, "FROM", "alice", "TO", "spammer") + `}`, "spammer"},
		{"named trx", `{"trx":` + tx(legacyVote, "VOTER", "spammer", "AUTHOR", "bob") + `}`, "spammer"},
		{"required_posting_auths", "[" + tx(customJSON, "POSTER", "spammer") + "]", "spammer"},
		{"required_auths", `[{"operations":[["custom_json",{"required_auths":["alice","spammer"],"required_posting_auths":[]}]]}]`, "spammer"},
		{"required_active_auths", `[{"operations":[{"type":"custom_binary_operation","value":{"required_active_auths":["spammer"]}}]}]`, "spammer"},
		{"account_create new_account_name", `[{"operations":[["account_create",{"creator":"alice","new_account_name":"spammer","owner":{"weight_threshold":1,"account_auths":[],"key_auths":[]}}]]}]`, "spammer"},
		{"authority granted to", `[{"operations":[["account_update",{"account":"alice","posting":{"weight_threshold":1,"account_auths":[["spammer",1]],"key_auths":[]}}]]}]`, "spammer"},
		{"delegation", `[{"operations":[["delegate_vesting_shares",{"delegator":"alice","delegatee":"spammer","vesting_shares":"1.000000 VESTS"}]]}]`, "spammer"},
		{"beneficiary", `[{"operations":[["comment_options",{"author":"alice","extensions":[[0,{"beneficiaries":[{"account":"spammer","weight":100}]}]]}]]}]`, "spammer"},
		{"escaped name", `[{"operations":[["vote",{"voter":"sp\u0061mmer","author":"bob"}]]}]`, "spammer"},
		{"duplicate member, first", `[{"operations":[["vote",{"voter":"spammer","voter":"alice"}]]}]`, "spammer"},
		{"duplicate member, last", `[{"operations":[["vote",{"voter":"alice","voter":"spammer"}]]}]`, "spammer"},
		{"block of transactions", `[{"previous":"00","transactions":[` + clean + `,` + tx(legacyVote, "VOTER", "spammer", "AUTHOR", "x") + `]}]`, "spammer"},
		{"clean transaction", "[" + clean + "]", ""},
		{"name only in memo and json", "[" + tx(typedTransfer, "FROM", "alice", "TO", "bob") + "]", ""},
		{"name only in custom_json payload", "[" + tx(customJSON, "POSTER", "alice") + "]", ""},
		{"op name is not an account", `[{"operations":[["spammer",{"voter":"alice"}]]}]`, ""},
		{"no params", ``, ""},
		{"invalid JSON", `[{"voter":"spammer"`, "spammer"}, // the prefix read before the error still counts
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, found := dispatch.BlacklistedAccount(json.RawMessage(tc.params), inList("spammer"))
			if got != tc.want || found != (tc.want != "") {
				t.Errorf("got %q %v, want %q", got, found, tc.want)
			}
		})
	}
}

// broadcastGateway is a dispatcher with limits.blacklist_accounts set, in
// front of a node that counts what reaches it.
type broadcastGateway struct {
	d    *dispatch.Dispatcher
	hits atomic.Int64
}

func newBroadcastGateway(t *testing.T, blacklist string) *broadcastGateway {
	t.Helper()
	g := &broadcastGateway{}
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &req)
		g.hits.Add(1)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"id":"abc","block_num":5}}`)
	}))
	t.Cleanup(node.Close)
	yaml := "backends:\n  hived: " + node.URL + "\nurls:\n  appbase: hived\n  hived: hived\n" +
		"ttls:\n  appbase: 60\nretries:\n  appbase: 3\nlimits:\n  blacklist_accounts: " + blacklist + "\n"
	cfg, err := config.Parse("b.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := backend.DefaultOptions()
	opts.HealthInterval = 0
	pool, err := backend.New(cfg.BackendMap(), opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	g.d = dispatch.New(r, cache.New(1<<20), pool, nil, nil)
	return g
}

// TestBlacklistRefusesBroadcast goes through the dispatcher: a broadcast
// naming a blacklisted account is answered -32015 naming it and never
// reaches the node, in every method and params shape; a clean one does.
func TestBlacklistRefusesBroadcast(t *testing.T) {
	t.Parallel()
	bad := tx(legacyVote, "VOTER", "Spammer", "AUTHOR", "bob")
	badTyped := tx(typedTransfer, "FROM", "alice", "TO", "spammer")
	clean := tx(legacyVote, "VOTER", "alice", "AUTHOR", "bob")
	testCases := []struct {
		name, method, params string
		refused              bool
	}{
		{"condenser positional", "condenser_api.broadcast_transaction", "[" + bad + "]", true},
		{"condenser synchronous", "condenser_api.broadcast_transaction_synchronous", "[" + badTyped + "]", true},
		{"network_broadcast_api named", "network_broadcast_api.broadcast_transaction", `{"trx":` + badTyped + `}`, true},
		{"call form", "call", `["condenser_api","broadcast_transaction",[` + bad + `]]`, true},
		{"bare method", "broadcast_transaction", "[" + bad + "]", true},
		{"chain_api push", "chain_api.push_transaction", `{"trx":` + bad + `}`, true},
		{"clean broadcast", "condenser_api.broadcast_transaction", "[" + clean + "]", false},
		{"non-broadcast naming the account", "condenser_api.get_accounts", `[["spammer"]]`, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newBroadcastGateway(t, "[spammer, other]")
			res := serveOne(g.d, context.Background(), tc.method, json.RawMessage(tc.params))
			if !tc.refused {
				if res.Err != nil || g.hits.Load() != 1 {
					t.Fatalf("error %v, %d upstream calls; want a result from 1 call", res.Err, g.hits.Load())
				}
				return
			}
			if res.Err == nil || res.Err.Code != jsonrpc.CodeBlacklistedAccount {
				t.Fatalf("answer %s %v, want -32015", res.Result, res.Err)
			}
			if !strings.HasPrefix(res.Err.Message, "Blacklisted account: ") || !strings.Contains(strings.ToLower(res.Err.Message), "spammer") {
				t.Errorf("message %q does not name the account", res.Err.Message)
			}
			if n := g.hits.Load(); n != 0 {
				t.Errorf("%d upstream calls, want 0", n)
			}
		})
	}
}

// TestBlacklistEmpty checks that an empty blacklist forwards everything.
func TestBlacklistEmpty(t *testing.T) {
	t.Parallel()
	g := newBroadcastGateway(t, "[]")
	params := "[" + tx(legacyVote, "VOTER", "spammer", "AUTHOR", "bob") + "]"
	if res := serveOne(g.d, context.Background(), "condenser_api.broadcast_transaction", json.RawMessage(params)); res.Err != nil {
		t.Fatalf("error %v", res.Err)
	}
	if g.hits.Load() != 1 {
		t.Errorf("%d upstream calls, want 1", g.hits.Load())
	}
}

// TestBroadcastNeverRetriedCachedOrCoalesced checks through the dispatcher
// that a broadcast route configured with a TTL and retries is neither
// cached (two calls, two upstream requests) nor retried (a node answering
// HTTP 503 gets one request), and that concurrent identical broadcasts each
// reach the node.
func TestBroadcastNeverRetriedCachedOrCoalesced(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	fail := atomic.Bool{}
	release := make(chan struct{})
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hits.Add(1)
		if fail.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		if strings.Contains(string(body), `"wait"`) {
			<-release
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &req)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{}}`)
	}))
	t.Cleanup(node.Close)
	yaml := "backends:\n  hived: " + node.URL + "\nurls:\n  appbase: hived\nttls:\n  appbase: 60\n  appbase.condenser_api.broadcast_transaction: 60\n" +
		"retries:\n  appbase: 3\n  appbase.condenser_api.broadcast_transaction: 3\n"
	cfg, err := config.Parse("b.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) < 2 {
		t.Errorf("want warnings about the broadcast ttl and retries, got %q", cfg.Warnings)
	}
	r, _ := router.New(cfg)
	opts := backend.DefaultOptions()
	opts.HealthInterval = 0
	pool, _ := backend.New(cfg.BackendMap(), opts, nil)
	t.Cleanup(pool.Close)
	d := dispatch.New(r, cache.New(1<<20), pool, nil, nil)
	params := json.RawMessage(`[{"operations":[]}]`)
	for range 2 {
		if res := serveOne(d, context.Background(), "condenser_api.broadcast_transaction", params); res.Err != nil || res.Cache != dispatch.CacheBypass {
			t.Fatalf("answer %v cache %q", res.Err, res.Cache)
		}
	}
	if hits.Load() != 2 {
		t.Errorf("two broadcasts made %d upstream calls, want 2 (not cached)", hits.Load())
	}
	fail.Store(true)
	hits.Store(0)
	if res := serveOne(d, context.Background(), "condenser_api.broadcast_transaction", params); res.Err == nil || res.Err.Code != jsonrpc.CodeUpstreamUnavailable {
		t.Fatalf("answer %v, want -32011", res.Err)
	}
	if hits.Load() != 1 {
		t.Errorf("a failing broadcast made %d upstream calls, want 1 (never retried)", hits.Load())
	}
	fail.Store(false)
	hits.Store(0)
	waitParams := json.RawMessage(`[{"operations":[],"memo":"wait"}]`)
	done := make(chan dispatch.Result, 2)
	for range 2 {
		go func() { done <- serveOne(d, context.Background(), "condenser_api.broadcast_transaction", waitParams) }()
	}
	// Both identical broadcasts must reach the node while neither has an
	// answer; coalescing would leave one waiting on the other.
	free := sync.OnceFunc(func() { close(release) })
	defer free() // however the test ends: the node's handlers return
	waitFor(t, "both identical broadcasts at the node (coalesced, one would wait for the other)", func() bool { return hits.Load() >= 2 })
	free()
	for range 2 {
		if res := <-done; res.Cache != dispatch.CacheBypass {
			t.Errorf("cache status %q, want bypass", res.Cache)
		}
	}
}
