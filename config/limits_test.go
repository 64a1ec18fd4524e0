package config_test

import (
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

const limitsBaseYAML = "backends:\n  hived: http://127.0.0.1:8091\nurls:\n  hived: hived\nlimits:\n"

// parseLimits loads a limits section given as YAML lines or as JSON members.
func parseLimits(t *testing.T, format, body string) (config.Limits, error) {
	t.Helper()
	var cfg *config.Config
	var err error
	if format == "yaml" {
		cfg, err = config.Parse("l.yaml", []byte(limitsBaseYAML+"  "+body+"\n"))
	} else {
		cfg, err = config.Parse("l.json", []byte(`{"limits": {`+body+`}, "upstreams": [{"name": "hived", "urls": [["hived", "http://h"]]}]}`))
	}
	if err != nil {
		return config.Limits{}, err
	}
	return cfg.Limits, nil
}

// TestLimitsNewKeys shows that every limits key added for overload
// protection is read, in both formats, into its field.
func TestLimitsNewKeys(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		yaml, json string
		check      func(config.Limits) bool
	}{
		{"max_header_bytes: 2048", `"max_header_bytes": 2048`, func(l config.Limits) bool { return l.MaxHeaderBytes == 2048 }},
		{"read_header_timeout: 2", `"read_header_timeout": 2`, func(l config.Limits) bool { return l.ReadHeaderTimeout == 2*time.Second }},
		{"read_timeout: 3", `"read_timeout": 3`, func(l config.Limits) bool { return l.ReadTimeout == 3*time.Second }},
		{"write_timeout: 4", `"write_timeout": 4`, func(l config.Limits) bool { return l.WriteTimeout == 4*time.Second }},
		{"idle_timeout: 5", `"idle_timeout": 5`, func(l config.Limits) bool { return l.IdleTimeout == 5*time.Second }},
		{"max_in_flight: 7", `"max_in_flight": 7`, func(l config.Limits) bool { return l.MaxInFlight == 7 }},
		{"rate_limit_per_second: 12", `"rate_limit_per_second": 12`, func(l config.Limits) bool { return l.RateLimitPerSecond == 12 }},
		{"rate_limit_per_second: 0.5", `"rate_limit_per_second": 0.5`, func(l config.Limits) bool { return l.RateLimitPerSecond == 0.5 }},
		{"rate_limit_burst: 30", `"rate_limit_burst": 30`, func(l config.Limits) bool { return l.RateLimitBurst == 30 }},
		{"trusted_proxy_header: X-Forwarded-For", `"trusted_proxy_header": "X-Forwarded-For"`, func(l config.Limits) bool { return l.TrustedProxyHeader == "X-Forwarded-For" }},
		{"trusted_proxies: [10.1.2.3, 192.168.0.0/16, '::1']", `"trusted_proxies": ["10.1.2.3", "192.168.0.0/16", "::1"]`, func(l config.Limits) bool {
			return reflect.DeepEqual(l.TrustedProxies, []netip.Prefix{
				netip.MustParsePrefix("10.1.2.3/32"), netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("::1/128"),
			})
		}},
		{"max_response_bytes: 4096", `"max_response_bytes": 4096`, func(l config.Limits) bool { return l.MaxResponseBytes == 4096 }},
		{"max_body_bytes: 2048", `"max_body_bytes": 2048`, func(l config.Limits) bool { return l.MaxBodyBytes == 2048 }},
		{"max_json_depth: 8", `"max_json_depth": 8`, func(l config.Limits) bool { return l.MaxJSONDepth == 8 }},
		{"max_in_flight_per_client: 9", `"max_in_flight_per_client": 9`, func(l config.Limits) bool { return l.MaxInFlightPerClient == 9 }},
		{"max_conns_per_client: 11", `"max_conns_per_client": 11`, func(l config.Limits) bool { return l.MaxConnsPerClient == 11 }},
		{"max_concurrent_streams: 13", `"max_concurrent_streams": 13`, func(l config.Limits) bool { return l.MaxConcurrentStreams == 13 }},
		{"body_timeout: 6", `"body_timeout": 6`, func(l config.Limits) bool { return l.BodyTimeout == 6*time.Second }},
	}
	for _, tc := range testCases {
		t.Run(tc.yaml, func(t *testing.T) {
			t.Parallel()
			for _, f := range []struct{ format, body string }{{"yaml", tc.yaml}, {"json", tc.json}} {
				l, err := parseLimits(t, f.format, f.body)
				if err != nil {
					t.Fatalf("%s: %v", f.format, err)
				}
				if !tc.check(l) {
					t.Errorf("%s: limits %+v", f.format, l)
				}
			}
		})
	}
}

// TestLimitsErrors checks the range of every new key; each error names the
// file, line and key.
func TestLimitsErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		body, key, text string
	}{
		{"max_header_bytes: 10", "limits.max_header_bytes", "out of range 1024..16777216"},
		{"read_header_timeout: 0", "limits.read_header_timeout", "at least 1 second"},
		{"idle_timeout: -1", "limits.idle_timeout", "negative"},
		{"write_timeout: 100000", "limits.write_timeout", "over the limit"},
		{"read_timeout: fast", "limits.read_timeout", "want a timeout"},
		{"max_in_flight: 0", "limits.max_in_flight", "out of range 1..1000000"},
		{"rate_limit_per_second: -1", "limits.rate_limit_per_second", "out of range"},
		{"rate_limit_per_second: lots", "limits.rate_limit_per_second", "want a number"},
		{"rate_limit_burst: 0", "limits.rate_limit_burst", "out of range 1..1000000"},
		{"trusted_proxy_header: 'X Forwarded'", "limits.trusted_proxy_header", "not an HTTP header name"},
		{"trusted_proxies: [proxy.local]", "limits.trusted_proxies", "neither an IP address nor a CIDR range"},
		{"max_response_bytes: 1", "limits.max_response_bytes", "out of range 1024.."},
		{"max_inflight: 3", "limits.max_inflight", "unknown key"},
		{"max_in_flight_per_client: 0", "limits.max_in_flight_per_client", "out of range 1..1000000"},
		{"max_conns_per_client: -2", "limits.max_conns_per_client", "out of range 1..1000000"},
		{"max_concurrent_streams: 20000", "limits.max_concurrent_streams", "out of range 1..10000"},
		{"body_timeout: 0", "limits.body_timeout", "at least 1 second"},
		{"body_timeout: 1.5", "limits.body_timeout", "want a timeout"},
	}
	for _, tc := range testCases {
		t.Run(tc.body, func(t *testing.T) {
			t.Parallel()
			_, err := parseLimits(t, "yaml", tc.body)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if ce.Pos.File != "l.yaml" || ce.Pos.Line != 6 || ce.Key != tc.key || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q, want l.yaml:6: %s: …%s…", err, tc.key, tc.text)
			}
		})
	}
}

// TestLimitsWithDefaults checks the documented defaults: every zero field
// gets its default, rate limiting stays off, and the burst follows the rate.
func TestLimitsWithDefaults(t *testing.T) {
	t.Parallel()
	got := config.Limits{}.WithDefaults()
	want := config.Limits{
		MaxBatchSize: 50, MaxBodyBytes: 1 << 20, MaxJSONDepth: 64, MaxHeaderBytes: 64 << 10,
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 120 * time.Second, IdleTimeout: 120 * time.Second,
		MaxInFlight: 2048, MaxResponseBytes: 64 << 20, MaxUpstreamBatchSize: 50,
		MaxInFlightPerClient: 256, MaxConnsPerClient: 256, MaxConcurrentStreams: 100, BodyTimeout: 10 * time.Second,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", got, want)
	}
	set := config.Limits{MaxInFlight: 3, RateLimitPerSecond: 2.5}.WithDefaults()
	if set.MaxInFlight != 3 || set.RateLimitBurst != 3 {
		t.Errorf("set values: max_in_flight %d (want 3), burst %d (want 3 = ceil(2.5))", set.MaxInFlight, set.RateLimitBurst)
	}
	// max_in_flight_per_client follows max_in_flight, in a file too;
	// body_timeout is never longer than read_timeout.
	for _, tc := range []struct {
		body        string
		perClient   int
		bodyTimeout time.Duration
	}{
		{"max_in_flight: 64", 8, 10 * time.Second},
		{"max_in_flight: 3", 1, 10 * time.Second},
		{"read_timeout: 4", 256, 4 * time.Second},
	} {
		l, err := parseLimits(t, "yaml", tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if d := l.WithDefaults(); d.MaxInFlightPerClient != tc.perClient || d.BodyTimeout != tc.bodyTimeout {
			t.Errorf("%s: max_in_flight_per_client %d (want %d), body_timeout %v (want %v)", tc.body, d.MaxInFlightPerClient, tc.perClient, d.BodyTimeout, tc.bodyTimeout)
		}
	}
	l, err := parseLimits(t, "yaml", "blacklist_accounts: []")
	if err != nil {
		t.Fatal(err)
	}
	if l.WithDefaults().MaxInFlight != config.DefaultMaxInFlight || l.RateLimitPerSecond != 0 {
		t.Errorf("loaded defaults: %+v", l.WithDefaults())
	}
}
