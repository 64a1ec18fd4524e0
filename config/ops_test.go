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
		{"admin listener", "  admin_listen: 127.0.0.1:9191\n", config.Ops{AdminListen: "127.0.0.1:9191", AdminListenSet: true}},
		{"no admin listener", "  admin_listen: ''\n", config.Ops{AdminListenSet: true}},
		{"admin allowed hosts", "  admin_allowed_hosts: [Admin.Example.internal., 10.0.0.5, '[fd00::1]', gw_1.lan]\n", config.Ops{AdminListen: def, AdminAllowedHosts: []string{"admin.example.internal", "gw_1.lan"}}},
		{"admin token", "  admin_listen: '[::1]:0'\n  admin_token: s3cr3t-T0ken\n", config.Ops{AdminListen: "[::1]:0", AdminListenSet: true, AdminToken: "s3cr3t-T0ken"}},
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
		{"admin_allowed_hosts wildcard", "  admin_allowed_hosts: ['*.example.com']\n", "hivegate.admin_allowed_hosts", "want a host name"},
		{"admin_allowed_hosts with port", "  admin_allowed_hosts: [admin.example:9090]\n", "hivegate.admin_allowed_hosts", "no scheme, port or wildcard"},
		{"admin_allowed_hosts with scheme", "  admin_allowed_hosts: ['http://admin.example']\n", "hivegate.admin_allowed_hosts", "want a host name"},
		{"admin_allowed_hosts not a list", "  admin_allowed_hosts: admin.example\n", "hivegate.admin_allowed_hosts", "want a list"},
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

// TestAdminHostAllowed shows which Host headers the admin listener
// accepts: loopback names and IP addresses always, the admin_listen host,
// and the names of admin_allowed_hosts; no other name (DNS rebinding).
func TestAdminHostAllowed(t *testing.T) {
	t.Parallel()
	plain, err := parseOps(t, "  access_log: true\n")
	if err != nil {
		t.Fatal(err)
	}
	named, err := parseOps(t, "  admin_listen: admin.lan:9191\n  admin_allowed_hosts: [metrics.example.internal]\n")
	if err != nil {
		t.Fatal(err)
	}
	testCases := []struct {
		host         string
		plain, named bool
	}{
		{"localhost", true, true},
		{"LOCALHOST:9090", true, true},
		{"localhost.:9090", true, true},
		{"127.0.0.1", true, true},
		{"127.0.0.1:9090", true, true},
		{"[::1]", true, true},
		{"[::1]:9090", true, true},
		{"10.0.0.5:9090", true, true},
		{"metrics.example.internal:9090", false, true},
		{"Metrics.Example.Internal", false, true},
		{"admin.lan:9191", false, true},
		{"evil.example", false, false},
		{"evil.example:9090", false, false},
		{"localhost.evil.example", false, false},
		{"127.0.0.1.nip.io", false, false},
		{"", false, false},
	}
	for _, tc := range testCases {
		if got := plain.Ops.AdminHostAllowed(tc.host); got != tc.plain {
			t.Errorf("default config: AdminHostAllowed(%q) = %v, want %v", tc.host, got, tc.plain)
		}
		if got := named.Ops.AdminHostAllowed(tc.host); got != tc.named {
			t.Errorf("with admin_allowed_hosts: AdminHostAllowed(%q) = %v, want %v", tc.host, got, tc.named)
		}
	}
}

// TestSetAdminListen shows serve --admin-listen: an address (or "" for
// none) that counts as given explicitly.
func TestSetAdminListen(t *testing.T) {
	t.Parallel()
	var o config.Ops
	if err := o.SetAdminListen("127.0.0.1:9191"); err != nil || o.AdminListen != "127.0.0.1:9191" || !o.AdminListenSet {
		t.Errorf("SetAdminListen(127.0.0.1:9191): %v, %+v", err, o)
	}
	if err := o.SetAdminListen(""); err != nil || o.AdminListen != "" || !o.AdminListenSet {
		t.Errorf(`SetAdminListen(""): %v, %+v`, err, o)
	}
	if err := o.SetAdminListen("9191"); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("SetAdminListen(9191) = %v, want a HOST:PORT error", err)
	}
}
