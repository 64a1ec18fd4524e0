package metrics_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/metrics"
)

// TestOutcome shows that the outcome label has a fixed set of values.
func TestOutcome(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name string
		err  *jsonrpc.Error
		want string
	}{
		{"result", nil, "ok"},
		{"backend error", jsonrpc.BackendError([]byte(`{"code":-32000,"message":"x"}`)), "backend_error"},
		{"gateway timeout", jsonrpc.NewError(jsonrpc.KindUpstreamTimeout, "", nil), "upstream_timeout"},
		{"no route", jsonrpc.NewError(jsonrpc.KindMethodNotFound, "", errors.New("x")), "method_not_found"},
		{"unknown kind", &jsonrpc.Error{Kind: "made_up"}, "internal_error"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := metrics.Outcome(tc.err); got != tc.want {
				t.Fatalf("Outcome = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestInstruments shows that each recording method moves its metrics, in a
// registry of its own (two gateways in one process do not collide).
func TestInstruments(t *testing.T) {
	t.Parallel()
	a := metrics.New("1.0.0", metrics.Sources{})
	b := metrics.New("1.0.0", metrics.Sources{})
	a.ObserveCall(metrics.FrontendJSONRPC, "appbase", metrics.OutcomeOK, time.Millisecond)
	a.ObserveCall(metrics.FrontendJSONRPC, "appbase", metrics.OutcomeOK, time.Millisecond) // a kept series
	a.ObserveCall(metrics.FrontendJSONRPC, "appbase", "upstream_timeout", time.Second)
	a.ObserveCall(metrics.FrontendJSONRPC, "", "method_not_found", 0)
	a.HTTPStarted(metrics.FrontendJSONRPC).Done(time.Millisecond, 200)
	a.HTTPStarted(metrics.FrontendJSONRPC).Done(time.Millisecond, 200)
	a.HTTPStarted(metrics.FrontendJSONRPC).Done(time.Millisecond, 999)
	done := a.HTTPStarted(metrics.FrontendConnect)
	if got := gauge(t, a, "hivegate_http_requests_in_flight", `frontend="connect"`); got != 1 {
		t.Errorf("in flight during the request = %v, want 1", got)
	}
	done.Done(time.Millisecond, 429)
	finish := a.UpstreamStarted("hived")
	finish.Done(2*time.Millisecond, 3, "upstream_unavailable")
	a.ObserveReload(false)

	checks := []struct {
		name, labels string
		want         float64
	}{
		{"hivegate_requests_total", `frontend="jsonrpc",outcome="ok",route="appbase"`, 2},
		{"hivegate_requests_total", `frontend="jsonrpc",outcome="upstream_timeout",route="appbase"`, 1},
		{"hivegate_requests_total", `frontend="jsonrpc",outcome="method_not_found",route="none"`, 1},
		{"hivegate_request_duration_seconds_count", `frontend="jsonrpc",route="appbase"`, 3},
		{"hivegate_request_duration_seconds_sum", `frontend="jsonrpc",route="appbase"`, 1.002},
		{"hivegate_http_responses_total", `frontend="jsonrpc",status="200"`, 2},
		{"hivegate_http_responses_total", `frontend="jsonrpc",status="other"`, 1},
		{"hivegate_http_request_duration_seconds_count", `frontend="jsonrpc"`, 3},
		{"hivegate_http_requests_in_flight", `frontend="connect"`, 0},
		{"hivegate_http_request_duration_seconds_count", `frontend="connect"`, 1},
		{"hivegate_http_responses_total", `frontend="connect",status="429"`, 1},
		{"hivegate_upstream_request_duration_seconds_count", `backend="hived"`, 1},
		{"hivegate_upstream_errors_total", `backend="hived",kind="upstream_unavailable"`, 1},
		{"hivegate_upstream_retries_total", `backend="hived"`, 2},
		{"hivegate_upstream_requests_in_flight", `backend="hived"`, 0},
		{"hivegate_config_reloads_total", `result="error"`, 1},
		{"hivegate_build_info", `version="1.0.0"`, 1},
	}
	for _, c := range checks {
		if got := gauge(t, a, c.name, c.labels); got != c.want {
			t.Errorf("%s{%s} = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if n, err := metrics.SeriesCount(b.Registry(), "hivegate_requests_total"); err != nil || n != 0 {
		t.Errorf("the other registry has %d request series (err %v), want 0", n, err)
	}
}

// TestSources shows the scrape-time metrics read from Sources.
func TestSources(t *testing.T) {
	t.Parallel()
	c := cache.New(1 << 20)
	c.Set("k", []byte(`"v"`), time.Minute)
	c.Get("k")
	c.Get("absent")
	up := true
	m := metrics.New("x", metrics.Sources{
		Cache:     func() (cache.Stats, bool) { return c.Stats(), true },
		Flights:   func() (int, int) { return 2, 5 },
		Chain:     func() (uint64, uint64) { return 100, 120 },
		BlockWait: func() (held, arrived, timedOut, gone int64) { return 3, 50, 4, 1 },
		Backends: func() []metrics.BackendState {
			return []metrics.BackendState{{Name: "hived", Up: up}, {Name: "hivemind", Up: false}}
		},
	})
	checks := []struct {
		name, labels string
		want         float64
	}{
		{"hivegate_cache_hits_total", "", 1},
		{"hivegate_cache_misses_total", "", 1},
		{"hivegate_cache_entries", "", 1},
		{"hivegate_cache_capacity_bytes", "", 1 << 20},
		{"hivegate_coalesced_flights", "", 2},
		{"hivegate_coalesced_waiters", "", 5},
		{"hivegate_last_irreversible_block", "", 100},
		{"hivegate_head_block", "", 120},
		{"hivegate_backend_up", `backend="hived"`, 1},
		{"hivegate_backend_up", `backend="hivemind"`, 0},
		{"hivegate_block_wait_held", "", 3},
		{"hivegate_block_wait_total", `outcome="arrived"`, 50},
		{"hivegate_block_wait_total", `outcome="timeout"`, 4},
		{"hivegate_block_wait_total", `outcome="gone"`, 1},
	}
	for _, ch := range checks {
		if got := gauge(t, m, ch.name, ch.labels); got != ch.want {
			t.Errorf("%s{%s} = %v, want %v", ch.name, ch.labels, got, ch.want)
		}
	}
	if got := gauge(t, m, "hivegate_cache_bytes", ""); got <= 0 {
		t.Errorf("hivegate_cache_bytes = %v, want > 0", got)
	}
	// Without sources the metrics are left out.
	none := metrics.New("x", metrics.Sources{})
	if n, err := metrics.SeriesCount(none.Registry(), "hivegate_cache_"); err != nil || n != 0 {
		t.Errorf("%d series without sources (err %v), want 0", n, err)
	}
}

// TestHandler shows the text exposition served by Handler.
func TestHandler(t *testing.T) {
	t.Parallel()
	m := metrics.New("2.0.0", metrics.Sources{})
	m.ObserveCall(metrics.FrontendGRPC, "appbase.condenser_api", metrics.OutcomeOK, time.Millisecond)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`hivegate_requests_total{frontend="grpc",outcome="ok",route="appbase.condenser_api"} 1`,
		"# TYPE hivegate_request_duration_seconds histogram",
		"go_goroutines",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

// gauge returns the value of the one series of name with exactly the
// given labels (rendered as in the text format, sorted), or -1.
func gauge(t *testing.T, m *metrics.Metrics, name, labels string) float64 {
	t.Helper()
	v, ok := metrics.Value(m.Registry(), name, labels)
	if !ok {
		return -1
	}
	return v
}
