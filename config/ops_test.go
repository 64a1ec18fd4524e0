package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
)

const opsBaseYAML = "backends:\n  hived: http://127.0.0.1:8091\nurls:\n  hived: hived\nhivegate:\n"

// parseOps loads a settings section made of the given YAML lines.
func parseOps(t *testing.T, body string) (*config.Config, error) {
	t.Helper()
	return config.Parse("o.yaml", []byte(opsBaseYAML+body))
}

// TestOpsDefaults shows the defaults of a config without operations keys.
func TestOpsDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("o.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if want := (config.Ops{AdminListen: "127.0.0.1:9090"}); !reflect.DeepEqual(cfg.Ops, want) {
		t.Fatalf("Ops = %+v, want %+v: the admin listener on loopback, nothing else", cfg.Ops, want)
	}
	if path, on := cfg.Ops.Metrics(); path != "/metrics" || on {
		t.Errorf("Metrics() = %q, %v; want /metrics, false: metrics are not on the public port unless asked", path, on)
	}
	if cfg.Ops.Tracing.Enabled() {
		t.Error("tracing on by default")
	}
}

// TestOpsKeys shows that every operations key is read into its field.
func TestOpsKeys(t *testing.T) {
	t.Parallel()
	const def = config.DefaultAdminListen
	testCases := []struct {
		name, yaml string
		want       config.Ops
	}{
		{"access log off", "  access_log: false\n", config.Ops{AccessLogOff: true, AdminListen: def}},
		{"access log on", "  access_log: true\n", config.Ops{AdminListen: def}},
		{"metrics on the public port", "  metrics:\n    enabled: true\n", config.Ops{PublicMetrics: true, AdminListen: def}},
		{"metrics off the public port", "  metrics:\n    enabled: false\n", config.Ops{AdminListen: def}},
		{"metrics path", "  metrics: {path: /internal/prom}\n", config.Ops{MetricsPath: "/internal/prom", AdminListen: def}},
		{"admin listener", "  admin_listen: 127.0.0.1:9191\n", config.Ops{AdminListen: "127.0.0.1:9191"}},
		{"no admin listener", "  admin_listen: ''\n", config.Ops{}},
		{"admin token", "  admin_listen: '[::1]:0'\n  admin_token: s3cr3t-T0ken\n", config.Ops{AdminListen: "[::1]:0", AdminToken: "s3cr3t-T0ken"}},
		{
			"tracing with defaults", "  tracing:\n    otlp_endpoint: http://127.0.0.1:4318\n",
			config.Ops{AdminListen: def, Tracing: config.Tracing{OTLPEndpoint: "http://127.0.0.1:4318", SampleRatio: 0.1, ServiceName: "hivegate", Pos: config.Pos{File: "o.yaml", Line: 7}}},
		},
		{
			"tracing in full", "  tracing: {otlp_endpoint: 'https://otel.example:4318/custom', sample_ratio: 1, service_name: gw-eu}\n",
			config.Ops{AdminListen: def, Tracing: config.Tracing{OTLPEndpoint: "https://otel.example:4318/custom", SampleRatio: 1, ServiceName: "gw-eu", Pos: config.Pos{File: "o.yaml", Line: 6}}},
		},
		{
			"tracing never sampled at the root", "  tracing: {otlp_endpoint: 'http://c:4318', sample_ratio: 0}\n",
			config.Ops{AdminListen: def, Tracing: config.Tracing{OTLPEndpoint: "http://c:4318", SampleRatio: 0, ServiceName: "hivegate", Pos: config.Pos{File: "o.yaml", Line: 6}}},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseOps(t, tc.yaml)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Ops, tc.want) {
				t.Fatalf("Ops = %+v\nwant %+v", cfg.Ops, tc.want)
			}
		})
	}
}

// TestOpsErrors shows that a bad operations key is an error naming the
// file, line and key.
func TestOpsErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct{ name, yaml, key, want string }{
		{"access_log not a bool", "  access_log: 'no'\n", "hivegate.access_log", "want true or false"},
		{"metrics unknown key", "  metrics: {port: 9}\n", "hivegate.metrics.port", "unknown key"},
		{"metrics namespace bad", "  metrics: {namespace: 1x}\n", "hivegate.metrics.namespace", "want a Prometheus name prefix"},
		{"metrics path root", "  metrics: {path: /}\n", "hivegate.metrics.path", "other than /"},
		{"metrics path relative", "  metrics: {path: metrics}\n", "hivegate.metrics.path", "absolute"},
		{"metrics path dot segment", "  metrics: {path: /a/../b}\n", "hivegate.metrics.path", "absolute"},
		{"metrics path query", "  metrics: {path: '/m?x=1'}\n", "hivegate.metrics.path", "absolute"},
		{"admin_listen no port", "  admin_listen: 127.0.0.1\n", "hivegate.admin_listen", "HOST:PORT"},
		{"admin_listen bad port", "  admin_listen: '127.0.0.1:99999'\n", "hivegate.admin_listen", "out of range"},
		{"admin_token empty", "  admin_token: ''\n", "hivegate.admin_token", "printable"},
		{"admin_token space", "  admin_token: 'a b'\n", "hivegate.admin_token", "printable"},
		{"tracing without endpoint", "  tracing: {sample_ratio: 0.5}\n", "hivegate.tracing.otlp_endpoint", "missing"},
		{"tracing bad scheme", "  tracing: {otlp_endpoint: 'grpc://c:4317'}\n", "hivegate.tracing.otlp_endpoint", "OTLP/HTTP URL"},
		{"tracing ratio too large", "  tracing: {otlp_endpoint: 'http://c:4318', sample_ratio: 1.5}\n", "hivegate.tracing.sample_ratio", "out of range"},
		{"tracing ratio a string", "  tracing: {otlp_endpoint: 'http://c:4318', sample_ratio: 'half'}\n", "hivegate.tracing.sample_ratio", "want a number"},
		{"tracing empty service", "  tracing: {otlp_endpoint: 'http://c:4318', service_name: ' '}\n", "hivegate.tracing.service_name", "empty"},
		{"tracing unknown key", "  tracing: {otlp_endpoint: 'http://c:4318', headers: {}}\n", "hivegate.tracing.headers", "unknown key"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseOps(t, tc.yaml)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a *config.Error", err)
			}
			if ce.Key != tc.key || ce.Pos.File != "o.yaml" || ce.Pos.Line == 0 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %q (key %q), want key %q at o.yaml:N containing %q", err, ce.Key, tc.key, tc.want)
			}
		})
	}
}

// TestOpsWarnings shows the warning about an admin listener reachable from
// other machines.
func TestOpsWarnings(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		listen string
		warned bool
	}{
		{"127.0.0.1:9090", false},
		{"'[::1]:9090'", false},
		{"localhost:9090", false},
		{"0.0.0.0:9090", true},
		{"':9090'", true},
		{"10.1.2.3:9090", true},
	}
	for _, tc := range testCases {
		t.Run(tc.listen, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseOps(t, "  admin_listen: "+tc.listen+"\n")
			if err != nil {
				t.Fatal(err)
			}
			warned := false
			for _, w := range cfg.Warnings {
				if strings.Contains(w, "o.yaml:6: hivegate.admin_listen") && strings.Contains(w, "not a loopback address") {
					warned = true
				}
			}
			if warned != tc.warned {
				t.Fatalf("warned = %v, want %v (warnings %q)", warned, tc.warned, cfg.Warnings)
			}
		})
	}
}
