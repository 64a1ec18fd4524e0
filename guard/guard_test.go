package guard_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/guard"
	"github.com/hivegate/hivegate/internal/calltest"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// echoCaller is calltest.Echo: {"m":method,"p":params}, "fail" fails.
type echoCaller = calltest.Echo

// TestGuardRefusals checks the answers of the Guard: a JSON-RPC error on
// POST /, a Connect error on service paths, Retry-After on both, and
// health checks passing when the gateway is full.
func TestGuardRefusals(t *testing.T) {
	t.Parallel()
	caller := &echoCaller{Hold: make(chan struct{})}
	caller.Entered.Add(1)
	g := guard.New(jsonrpchttp.NewHandler(caller, jsonrpchttp.HandlerOptions{}), guard.Options{MaxInFlight: 1})
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
		if err == nil {
			resp.Body.Close()
		}
	}()
	caller.Entered.Wait()
	cases := []struct {
		method, path string
		status       int
		body         string
	}{
		{http.MethodPost, "/", 503, `{"jsonrpc":"2.0","error":{"code":-32018,"message":"Overloaded: 1 requests in flight; retry later","data":{"name":"overloaded"}},"id":null}`},
		{http.MethodPost, "/hive.database_api.v1.DatabaseApiService/ListAccounts", 503, `{"code":"unavailable","message":"Overloaded: 1 requests in flight; retry later"}`},
		{http.MethodGet, "/", 200, ""},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.body != "" && b.String() != tc.body) {
			t.Errorf("%s %s: HTTP %d %s, want %d %s", tc.method, tc.path, resp.StatusCode, b.String(), tc.status, tc.body)
		}
		if tc.status == 503 && resp.Header.Get("Retry-After") != "1" {
			t.Errorf("%s %s: Retry-After %q", tc.method, tc.path, resp.Header.Get("Retry-After"))
		}
	}
	if n := g.InFlight(); n != 1 {
		t.Errorf("InFlight = %d, want 1", n)
	}
	close(caller.Hold)
	<-done
}

// TestGuardRateLimitConnectPath checks the Connect refusal of a client
// over its rate.
func TestGuardRateLimitConnectPath(t *testing.T) {
	t.Parallel()
	g := guard.New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}), guard.Options{RatePerSecond: 0.001, Burst: 1})
	for i, want := range []int{200, 429} {
		w := httptest.NewRecorder()
		g.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/hivegate.v1.JsonRpcService/Call", strings.NewReader("{}")))
		if w.Code != want {
			t.Fatalf("call %d: HTTP %d, want %d", i, w.Code, want)
		}
		if want == 429 && !strings.HasPrefix(w.Body.String(), `{"code":"resource_exhausted","message":"Rate limited: `) {
			t.Errorf("body %s", w.Body)
		}
	}
}

// BenchmarkGuard measures the Guard's cost per request: the in-flight
// counter alone (the default) and with the per-client rate limit on.
func BenchmarkGuard(b *testing.B) {
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, tc := range []struct {
		name string
		opts guard.Options
	}{
		{"in-flight only", guard.Options{}},
		{"rate limited", guard.Options{RatePerSecond: 1e9, Burst: 1 << 30}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g := guard.New(next, tc.opts)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				r := httptest.NewRequest(http.MethodPost, "/", nil)
				r.RemoteAddr = "198.51.100.7:4000"
				w := httptest.NewRecorder()
				for pb.Next() {
					g.ServeHTTP(w, r)
				}
			})
		})
	}
}
