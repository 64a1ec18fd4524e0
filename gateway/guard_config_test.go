package gateway_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/internal/faults"
)

// TestGatewayEnforcesGuardLimits shows limits.max_in_flight and
// limits.rate_limit_per_second act on the real gateway: a request over the
// in-flight limit is refused at once with -32018 and HTTP 503, and a client
// over its rate with -32017 and HTTP 429.
func TestGatewayEnforcesGuardLimits(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, limits string
		stallFirst   bool
		wantStatus   int
		wantCode     string
	}{
		{"max_in_flight", "  max_in_flight: 1\n", true, http.StatusServiceUnavailable, "-32018"},
		{"rate_limit_per_second", "  rate_limit_per_second: 0.001\n  rate_limit_burst: 1\n", false, http.StatusTooManyRequests, "-32017"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node, err := faults.New(faults.SlowHeaders, faults.Options{Stall: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(node.Close)
			cfg, err := config.Parse("guard.yaml", fmt.Appendf(nil,
				"backends:\n  hived: %s\nurls:\n  appbase: hived\nttls:\n  appbase: NO_CACHE\ntimeouts:\n  appbase: 20\nlimits:\n%s", node.URL, tc.limits))
			if err != nil {
				t.Fatal(err)
			}
			gw, err := gateway.New(cfg, gateway.Options{})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(gw.Handler())
			t.Cleanup(func() { node.Release(); srv.Close(); gw.Close() })
			post := func() (*http.Response, string) {
				resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_config","params":[]}`))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp, string(b)
			}
			if tc.stallFirst {
				// Held by the stalled backend: the one request in flight.
				go func() {
					if resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_config","params":[]}`)); err == nil {
						resp.Body.Close()
					}
				}()
				waitFor(t, "the first request at the backend", func() bool { return node.CallsOf("condenser_api.get_config") > 0 })
			} else {
				node.Set(faults.Healthy)
				if resp, body := post(); resp.StatusCode != http.StatusOK {
					t.Fatalf("first request: %d %s", resp.StatusCode, body)
				}
			}
			resp, body := post()
			if resp.StatusCode != tc.wantStatus || !strings.Contains(body, tc.wantCode) {
				t.Fatalf("status %d body %s; want %d and code %s", resp.StatusCode, body, tc.wantStatus, tc.wantCode)
			}
			if resp.Header.Get("Retry-After") == "" {
				t.Error("no Retry-After header on the refusal")
			}
		})
	}
}
