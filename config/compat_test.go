package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

// TestBackendNodes shows the two ways to give a backend several nodes: a
// list of URLs in YAML, several urls pairs of one key in jussi JSON. ws://
// and wss:// URLs load in both formats.
func TestBackendNodes(t *testing.T) {
	t.Parallel()
	yaml := mustParse(t, "n.yaml", "backends:\n  hived: [http://a:1, ws://b:2, wss://c]\n  one: http://d\nurls:\n  hived: hived\n  bridge: one\n")
	got := yaml.BackendNodes()
	if !slices.Equal(got["hived"], []string{"http://a:1", "ws://b:2", "wss://c"}) || !slices.Equal(got["one"], []string{"http://d"}) {
		t.Errorf("YAML nodes %q", got)
	}
	if u, _ := yaml.BackendURL("hived"); u != "http://a:1" {
		t.Errorf("BackendURL = %q, want the first node", u)
	}
	legacy := mustParse(t, "n.json", `{"upstreams": [
 {"name": "hived", "urls": [["hived", "ws://a:1"], ["hived", "http://b:2"], ["hived.x_api", "ws://a:1"]]},
 {"name": "appbase", "urls": [["appbase", "ws://a:1"], ["appbase", "http://b:2"], ["hived", "http://b:2"]]}]}`)
	var names []string
	for _, b := range legacy.Backends {
		names = append(names, b.Name+"="+strings.Join(b.NodeURLs(), ","))
	}
	// hived and appbase have the same two nodes: one backend; hived.x_api
	// goes to the first node alone: a backend of its own.
	want := []string{"hived=ws://a:1,http://b:2", "hived.x_api=ws://a:1"}
	if !slices.Equal(names, want) {
		t.Errorf("legacy backends %q, want %q", names, want)
	}
	var routes []string
	for _, u := range legacy.URLs {
		routes = append(routes, u.Key+"="+u.Value)
	}
	if !slices.Equal(routes, []string{"hived=hived", "hived.x_api=hived.x_api", "appbase=hived"}) {
		t.Errorf("legacy urls %q", routes)
	}
}

// TestEquivalentMethodsLoad shows that Drone's equivalent_methods load
// source first, and which entries are refused.
func TestEquivalentMethodsLoad(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "e.yaml", minimal+"equivalent_methods:\n  search-api.find_text:\n    - appbase.search_api.find_text\n  block_api.get_block: [appbase.condenser_api.get_block, hived.database_api.get_block]\n")
	var got []string
	for _, e := range cfg.EquivalentMethods {
		got = append(got, e.Key+">"+e.Value+"@"+e.Pos.String())
	}
	want := []string{"appbase.search_api.find_text>search-api.find_text@e.yaml:7", "appbase.condenser_api.get_block>block_api.get_block@e.yaml:8", "hived.database_api.get_block>block_api.get_block@e.yaml:8"}
	if !slices.Equal(got, want) {
		t.Errorf("equivalent methods %q, want %q", got, want)
	}
	testCases := []struct{ name, text, want string }{
		{"source twice", "equivalent_methods:\n  a.b: [x.y.z]\n  c.d: [x.y.z]\n", `source "x.y.z" is also renamed at`},
		{"source with params", "equivalent_methods:\n  a.b: ['x.y.z.params=[1]']\n", "without params"},
		{"one-segment source", "equivalent_methods:\n  a.b: [get_block]\n", "want a method key"},
		{"call destination", "equivalent_methods:\n  call: [x.y.z]\n", "want a method as a client calls it"},
		{"not a list", "equivalent_methods:\n  a.b: 3\n", "want a list of strings"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Parse("e.yaml", []byte(minimal+tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHonorUpstreamCacheControl shows Drone's fourth TTL word loading.
func TestHonorUpstreamCacheControl(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "h.yaml", minimal+"ttls:\n  hived: HONOR_UPSTREAM_CACHE_CONTROL\n")
	if cfg.TTLs[0].Value.Kind != config.TTLUpstreamCacheControl || cfg.TTLs[0].Value.String() != "HONOR_UPSTREAM_CACHE_CONTROL" {
		t.Errorf("TTL %+v", cfg.TTLs[0].Value)
	}
}

// TestAccountHistoryLimitKey shows limits.account_history_limit: jussi's
// default of 100 in a jussi JSON config, none in YAML, and 0 turning it
// off.
func TestAccountHistoryLimitKey(t *testing.T) {
	t.Parallel()
	const up = `"upstreams": [{"name": "hived", "urls": [["hived", "http://h"]]}]`
	testCases := []struct {
		name, file, text string
		want             int
	}{
		{"jussi default", "a.json", "{" + up + "}", 100},
		{"jussi given", "a.json", `{"limits": {"account_history_limit": 250}, ` + up + "}", 250},
		{"jussi off", "a.json", `{"limits": {"account_history_limit": 0}, ` + up + "}", 0},
		{"YAML default", "a.yaml", minimal, 0},
		{"YAML given", "a.yaml", minimal + "limits:\n  account_history_limit: 500\n", 500},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := mustParse(t, tc.file, tc.text).Limits.AccountHistoryLimit; got != tc.want {
				t.Errorf("AccountHistoryLimit = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestDroneMetricsBothSpellings refuses a file that gives the public
// metrics twice.
func TestDroneMetricsBothSpellings(t *testing.T) {
	t.Parallel()
	_, err := config.Parse("m.yaml", []byte("drone:\n  metrics_enabled: true\n  metrics: {enabled: false}\n"+minimal))
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("err = %v", err)
	}
}

// TestJussiNextKeys shows every key of the settings sections of jussi's
// next branch: what it sets, or the warning that says what hivegate does
// instead.
func TestJussiNextKeys(t *testing.T) {
	t.Parallel()
	const up = `, "upstreams": [{"name": "hived", "urls": [["hived", "http://h"]]}]}`
	testCases := []struct {
		name, json string
		check      func(*config.Config) bool
		warn       string // "" for none
	}{
		{"server.host", `{"server": {"host": "0.0.0.0"}`, func(c *config.Config) bool { return c.Settings.Hostname == "0.0.0.0" }, ""},
		{"server.port", `{"server": {"port": 8080}`, func(c *config.Config) bool { return c.Settings.Port == 8080 }, ""},
		{"server.batch_size_limit", `{"server": {"batch_size_limit": 100}`, func(c *config.Config) bool { return c.Limits.MaxBatchSize == 100 }, ""},
		{"server.workers", `{"server": {"workers": 4}`, nil, "server.workers: hivegate serves requests on every CPU"},
		{"server.tcp_backlog", `{"server": {"tcp_backlog": 1024}`, nil, "server.tcp_backlog: hivegate listens with the system's backlog"},
		{"server.request_timeout", `{"server": {"request_timeout": 30}`, nil, "server.request_timeout: jussi documents this key but never reads it"},
		{"server.response_timeout", `{"server": {"response_timeout": 30}`, nil, "server.response_timeout: jussi documents this key but never reads it"},
		{"upstream.test_urls true", `{"upstream": {"test_urls": true}`, nil, "upstream.test_urls: hivegate does not test the upstream URLs"},
		{"upstream.test_urls false", `{"upstream": {"test_urls": false}`, func(*config.Config) bool { return true }, ""},
		{"upstream.websocket_enabled false", `{"upstream": {"websocket_enabled": false}`, nil, "upstream.websocket_enabled: hivegate always calls ws:// and wss:// URLs over WebSocket"},
		{"upstream.websocket_enabled true", `{"upstream": {"websocket_enabled": true}`, func(*config.Config) bool { return true }, ""},
		{"websocket_pool.max_size", `{"upstream": {"websocket_pool": {"max_size": 3}}`, func(c *config.Config) bool { return c.Settings.WSConnsPerNode == 3 }, ""},
		{"websocket_pool.min_size", `{"upstream": {"websocket_pool": {"min_size": 8}}`, nil, "upstream.websocket_pool.min_size: hivegate opens WebSocket connections when calls need them"},
		{"websocket_pool.queue_size", `{"upstream": {"websocket_pool": {"queue_size": 1}}`, nil, "upstream.websocket_pool.queue_size: hivegate sends any number of calls"},
		{"websocket_pool.read_limit", `{"upstream": {"websocket_pool": {"read_limit": 65536}}`, nil, "upstream.websocket_pool.read_limit: hivegate caps every answer"},
		{"websocket_pool.write_limit", `{"upstream": {"websocket_pool": {"write_limit": 65536}}`, nil, "upstream.websocket_pool.write_limit: hivegate caps every answer"},
		{"websocket_pool.max_msg_size", `{"upstream": {"websocket_pool": {"max_msg_size": 1000}}`, nil, "upstream.websocket_pool.max_msg_size: hivegate caps every answer"},
		{"cache.enabled false", `{"cache": {"enabled": false}`, func(c *config.Config) bool { return c.Settings.CacheMaxCapacity == 0 }, ""},
		{"cache.enabled true", `{"cache": {"enabled": true}`, func(c *config.Config) bool { return c.Settings.CacheMaxCapacity == config.DefaultCacheMaxCapacity }, ""},
		{"cache.redis_url", `{"cache": {"redis_url": "redis://r:6379/1"}`, func(c *config.Config) bool { return c.Cache.RedisURL == "redis://r:6379/1" }, ""},
		{"cache.read_replica_urls", `{"cache": {"redis_url": "redis://r:6379", "read_replica_urls": ["redis://s:6379"]}`, func(c *config.Config) bool {
			return slices.Equal(c.Cache.RedisReplicaURLs, []string{"redis://s:6379"})
		}, ""},
		{"cache.read_timeout", `{"cache": {"redis_url": "redis://r:6379", "read_timeout": 0.25}`, func(c *config.Config) bool { return c.Cache.RedisTimeout == 250*time.Millisecond }, ""},
		{"cache.test_before_add", `{"cache": {"test_before_add": true}`, nil, "cache.test_before_add: hivegate writes an entry to Redis without reading it first"},
		{"cache.memory.max_size", `{"cache": {"memory": {"max_size": 100000}}`, nil, "cache.memory.max_size: hivegate's cache is bounded in bytes"},
		{"cache.memory.enabled", `{"cache": {"memory": {"enabled": true}}`, nil, "cache.memory.enabled: jussi documents this key but never reads it"},
		{"cache.memory.default_ttl", `{"cache": {"memory": {"default_ttl": 300}}`, nil, "cache.memory.default_ttl: jussi documents this key but never reads it"},
		{"cache.redis.address", `{"cache": {"redis": {"address": "redis:6379", "password": "pw", "db": 2}}`, func(c *config.Config) bool { return c.Cache.RedisURL == "redis://:pw@redis:6379/2" }, ""},
		{"cache.redis.compression false", `{"cache": {"redis": {"address": "redis:6379", "compression": false}}`, func(c *config.Config) bool {
			return c.Cache.RedisCompressMinBytes == config.MaxRedisCompressMinBytes
		}, ""},
		{"cache.redis.compression true", `{"cache": {"redis": {"address": "redis:6379", "compression": true}}`, func(c *config.Config) bool {
			return c.Cache.RedisCompressMinBytes == config.DefaultRedisCompressMinBytes
		}, ""},
		{"cache.redis.pool_size", `{"cache": {"redis": {"pool_size": 10}}`, nil, "cache.redis.pool_size: hivegate bounds every Redis operation"},
		{"cache.redis.read_timeout", `{"cache": {"redis": {"read_timeout": 3}}`, nil, "cache.redis.read_timeout: hivegate bounds every Redis operation"},
		{"cache.redis.write_timeout", `{"cache": {"redis": {"write_timeout": 3}}`, nil, "cache.redis.write_timeout: hivegate bounds every Redis operation"},
		{"cache.redis.dial_timeout", `{"cache": {"redis": {"dial_timeout": 5}}`, nil, "cache.redis.dial_timeout: hivegate bounds every Redis operation"},
		{"cache.redis.enabled", `{"cache": {"redis": {"enabled": true}}`, nil, "cache.redis.enabled: jussi documents this key but never reads it"},
		{"cache.redis.url", `{"cache": {"redis": {"url": "redis://x"}}`, nil, "cache.redis.url: jussi documents this key but never reads it"},
		{"logging.level", `{"logging": {"level": "info"}`, nil, "logging.level: hivegate logs at level info"},
		{"logging.output", `{"logging": {"output": "stdout"}`, nil, "logging.output: hivegate logs at level info to standard error"},
		{"logging.timestamp_format", `{"logging": {"timestamp_format": "rfc3339"}`, nil, "logging.timestamp_format: hivegate logs"},
		{"logging.format", `{"logging": {"format": "json"}`, nil, "logging.format: choose hivegate's log format with --log-format text|json (json asked)"},
		{"logging.include_caller", `{"logging": {"include_caller": true}`, nil, "logging.include_caller: hivegate's log lines carry no source location"},
		{"logging.caller", `{"logging": {"caller": true}`, nil, "logging.caller: jussi documents this key but never reads it"},
		{"telemetry on", `{"telemetry": {"enabled": true, "otlp_endpoint": "jaeger:4318", "service_name": "jussi-go"}`, func(c *config.Config) bool {
			return c.Ops.Tracing.OTLPEndpoint == "http://jaeger:4318" && c.Ops.Tracing.ServiceName == "jussi-go"
		}, ""},
		{"telemetry.traces_endpoint", `{"telemetry": {"traces_endpoint": "https://otel.example/v1/traces"}`, func(c *config.Config) bool {
			return c.Ops.Tracing.OTLPEndpoint == "https://otel.example/v1/traces"
		}, ""},
		{"telemetry off", `{"telemetry": {"enabled": false, "otlp_endpoint": "jaeger:4318"}`, func(c *config.Config) bool { return !c.Ops.Tracing.Enabled() }, ""},
		{"telemetry without endpoint", `{"telemetry": {"enabled": true}`, nil, "telemetry: no otlp_endpoint: tracing stays off"},
		{"telemetry.resource_attributes", `{"telemetry": {"enabled": false, "resource_attributes": "env=dev"}`, nil, "telemetry.resource_attributes: hivegate's spans carry service.name"},
		{"telemetry.jaeger", `{"telemetry": {"enabled": false, "jaeger": {"endpoint": "x"}}`, nil, "telemetry.jaeger: jussi documents this key but never reads it"},
		{"prometheus public", `{"prometheus": {"enabled": true, "localhost_only": false, "path": "/prom"}`, func(c *config.Config) bool {
			p, on := c.Ops.Metrics()
			return on && p == "/prom"
		}, ""},
		{"prometheus off", `{"prometheus": {"enabled": false}`, func(c *config.Config) bool { _, on := c.Ops.Metrics(); return !on }, ""},
		{"prometheus localhost_only", `{"prometheus": {"enabled": true, "localhost_only": true}`, nil, "prometheus: hivegate serves metrics to loopback clients on its admin listener"},
		{"prometheus allowed_ips", `{"prometheus": {"localhost_only": false, "allowed_ips": ["10.0.0.1"]}`, nil, "prometheus: hivegate serves metrics to loopback clients on its admin listener"},
		{"prometheus.port", `{"prometheus": {"enabled": false, "port": 9090}`, nil, "prometheus.port: jussi documents this key but never reads it"},
		{"limits.batch_size", `{"limits": {"batch_size": 50}`, nil, "limits.batch_size: jussi documents this key but never reads it"},
		{"limits.custom_json_op_length", `{"limits": {"custom_json_op_length": 8192}`, nil, "limits.custom_json_op_length: jussi documents this key but never reads it"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, "j.json", tc.json+up)
			if tc.check != nil && !tc.check(cfg) {
				t.Errorf("%s did not take effect: settings %+v ops %+v cache %+v", tc.name, cfg.Settings, cfg.Ops, cfg.Cache)
			}
			switch {
			case tc.warn == "" && len(cfg.Warnings) != 0:
				t.Errorf("warnings %q, want none", cfg.Warnings)
			case tc.warn != "" && (len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], tc.warn)):
				t.Errorf("warnings %q, want one saying %q", cfg.Warnings, tc.warn)
			}
		})
	}
	// A key neither jussi nor Drone has stays an error.
	for _, text := range []string{`{"server": {"threads": 4}`, `{"prometheus": {"scrape": true}`, `{"cache": {"redis": {"tls": true}}`, `{"statsd": {}`} {
		if _, err := config.Parse("j.json", []byte(text+up)); err == nil || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("%s: err = %v, want unknown key", text, err)
		}
	}
}

// TestJussiListFile loads a jussi file of early 2018: the upstreams list
// alone, without the enclosing object.
func TestJussiListFile(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "old.json", `[{"name": "steemd", "translate_to_appbase": true, "urls": [["steemd", "https://h"]], "ttls": [["steemd", 3]], "timeouts": [["steemd", 5]]}]`)
	if len(cfg.URLs) != 1 || cfg.URLs[0].Key != "steemd" || cfg.DefaultNamespace != "steemd" || len(cfg.TranslateToAppbase) != 1 {
		t.Errorf("loaded %+v", cfg)
	}
}

// TestLocalOverride shows Drone's config.local.yaml: merged over
// config.yaml key by key, its values winning, its errors naming it.
func TestLocalOverride(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := write("config.yaml", "drone:\n  port: 9000\n  operator_message: base\n  metrics_enabled: false\n"+minimal+"ttls:\n  hived: 3\n")
	write("config.local.yaml", "drone:\n  metrics_enabled: true\n  debug_endpoints_enabled: true\nttls:\n  hived.database_api: 5\n")
	cfg, err := config.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	_, public := cfg.Ops.Metrics()
	if cfg.Settings.Port != 9000 || cfg.Settings.OperatorMessage != "base" || !public || !cfg.Ops.DebugEndpoints || len(cfg.TTLs) != 2 {
		t.Errorf("merged config: settings %+v ops %+v ttls %+v", cfg.Settings, cfg.Ops, cfg.TTLs)
	}
	if len(cfg.Warnings) == 0 || !strings.Contains(cfg.Warnings[0], "config.local.yaml: merged over") {
		t.Errorf("warnings %q", cfg.Warnings)
	}
	write("config.local.yaml", "drone:\n  port: many\n")
	if _, err := config.Load(base); err == nil || !strings.Contains(err.Error(), "config.local.yaml:2: drone.port") {
		t.Errorf("error in the local file: %v", err)
	}
	// Without a local file the config loads on its own.
	other := write("other.yaml", minimal)
	if cfg, err := config.Load(other); err != nil || len(cfg.Warnings) != 0 {
		t.Errorf("%v %q", err, cfg.Warnings)
	}
}
