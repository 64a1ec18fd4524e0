package jsonrpchttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	loopbackProxy := jsonrpchttp.ClientIPOptions{TrustedProxyHeader: "X-Forwarded-For"}
	cases := []struct {
		name   string
		remote string
		header []string // lines of the configured header (X-Forwarded-For when none)
		opts   jsonrpchttp.ClientIPOptions
		want   string
	}{
		{"peer, no header configured", "198.51.100.7:5555", []string{"203.0.113.1"}, jsonrpchttp.ClientIPOptions{}, "198.51.100.7"},
		{"trusted peer, one hop", "127.0.0.1:5555", []string{"203.0.113.1"}, loopbackProxy, "203.0.113.1"},
		{"right-most untrusted hop", "127.0.0.1:5555", []string{"6.6.6.6, 203.0.113.1, 10.0.0.2"}, loopbackProxy, "203.0.113.1"},
		{"forged left part ignored", "10.1.1.1:80", []string{"1.2.3.4", "203.0.113.5"}, loopbackProxy, "203.0.113.5"},
		{"every hop trusted: left-most", "127.0.0.1:1", []string{"10.0.0.9, 192.168.1.1"}, loopbackProxy, "10.0.0.9"},
		{"untrusted peer: header ignored", "198.51.100.7:5555", []string{"203.0.113.1"}, loopbackProxy, "198.51.100.7"},
		{"garbage hop ends the walk", "127.0.0.1:1", []string{"203.0.113.1, unknown"}, loopbackProxy, "127.0.0.1"},
		{"hop with a port", "127.0.0.1:1", []string{"203.0.113.1:4444"}, loopbackProxy, "203.0.113.1"},
		{"IPv6 hop with a port, by /64", "[::1]:1", []string{"[2001:db8:1:2:3:4:5:6]:4444"}, loopbackProxy, "2001:db8:1:2::"},
		{"IPv6 peer by /64", "[2001:db8:aa:bb:1::2]:80", nil, jsonrpchttp.ClientIPOptions{}, "2001:db8:aa:bb::"},
		{"IPv4-mapped peer", "[::ffff:198.51.100.7]:80", nil, jsonrpchttp.ClientIPOptions{}, "198.51.100.7"},
		{"custom trusted list", "127.0.0.1:1", []string{"203.0.113.1"},
			jsonrpchttp.ClientIPOptions{TrustedProxyHeader: "X-Forwarded-For", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}, "127.0.0.1"},
		{"X-Real-IP, any spelling", "127.0.0.1:1", []string{"203.0.113.8"}, jsonrpchttp.ClientIPOptions{TrustedProxyHeader: "x-real-ip"}, "203.0.113.8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.RemoteAddr = tc.remote
			name := "X-Forwarded-For"
			if tc.opts.TrustedProxyHeader != "" {
				name = tc.opts.TrustedProxyHeader
			}
			for _, h := range tc.header {
				r.Header.Add(name, h)
			}
			if got := jsonrpchttp.ClientAddr(r, tc.opts); got.String() != tc.want {
				t.Errorf("client %s, want %s", got, tc.want)
			}
		})
	}
}

// echoCaller is an in-memory Caller: the result of a call is
// {"m":method,"p":params}; the method "fail" answers a gateway error. It
// can hold calls until released.
type echoCaller struct {
	hold    chan struct{} // nil: answer at once
	entered sync.WaitGroup
}

func (c *echoCaller) CallJSONRPC(ctx context.Context, method string, params json.RawMessage) jsonrpc.Answer {
	if c.hold != nil {
		c.entered.Done()
		select {
		case <-c.hold:
		case <-ctx.Done():
		}
	}
	if method == "fail" {
		return jsonrpc.Answer{Err: jsonrpc.NewError(jsonrpc.KindUpstreamUnavailable, "backend down", nil)}
	}
	m, _ := json.Marshal(method)
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	return jsonrpc.Answer{Result: json.RawMessage(`{"m":` + string(m) + `,"p":` + string(params) + `}`)}
}

func (c *echoCaller) Healthy() bool { return true }

// TestGuardRefusals checks the answers of the Guard: a JSON-RPC error on
// POST /, a Connect error on service paths, Retry-After on both, and
// health checks passing when the gateway is full.
func TestGuardRefusals(t *testing.T) {
	t.Parallel()
	caller := &echoCaller{hold: make(chan struct{})}
	caller.entered.Add(1)
	g := jsonrpchttp.NewGuard(jsonrpchttp.NewHandler(caller, jsonrpchttp.HandlerOptions{}), jsonrpchttp.GuardOptions{MaxInFlight: 1})
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
	caller.entered.Wait()
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
	close(caller.hold)
	<-done
}

// TestGuardRateLimitConnectPath checks the Connect refusal of a client
// over its rate.
func TestGuardRateLimitConnectPath(t *testing.T) {
	t.Parallel()
	g := jsonrpchttp.NewGuard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}), jsonrpchttp.GuardOptions{RatePerSecond: 0.001, Burst: 1})
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

// TestHandlerBodyLimit checks max_body_bytes on a body with and without a
// Content-Length: both are refused with -32014 and HTTP 413.
func TestHandlerBodyLimit(t *testing.T) {
	t.Parallel()
	h := jsonrpchttp.NewHandler(&echoCaller{}, jsonrpchttp.HandlerOptions{MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":1,"method":"m","params":["` + strings.Repeat("x", 2000) + `"]}`
	small := `{"jsonrpc":"2.0","id":1,"method":"m","params":["x"]}`
	for _, tc := range []struct {
		name   string
		body   string
		length int64
		status int
	}{
		{"Content-Length over", big, int64(len(big)), 413},
		{"chunked over", big, -1, 413},
		{"chunked under", small, -1, 200},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
		r.ContentLength = tc.length
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status || (tc.status == 413 && !strings.Contains(w.Body.String(), `"code":-32014`)) {
			t.Errorf("%s: HTTP %d %s", tc.name, w.Code, w.Body)
		}
	}
}

// BenchmarkGuard measures the Guard's cost per request: the in-flight
// counter alone (the default) and with the per-client rate limit on.
func BenchmarkGuard(b *testing.B) {
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for _, tc := range []struct {
		name string
		opts jsonrpchttp.GuardOptions
	}{
		{"in-flight only", jsonrpchttp.GuardOptions{}},
		{"rate limited", jsonrpchttp.GuardOptions{RatePerSecond: 1e9, Burst: 1 << 30}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g := jsonrpchttp.NewGuard(next, tc.opts)
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
