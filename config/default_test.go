package config_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// TestDefaultTTLTable routes one call per row of the specification's default
// legacy TTL table, timeouts and retries through the embedded default.
func TestDefaultTTLTable(t *testing.T) {
	t.Parallel()
	cfg, err := config.Default("http://127.0.0.1:8091")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != config.DefaultSource || len(cfg.Warnings) != 0 {
		t.Errorf("source %q, warnings %q", cfg.Source, cfg.Warnings)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const (
		cache   = "NO_CACHE"
		reverse = "EXPIRE_IF_REVERSIBLE"
	)
	testCases := []struct {
		row            string // the table row under test
		method, params string
		upstream       string // the method the node receives
		ttl            string // seconds or word
		ttlKey         string
		timeout        time.Duration
		retries        int
	}{
		// The <node> rows: calls of the node namespace are translated to
		// condenser_api (bare methods and the call form alike).
		{"<node> default", "call", `["tags_api","get_trending_tags",["",10]]`, "condenser_api.get_trending_tags", "3", "appbase.condenser_api", 5 * time.Second, 3},
		{"<node> login_api", "login_api.login", `["",""]`, "login_api.login", cache, "appbase.login_api", 3 * time.Second, 0},
		{"<node> network_broadcast_api", "network_broadcast_api.broadcast_transaction", `{"trx":{}}`, "network_broadcast_api.broadcast_transaction", cache, "appbase.network_broadcast_api", 0, 0},
		{"<node> follow_api", "follow_api.get_followers", `{"account":"alice","start":"","type":"blog","limit":10}`, "follow_api.get_followers", "10", "appbase.follow_api", 3 * time.Second, 0},
		{"<node> market_history_api", "market_history_api.get_ticker", `{}`, "market_history_api.get_ticker", "1", "appbase.market_history_api", 3 * time.Second, 0},
		{"<node> database_api bare", "get_accounts", `[["alice"]]`, "condenser_api.get_accounts", "3", "appbase.condenser_api", 5 * time.Second, 3},
		{"<node> database_api call form", "call", `["database_api","get_accounts",[["alice"]]]`, "condenser_api.get_accounts", "3", "appbase.condenser_api", 5 * time.Second, 3},
		{"get_block bare", "get_block", `[1]`, "condenser_api.get_block", reverse, "appbase.condenser_api.get_block", 5 * time.Second, 3},
		{"get_block call form", "call", `["database_api","get_block",[1]]`, "condenser_api.get_block", reverse, "appbase.condenser_api.get_block", 5 * time.Second, 3},
		{"get_block condenser_api", "condenser_api.get_block", `[1]`, "condenser_api.get_block", reverse, "appbase.condenser_api.get_block", 5 * time.Second, 3},
		{"get_block_header", "get_block_header", `[1]`, "condenser_api.get_block_header", reverse, "appbase.condenser_api.get_block_header", 5 * time.Second, 3},
		{"get_content", "get_content", `["alice","post"]`, "condenser_api.get_content", "1", "appbase.condenser_api.get_content", 5 * time.Second, 3},
		{"get_state other", "get_state", `["/market"]`, "condenser_api.get_state", "1", "appbase.condenser_api.get_state", 5 * time.Second, 3},
		{"get_state no params", "get_state", ``, "condenser_api.get_state", "1", "appbase.condenser_api.get_state", 5 * time.Second, 3},
		{"get_state /trending", "get_state", `["/trending"]`, "condenser_api.get_state", "30", "appbase.condenser_api.get_state.params=['/trending']", 5 * time.Second, 3},
		{"get_state trending", "get_state", `["trending"]`, "condenser_api.get_state", "30", "appbase.condenser_api.get_state.params=['trending']", 5 * time.Second, 3},
		{"get_state /hot", "get_state", `[ "/hot" ]`, "condenser_api.get_state", "30", "appbase.condenser_api.get_state.params=['/hot']", 5 * time.Second, 3},
		{"get_state /welcome", "get_state", `["/welcome"]`, "condenser_api.get_state", "30", "appbase.condenser_api.get_state.params=['/welcome']", 5 * time.Second, 3},
		{"get_state /promoted", "get_state", `["\/promoted"]`, "condenser_api.get_state", "30", "appbase.condenser_api.get_state.params=['/promoted']", 5 * time.Second, 3},
		{"get_state /created", "get_state", `["/created"]`, "condenser_api.get_state", "10", "appbase.condenser_api.get_state.params=['/created']", 5 * time.Second, 3},
		{"get_state /created call form", "call", `["database_api","get_state",["/created"]]`, "condenser_api.get_state", "10", "appbase.condenser_api.get_state.params=['/created']", 5 * time.Second, 3},
		{"get_dynamic_global_properties", "get_dynamic_global_properties", `[]`, "condenser_api.get_dynamic_global_properties", "1", "appbase.condenser_api.get_dynamic_global_properties", 5 * time.Second, 3},
		{"<social> bridge", "bridge.get_discussion", `{"author":"a","permlink":"p"}`, "bridge.get_discussion", "3", "bridge", 0, 0},
		{"<social> hive", "hive.db_head_state", `{}`, "hive.db_head_state", "3", "hive", 0, 0},
		{"appbase default", "rc_api.find_rc_accounts", `{"accounts":["alice"]}`, "rc_api.find_rc_accounts", reverse, "appbase", 3 * time.Second, 0},
		{"appbase block_api", "block_api.get_block", `{"block_num":1}`, "block_api.get_block", reverse, "appbase.block_api", 3 * time.Second, 0},
		{"appbase database_api", "database_api.list_accounts", `{"start":"","limit":10,"order":"by_name"}`, "database_api.list_accounts", "1", "appbase.database_api", 3 * time.Second, 0},
		{"timeout chain_api.push_block", "chain_api.push_block", `{}`, "chain_api.push_block", cache, "appbase", 0, 0},
		{"timeout chain_api.push_transaction", "chain_api.push_transaction", `{}`, "chain_api.push_transaction", cache, "appbase", 0, 0},
		{"timeout appbase network_broadcast_api", "network_broadcast_api.broadcast_transaction", `{"trx":{}}`, "network_broadcast_api.broadcast_transaction", cache, "appbase.network_broadcast_api", 0, 0},
		{"timeout condenser broadcast_block", "condenser_api.broadcast_block", `[{}]`, "condenser_api.broadcast_block", cache, "appbase.condenser_api", 0, 0},
		{"timeout condenser broadcast_transaction", "condenser_api.broadcast_transaction", `[{}]`, "condenser_api.broadcast_transaction", cache, "appbase.condenser_api", 0, 0},
		{"timeout condenser broadcast_transaction_synchronous", "condenser_api.broadcast_transaction_synchronous", `[{}]`, "condenser_api.broadcast_transaction_synchronous", cache, "appbase.condenser_api", 0, 0},
		{"broadcast bare", "broadcast_transaction", `[{}]`, "condenser_api.broadcast_transaction", cache, "appbase.condenser_api", 0, 0},
	}
	for _, tc := range testCases {
		t.Run(tc.row, func(t *testing.T) {
			t.Parallel()
			var params json.RawMessage
			if tc.params != "" {
				params = json.RawMessage(tc.params)
			}
			call, err := r.Parse(tc.method, params)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := r.Resolve(call)
			if err != nil {
				t.Fatal(err)
			}
			if call.UpstreamMethod != tc.upstream {
				t.Errorf("upstream method %q, want %q", call.UpstreamMethod, tc.upstream)
			}
			if rt.Backend != "hived" || rt.URL != "http://127.0.0.1:8091" {
				t.Errorf("backend %s %s, want hived at the node URL", rt.Backend, rt.URL)
			}
			if rt.TTL.String() != tc.ttl || rt.Matched.TTL != tc.ttlKey {
				t.Errorf("ttl %s (key %q), want %s (key %q)", rt.TTL, rt.Matched.TTL, tc.ttl, tc.ttlKey)
			}
			if rt.Timeout != tc.timeout {
				t.Errorf("timeout %v (key %q), want %v", rt.Timeout, rt.Matched.Timeout, tc.timeout)
			}
			if rt.Retries != tc.retries {
				t.Errorf("retries %d (key %q), want %d", rt.Retries, rt.Matched.Retries, tc.retries)
			}
		})
	}
}

// TestDefaultYAMLIsTheSpecTable checks the embedded file row by row against
// the specification's tables, so no row is lost or added unnoticed.
func TestDefaultYAMLIsTheSpecTable(t *testing.T) {
	t.Parallel()
	cfg, err := config.Default("http://h")
	if err != nil {
		t.Fatal(err)
	}
	wantTTLs := []string{
		"appbase.condenser_api=3", "appbase.login_api=NO_CACHE", "appbase.network_broadcast_api=NO_CACHE", "appbase.follow_api=10",
		"appbase.market_history_api=1", "appbase.condenser_api.get_block=EXPIRE_IF_REVERSIBLE",
		"appbase.condenser_api.get_block_header=EXPIRE_IF_REVERSIBLE", "appbase.condenser_api.get_content=1",
		"appbase.condenser_api.get_state=1",
		"appbase.condenser_api.get_state.params=['/trending']=30", "appbase.condenser_api.get_state.params=['trending']=30",
		"appbase.condenser_api.get_state.params=['/hot']=30", "appbase.condenser_api.get_state.params=['/welcome']=30",
		"appbase.condenser_api.get_state.params=['/promoted']=30", "appbase.condenser_api.get_state.params=['/created']=10",
		"appbase.condenser_api.get_dynamic_global_properties=1", "bridge=3", "hive=3",
		"appbase=EXPIRE_IF_REVERSIBLE", "appbase.block_api=EXPIRE_IF_REVERSIBLE", "appbase.database_api=1",
	}
	var got []string
	for _, e := range cfg.TTLs {
		got = append(got, e.Key+"="+e.Value.String())
	}
	if strings.Join(got, "\n") != strings.Join(wantTTLs, "\n") {
		t.Errorf("ttls:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantTTLs, "\n"))
	}
	wantTimeouts := []string{
		"appbase.condenser_api=5s", "appbase=3s", "appbase.chain_api.push_block=0s",
		"appbase.chain_api.push_transaction=0s", "appbase.network_broadcast_api=0s",
		"appbase.condenser_api.broadcast_block=0s", "appbase.condenser_api.broadcast_transaction=0s",
		"appbase.condenser_api.broadcast_transaction_synchronous=0s",
	}
	got = got[:0]
	for _, e := range cfg.Timeouts {
		got = append(got, e.Key+"="+e.Value.String())
	}
	if strings.Join(got, "\n") != strings.Join(wantTimeouts, "\n") {
		t.Errorf("timeouts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantTimeouts, "\n"))
	}
	if len(cfg.Retries) != 2 || cfg.Retries[0].Key != "appbase.condenser_api" || cfg.Retries[0].Value != 3 ||
		cfg.Retries[1].Key != "appbase.network_broadcast_api" || cfg.Retries[1].Value != 0 {
		t.Errorf("retries %+v", cfg.Retries)
	}
	if !strings.Contains(string(config.DefaultYAML()), "appbase.condenser_api.get_state.params=['/created']: 10") {
		t.Error("DefaultYAML() does not hold the TTL table")
	}
}

// TestDefaultNodeURL covers where the embedded default's node URL comes
// from. It sets the environment, so it does not run in parallel.
func TestDefaultNodeURL(t *testing.T) {
	testCases := []struct {
		name, arg, env string
		want           string // node URL, or an error substring when wantErr
		wantErr        bool
	}{
		{"argument", "http://arg:8091", "", "http://arg:8091", false},
		{"argument beats environment", "https://arg", "http://env:8091", "https://arg", false},
		{"environment", "", "http://env:8091", "http://env:8091", false},
		{"neither", "", "", "no config file and no node URL: pass --config FILE, --node-url URL or set HIVEGATE_NODE_URL", true},
		{"bad argument", "ftp://arg", "", "node URL argument: backends.hived: bad URL \"ftp://arg\": want http://, https://, ws:// or wss://", true},
		{"bad environment", "", "localhost:8091", "HIVEGATE_NODE_URL: backends.hived: bad URL", true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(config.NodeURLEnv, tc.env)
			cfg, err := config.Default(tc.arg)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u, _ := cfg.BackendURL("hived"); u != tc.want || len(cfg.Backends) != 1 {
				t.Errorf("backends %+v, want hived at %s", cfg.Backends, tc.want)
			}
		})
	}
}
