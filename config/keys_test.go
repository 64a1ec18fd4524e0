package config_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

// TestSettingsKeys shows that every settings key changes the loaded value,
// under both section names.
func TestSettingsKeys(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		line  string
		check func(*config.Config) bool
	}{
		{"port: 9001", func(c *config.Config) bool { return c.Settings.Port == 9001 && c.Listen() == "127.0.0.1:9001" }},
		{"port: 0", func(c *config.Config) bool { return c.Settings.Port == 0 && c.Listen() == "127.0.0.1:0" }},
		{"hostname: 0.0.0.0", func(c *config.Config) bool { return c.Settings.Hostname == "0.0.0.0" && c.Listen() == "0.0.0.0:8090" }},
		{"hostname: '::1'", func(c *config.Config) bool { return c.Listen() == "[::1]:8090" }},
		{"hostname: ''", func(c *config.Config) bool { return c.Listen() == ":8090" }},
		{"cache_max_capacity: 4294967296", func(c *config.Config) bool { return c.Settings.CacheMaxCapacity == 4<<30 }},
		{"cache_max_capacity: 1_000_000", func(c *config.Config) bool { return c.Settings.CacheMaxCapacity == 1e6 }},
		{"cache_max_capacity: 0", func(c *config.Config) bool { return c.Settings.CacheMaxCapacity == 0 }},
		{"operator_message: hello operators", func(c *config.Config) bool { return c.Settings.OperatorMessage == "hello operators" }},
		{"middleware_connection_threads: 32", func(c *config.Config) bool { return c.Settings.MiddlewareConnectionThreads == 32 }},
		{"lib_poll_interval: 7", func(c *config.Config) bool { return c.Settings.LIBPollInterval == 7*time.Second }},
		{"cors_allowed_origins: [https://app.example, https://wallet.example]", func(c *config.Config) bool {
			return slices.Equal(c.Settings.CORSAllowedOrigins, []string{"https://app.example", "https://wallet.example"})
		}},
		{"node_fail_threshold: 2", func(c *config.Config) bool { return c.Settings.NodeFailThreshold == 2 }},
		{"node_max_lag_blocks: 0", func(c *config.Config) bool { return c.Settings.NodeMaxLagBlocks == 0 }},
		{"node_max_lag_blocks: 100", func(c *config.Config) bool { return c.Settings.NodeMaxLagBlocks == 100 }},
		{"node_max_head_age: 30", func(c *config.Config) bool { return c.Settings.NodeMaxHeadAge == 30*time.Second }},
		{"node_max_sync_age: 300", func(c *config.Config) bool { return c.Settings.NodeMaxSyncAge == 5*time.Minute }},
		{"node_max_head_age: 0", func(c *config.Config) bool { return c.Settings.NodeMaxHeadAge < 0 }},
		{"node_max_sync_age: 0", func(c *config.Config) bool { return c.Settings.NodeMaxSyncAge < 0 }},
		{"compress_min_bytes: 0", func(c *config.Config) bool { return c.Settings.CompressMinBytes == 0 }},
		{"compress_min_bytes: 4096", func(c *config.Config) bool { return c.Settings.CompressMinBytes == 4096 }},
		// Drone's settings hivegate implements.
		{"add_cors_headers: false", func(c *config.Config) bool { return c.Settings.CORSOff }},
		{"add_cors_headers: true", func(c *config.Config) bool { return !c.Settings.CORSOff }},
		{"metrics_enabled: true", func(c *config.Config) bool { p, on := c.Ops.Metrics(); return on && p == "/metrics" }},
		{"metrics_enabled: false", func(c *config.Config) bool { _, on := c.Ops.Metrics(); return !on }},
		{"metrics_path: /prom", func(c *config.Config) bool { p, on := c.Ops.Metrics(); return !on && p == "/prom" }},
		{"metrics_namespace: drone", func(c *config.Config) bool { return c.Ops.Namespace() == "drone" }},
		{"debug_endpoints_enabled: true", func(c *config.Config) bool { return c.Ops.DebugEndpoints }},
		{"debug_endpoints_enabled: false", func(c *config.Config) bool { return !c.Ops.DebugEndpoints }},
		// Drone's settings whose value asks for what hivegate does anyway.
		{"add_jussi_headers: false", func(c *config.Config) bool { return true }},
		{"access_log_format: simple", func(c *config.Config) bool { return true }},
		{"access_log_file: ''", func(c *config.Config) bool { return true }},
		{"access_log_flush_every_line: true", func(c *config.Config) bool { return true }},
		{"max_conn_lifetime_secs: 0", func(c *config.Config) bool { return true }},
	}
	for _, section := range []string{"hivegate", "drone"} {
		for _, tc := range testCases {
			t.Run(section+"/"+tc.line, func(t *testing.T) {
				t.Parallel()
				cfg := mustParse(t, "s.yaml", section+":\n  "+tc.line+"\n"+minimal)
				if !tc.check(cfg) {
					t.Errorf("%s did not take effect: %+v (listen %s)", tc.line, cfg.Settings, cfg.Listen())
				}
				if len(cfg.Warnings) != 0 {
					t.Errorf("warnings: %q", cfg.Warnings)
				}
			})
		}
	}
}

// TestDefaults checks the values a config without settings gets.
func TestDefaults(t *testing.T) {
	t.Parallel()
	for _, cfg := range []*config.Config{
		mustParse(t, "d.yaml", minimal),
		mustParse(t, "d.json", `{"upstreams": [{"name": "hived", "urls": [["hived", "http://h"]]}]}`),
	} {
		want := config.Settings{
			Hostname:                    config.DefaultHostname,
			Port:                        config.DefaultPort,
			CacheMaxCapacity:            config.DefaultCacheMaxCapacity,
			MiddlewareConnectionThreads: config.DefaultConnectionThreads,
			LIBPollInterval:             config.DefaultLIBPollInterval,
			NodeFailThreshold:           config.DefaultNodeFailThreshold,
			NodeMaxLagBlocks:            config.DefaultNodeMaxLagBlocks,
			NodeMaxHeadAge:              config.DefaultNodeMaxHeadAge,
			NodeMaxSyncAge:              config.DefaultNodeMaxSyncAge,
			CompressMinBytes:            config.DefaultCompressMinBytes,
		}
		if !reflect.DeepEqual(cfg.Settings, want) {
			t.Errorf("%s: settings %+v, want %+v", cfg.Source, cfg.Settings, want)
		}
		if cfg.Listen() != "127.0.0.1:8090" {
			t.Errorf("%s: Listen() = %q", cfg.Source, cfg.Listen())
		}
		wantLimits := config.Limits{MaxBatchSize: 50, MaxBodyBytes: 1 << 20, MaxJSONDepth: 64, MaxUpstreamBatchSize: 50}
		if !limitsEqual(cfg.Limits, wantLimits) {
			t.Errorf("%s: limits %+v, want %+v", cfg.Source, cfg.Limits, wantLimits)
		}
		if cfg.DefaultNamespace != "hived" {
			t.Errorf("%s: default namespace %q, want hived", cfg.Source, cfg.DefaultNamespace)
		}
		if len(cfg.Warnings) != 0 {
			t.Errorf("%s: warnings %q", cfg.Source, cfg.Warnings)
		}
	}
}

func limitsEqual(a, b config.Limits) bool {
	return slices.Equal(a.BlacklistAccounts, b.BlacklistAccounts) && a.MaxBatchSize == b.MaxBatchSize &&
		a.MaxBodyBytes == b.MaxBodyBytes && a.MaxJSONDepth == b.MaxJSONDepth &&
		a.MaxUpstreamBatchSize == b.MaxUpstreamBatchSize && slices.Equal(a.NoUpstreamBatch, b.NoUpstreamBatch)
}

// TestLimitsKeys shows that every limits key changes the loaded value, in
// both formats.
func TestLimitsKeys(t *testing.T) {
	t.Parallel()
	base := config.Limits{MaxBatchSize: 50, MaxBodyBytes: 1 << 20, MaxJSONDepth: 64, MaxUpstreamBatchSize: 50}
	testCases := []struct {
		yaml, json string
		want       func(config.Limits) config.Limits
	}{
		{"blacklist_accounts: [alice, bob]", `"blacklist_accounts": ["alice", "bob"]`,
			func(l config.Limits) config.Limits { l.BlacklistAccounts = []string{"alice", "bob"}; return l }},
		{"accounts_blacklist: [carol]", `"accounts_blacklist": ["carol"]`,
			func(l config.Limits) config.Limits { l.BlacklistAccounts = []string{"carol"}; return l }},
		{"max_batch_size: 10", `"max_batch_size": 10`,
			func(l config.Limits) config.Limits { l.MaxBatchSize = 10; return l }},
		{"max_body_bytes: 65536", `"max_body_bytes": 65536`,
			func(l config.Limits) config.Limits { l.MaxBodyBytes = 65536; return l }},
		{"max_json_depth: 16", `"max_json_depth": 16`,
			func(l config.Limits) config.Limits { l.MaxJSONDepth = 16; return l }},
		{"max_upstream_batch_size: 1", `"max_upstream_batch_size": 1`,
			func(l config.Limits) config.Limits { l.MaxUpstreamBatchSize = 1; return l }},
		{"no_upstream_batch: [hived]", `"no_upstream_batch": ["hived"]`,
			func(l config.Limits) config.Limits { l.NoUpstreamBatch = []string{"hived"}; return l }},
	}
	for _, tc := range testCases {
		t.Run(tc.yaml, func(t *testing.T) {
			t.Parallel()
			want := tc.want(base)
			y := mustParse(t, "l.yaml", minimal+"limits:\n  "+tc.yaml+"\n")
			j := mustParse(t, "l.json", `{"limits": {`+tc.json+`}, "upstreams": [{"name": "hived", "urls": [["hived", "http://h"]]}]}`)
			for _, cfg := range []*config.Config{y, j} {
				if !limitsEqual(cfg.Limits, want) {
					t.Errorf("%s: limits %+v, want %+v", cfg.Source, cfg.Limits, want)
				}
			}
		})
	}
	both := mustParse(t, "l.yaml", minimal+"limits:\n  blacklist_accounts: [a]\n  accounts_blacklist: [b]\n")
	if !slices.Equal(both.Limits.BlacklistAccounts, []string{"a", "b"}) {
		t.Errorf("both blacklist spellings: %q, want [a b]", both.Limits.BlacklistAccounts)
	}
}

// TestSectionKeys shows what each modern top-level section loads.
func TestSectionKeys(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "k.yaml", `backends:
  node: http://127.0.0.1:8091
  social: https://social.example/api
urls:
  hived: node
  bridge: social
ttls:
  hived: 3
timeouts:
  hived: 5
retries:
  hived: 2
translate_to_appbase: [hived, steemd]
default_namespace: steemd
`)
	if got := cfg.BackendMap(); len(got) != 2 || got["node"] != "http://127.0.0.1:8091" || got["social"] != "https://social.example/api" {
		t.Errorf("BackendMap() = %v", got)
	}
	if u, ok := cfg.BackendURL("social"); !ok || u != "https://social.example/api" {
		t.Errorf("BackendURL(social) = %q, %v", u, ok)
	}
	if _, ok := cfg.BackendURL("nope"); ok {
		t.Error("BackendURL(nope) found a backend")
	}
	if len(cfg.URLs) != 2 || cfg.URLs[1] != (config.Entry[string]{Key: "bridge", Value: "social", Pos: config.Pos{File: "k.yaml", Line: 6}}) {
		t.Errorf("URLs = %+v", cfg.URLs)
	}
	if len(cfg.TTLs) != 1 || cfg.TTLs[0].Pos.Line != 8 || cfg.TTLs[0].Value.Seconds != 3 {
		t.Errorf("TTLs = %+v", cfg.TTLs)
	}
	if len(cfg.Timeouts) != 1 || cfg.Timeouts[0].Value != 5*time.Second || cfg.Timeouts[0].Pos.Line != 10 {
		t.Errorf("Timeouts = %+v", cfg.Timeouts)
	}
	if len(cfg.Retries) != 1 || cfg.Retries[0].Value != 2 || cfg.Retries[0].Pos.Line != 12 {
		t.Errorf("Retries = %+v", cfg.Retries)
	}
	if !slices.Equal(cfg.TranslateToAppbase, []string{"hived", "steemd"}) {
		t.Errorf("TranslateToAppbase = %q", cfg.TranslateToAppbase)
	}
	if cfg.DefaultNamespace != "steemd" {
		t.Errorf("DefaultNamespace = %q", cfg.DefaultNamespace)
	}
	if cfg.Source != "k.yaml" {
		t.Errorf("Source = %q", cfg.Source)
	}
	// Empty sections are allowed and load nothing.
	empty := mustParse(t, "e.yaml", minimal+"ttls:\ntimeouts:\nretries:\ntranslate_to_appbase:\n")
	if len(empty.TTLs)+len(empty.Timeouts)+len(empty.Retries)+len(empty.TranslateToAppbase) != 0 {
		t.Errorf("empty sections loaded %+v", empty)
	}
}

// TestWarnings checks that keys hivegate accepts but does not use, and
// settings it overrides, load with a warning naming file:line and the key.
func TestWarnings(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, file, text string
		want             []string // one substring per expected warning
	}{
		{"add_jussi_headers", "w.yaml", "drone:\n  add_jussi_headers: true\n" + minimal, []string{"w.yaml:2: drone.add_jussi_headers: hivegate sends no X-Jussi-* headers"}},
		{"access_log_format json", "w.yaml", "drone:\n  port: 1\n  access_log_format: json\n" + minimal, []string{"w.yaml:3: drone.access_log_format: hivegate writes its access log in the format of its other logs: run it with --log-format json"}},
		{"access_log_file", "w.yaml", "hivegate:\n  access_log_file: /var/log/x\n" + minimal, []string{"w.yaml:2: hivegate.access_log_file: hivegate writes its access log to standard error"}},
		{"max_conn_lifetime_secs", "w.yaml", "drone:\n  max_conn_lifetime_secs: 60\n" + minimal, []string{"w.yaml:2: drone.max_conn_lifetime_secs: hivegate does not cut busy client connections"}},
		{"http1_fast_path", "w.yaml", "hivegate:\n  http1_fast_path: true\n" + minimal, []string{"w.yaml:2: hivegate.http1_fast_path has no effect: net/http serves every request"}},
		{"broadcast retries", "w.yaml", minimal + "retries:\n  hived.network_broadcast_api: 2\n  hived.database_api: 2\n", []string{"w.yaml:6: retries.hived.network_broadcast_api = 2: broadcast methods are never retried"}},
		{"broadcast TTL", "w.yaml", minimal + "ttls:\n  appbase.condenser_api.broadcast_transaction: 3\n  appbase.network_broadcast_api: NO_CACHE\n", []string{"w.yaml:6: ttls.appbase.condenser_api.broadcast_transaction = 3: broadcast methods are never cached"}},
		{"broadcast TTL legacy", "w.json", "{\"upstreams\": [{\"name\": \"appbase\", \"urls\": [[\"appbase\", \"http://h\"]],\n \"ttls\": [[\"appbase.chain_api.push_block\", -2]]}]}", []string{"w.json:2: ttls.appbase.chain_api.push_block = EXPIRE_IF_REVERSIBLE: broadcast methods are never cached"}},
		{"broadcast retries legacy", "w.json", "{\"upstreams\": [{\"name\": \"appbase\", \"urls\": [[\"appbase\", \"http://h\"]],\n \"retries\": [[\"appbase.network_broadcast_api\", 3]]}]}", []string{"w.json:2: retries.appbase.network_broadcast_api = 3"}},
		{"translated keys", "w.yaml", minimal + "ttls:\n  hived: 3\n  hived.login_api: NO_CACHE\ntranslate_to_appbase: [hived]\n", []string{
			"w.yaml:4: urls.hived never matches: hived is in translate_to_appbase",
			"w.yaml:6: ttls.hived never matches: hived is in translate_to_appbase",
			"w.yaml:7: ttls.hived.login_api never matches: hived is in translate_to_appbase",
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, tc.file, tc.text)
			if len(cfg.Warnings) != len(tc.want) {
				t.Fatalf("warnings %q, want %d", cfg.Warnings, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(cfg.Warnings[i], w) {
					t.Errorf("warning %q does not say %q", cfg.Warnings[i], w)
				}
			}
		})
	}
}

// TestIsBroadcastKey checks which keys and method names are broadcasts.
func TestIsBroadcastKey(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		key  string
		want bool
	}{
		{"hived.network_broadcast_api", true},
		{"appbase.network_broadcast_api.broadcast_transaction", true},
		{"appbase.condenser_api.broadcast_transaction", true},
		{"appbase.condenser_api.broadcast_transaction_synchronous", true},
		{"appbase.condenser_api.broadcast_block", true},
		{"appbase.chain_api.push_block", true},
		{"appbase.chain_api.push_transaction", true},
		{"condenser_api.broadcast_transaction", true},
		{"broadcast_transaction", true},
		{"network_broadcast_api", true},
		{"appbase.condenser_api.broadcast_transaction.params=[1]", true},
		{"appbase", false},
		{"appbase.condenser_api", false},
		{"appbase.condenser_api.get_block", false},
		{"appbase.chain_api", false},
		{"appbase.database_api.push_block", false},
		{"appbase.condenser_api.get_state.params=['network_broadcast_api']", false},
		{"appbase.condenser_api.get_state.params=['broadcast_x']", false},
		{"hived.database_api.get_my_broadcast_transaction", false},
	}
	for _, tc := range testCases {
		if got := config.IsBroadcastKey(tc.key); got != tc.want {
			t.Errorf("IsBroadcastKey(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
	methods := []struct {
		api, method string
		want        bool
	}{
		{"network_broadcast_api", "broadcast_transaction", true},
		{"condenser_api", "broadcast_block", true},
		{"chain_api", "push_transaction", true},
		{"database_api", "broadcast_transaction", true},
		{"", "broadcast_x", true},
		{"condenser_api", "get_block", false},
		{"database_api", "push_block", false},
	}
	for _, tc := range methods {
		if got := config.IsBroadcastMethod(tc.api, tc.method); got != tc.want {
			t.Errorf("IsBroadcastMethod(%q, %q) = %v, want %v", tc.api, tc.method, got, tc.want)
		}
	}
}

// TestUnreadJussiLimitsKeys shows jussi's documented but unread limits keys
// loading with a warning in both formats (the YAML format took them
// silently before the schema was declared).
func TestUnreadJussiLimitsKeys(t *testing.T) {
	t.Parallel()
	const up = `"upstreams": [{"name": "hived", "urls": [["hived", "http://h"]]}]`
	for _, tc := range []struct{ file, text, want string }{
		{"u.yaml", minimal + "limits:\n  batch_size: 50\n", "u.yaml:6: limits.batch_size: jussi documents this key but never reads it"},
		{"u.json", "{\"limits\": {\n \"custom_json_op_length\": 8192}, " + up + "}", "u.json:2: limits.custom_json_op_length: jussi documents this key but never reads it"},
	} {
		cfg := mustParse(t, tc.file, tc.text)
		if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], tc.want) {
			t.Errorf("%s: warnings %q, want one saying %q", tc.file, cfg.Warnings, tc.want)
		}
	}
}

// TestErrorsDoNotRepeatPrivateKeys: a private key written where another
// value belongs is never repeated in the error.
func TestErrorsDoNotRepeatPrivateKeys(t *testing.T) {
	t.Parallel()
	const wif = "5JfoPsEb4NLnVuuwWfDF3P4r3xMZtJz7jmBnqKGAhHi98tXX3bC"
	hexKey := strings.Repeat("1234567890", 6) + "1234"
	for _, text := range []string{
		"hivegate:\n  port: " + hexKey + "\n" + minimal,
		"hivegate:\n  hostname: [" + wif + "]\n" + minimal,
		minimal + "auth:\n  service_key_file: " + wif + "\n",
	} {
		_, err := config.Parse("k.yaml", []byte(text))
		if err == nil || strings.Contains(err.Error(), wif) || strings.Contains(err.Error(), hexKey) {
			t.Errorf("error %v repeats the key (or is nil)", err)
		}
	}
}
