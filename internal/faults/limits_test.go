package faults_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/faults"
)

// limitsGateway is a gateway over one healthy echo backend with the given
// limits section lines ("" for the defaults).
func limitsGateway(t *testing.T, limits string, opts faults.Options) (*gw, *faults.Server) {
	t.Helper()
	s := newServer(t, faults.Healthy, opts)
	extra := "timeouts:\n  hived: 5\n"
	if limits != "" {
		extra += "limits:\n" + limits
	}
	return startGateway(t, configYAML(map[string]string{"hived": s.URL}, extra), faults.GatewayOptions{}), s
}

// nested returns params nested depth levels deep: [[[…1…]]].
func nested(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

func batch(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = call(strconv.Itoa(i), "hived.test_api.get", `[`+strconv.Itoa(i)+`]`)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestRequestLimits shows that max_body_bytes, max_batch_size,
// max_json_depth and max_response_bytes each change what the gateway
// accepts: the same request passes under the default and is refused with
// the documented error under a smaller configured limit.
func TestRequestLimits(t *testing.T) {
	t.Parallel()
	bigParams := `["` + strings.Repeat("x", 3000) + `"]`
	cases := []struct {
		name, limits, body string
		code, status       int
	}{
		{"max_body_bytes", "  max_body_bytes: 2048\n", call("1", "hived.test_api.get", bigParams), -32014, 413},
		{"max_batch_size", "  max_batch_size: 3\n", batch(4), -32013, 200},
		{"max_json_depth", "  max_json_depth: 8\n", call("1", "hived.test_api.get", nested(10)), -32014, 413},
		{"max_response_bytes", "  max_response_bytes: 2048\n", call("1", "hived.test_api.get", bigParams), -32019, 502},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			def, _ := limitsGateway(t, "", faults.Options{})
			r := def.post(t, tc.body)
			if r.status != http.StatusOK || strings.Contains(string(r.body), `"error"`) {
				t.Fatalf("default limits: HTTP %d %.200s", r.status, r.body)
			}
			lim, _ := limitsGateway(t, tc.limits, faults.Options{})
			r = lim.post(t, tc.body)
			got := r.single(t)
			if got.Error == nil || got.Error.Code != tc.code || r.status != tc.status {
				t.Errorf("with %s: HTTP %d %.300s, want HTTP %d code %d", strings.TrimSpace(tc.limits), r.status, r.body, tc.status, tc.code)
			}
		})
	}
}

// TestMaxInFlight shows max_in_flight: with two requests being served, a
// third is refused at once with -32018 and HTTP 503 (not queued); health
// checks still answer; once one finishes, requests pass again.
func TestMaxInFlight(t *testing.T) {
	t.Parallel()
	g, s := limitsGateway(t, "  max_in_flight: 2\n", faults.Options{})
	s.Set(faults.SlowHeaders)
	held := make(chan reply, 2)
	for i := range 2 {
		go func() { held <- g.post(t, call(strconv.Itoa(i), "hived.test_api.slow", `[`+strconv.Itoa(i)+`]`)) }()
	}
	waitFor(t, "two requests in flight", func() bool { return s.Stalled() == 2 })
	r := g.post(t, call("3", "hived.test_api.get", `[3]`))
	got := r.single(t)
	if got.Error == nil || got.Error.Code != -32018 || r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("third request: HTTP %d Retry-After %q %s, want 503 -32018", r.status, r.header.Get("Retry-After"), r.body)
	}
	if resp, err := g.client.Get(g.srv.URL); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET / while at the limit: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	s.Set(faults.Healthy)
	s.Release()
	for range 2 {
		if r := <-held; r.status != http.StatusOK {
			t.Errorf("held request: HTTP %d %s", r.status, r.body)
		}
	}
	if r := g.post(t, call("4", "hived.test_api.get", `[4]`)); r.status != http.StatusOK {
		t.Errorf("after the limit cleared: HTTP %d %s", r.status, r.body)
	}
}

// TestRateLimit shows rate_limit_per_second, rate_limit_burst,
// trusted_proxy_header and trusted_proxies: a client gets its burst and is
// then refused with -32017 and HTTP 429; a batch costs one token per
// element; the proxy header separates clients only when configured and
// only from a trusted peer.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	// A rate this low does not refill a token while the test runs.
	const slow = "  rate_limit_per_second: 0.001\n  rate_limit_burst: 3\n"
	limited := func(r reply) bool {
		got := r.single(t)
		return r.status == http.StatusTooManyRequests && got.Error != nil && got.Error.Code == -32017
	}
	t.Run("burst then refused", func(t *testing.T) {
		t.Parallel()
		g, _ := limitsGateway(t, slow, faults.Options{})
		for i := range 3 {
			if r := g.post(t, call("1", "hived.test_api.get", `[1]`)); r.status != http.StatusOK {
				t.Fatalf("call %d within the burst: HTTP %d %s", i, r.status, r.body)
			}
		}
		r := g.post(t, call("1", "hived.test_api.get", `[1]`))
		if !limited(r) || r.header.Get("Retry-After") == "" {
			t.Errorf("over the burst: HTTP %d %s", r.status, r.body)
		}
	})
	t.Run("off by default", func(t *testing.T) {
		t.Parallel()
		g, _ := limitsGateway(t, "", faults.Options{})
		for i := range 20 {
			if r := g.post(t, call("1", "hived.test_api.get", `[1]`)); r.status != http.StatusOK {
				t.Fatalf("call %d: HTTP %d %s", i, r.status, r.body)
			}
		}
	})
	t.Run("a batch costs its elements", func(t *testing.T) {
		t.Parallel()
		g, _ := limitsGateway(t, slow, faults.Options{})
		if r := g.post(t, batch(2)); r.status != http.StatusOK {
			t.Fatalf("batch of 2: HTTP %d %s", r.status, r.body)
		}
		if r := g.post(t, batch(2)); !limited(r) {
			t.Errorf("second batch of 2 with 1 token left: HTTP %d %s", r.status, r.body)
		}
	})
	xff := func(g *gw, ip string) reply {
		return g.post(t, call("1", "hived.test_api.get", `[1]`), "X-Forwarded-For", "203.0.113.9, "+ip)
	}
	t.Run("trusted proxy header separates clients", func(t *testing.T) {
		t.Parallel()
		g, _ := limitsGateway(t, slow+"  trusted_proxy_header: X-Forwarded-For\n", faults.Options{})
		for range 3 {
			xff(g, "198.51.100.1")
		}
		if r := xff(g, "198.51.100.1"); !limited(r) {
			t.Errorf("client 1 over its burst: HTTP %d %s", r.status, r.body)
		}
		if r := xff(g, "198.51.100.2"); r.status != http.StatusOK {
			t.Errorf("client 2: HTTP %d %s", r.status, r.body)
		}
	})
	t.Run("header ignored unless configured", func(t *testing.T) {
		t.Parallel()
		g, _ := limitsGateway(t, slow, faults.Options{})
		for range 3 {
			xff(g, "198.51.100.1")
		}
		if r := xff(g, "198.51.100.2"); !limited(r) {
			t.Errorf("a forged header bought a new bucket: HTTP %d %s", r.status, r.body)
		}
	})
	t.Run("header ignored from an untrusted peer", func(t *testing.T) {
		t.Parallel()
		g, _ := limitsGateway(t, slow+"  trusted_proxy_header: X-Forwarded-For\n  trusted_proxies: [10.0.0.0/8]\n", faults.Options{})
		for range 3 {
			xff(g, "198.51.100.1")
		}
		if r := xff(g, "198.51.100.2"); !limited(r) {
			t.Errorf("a loopback peer outside trusted_proxies chose its address: HTTP %d %s", r.status, r.body)
		}
	})
}

// TestConnectionLimits shows the http.Server limits taken from the config
// (max_header_bytes, read_header_timeout, read_timeout, write_timeout,
// idle_timeout): each makes the server refuse or close a connection that
// the defaults would keep.
func TestConnectionLimits(t *testing.T) {
	t.Parallel()
	// readAll reads what the server sends until it closes the connection
	// (or the test's bound passes, which fails).
	readAll := func(t *testing.T, conn net.Conn) string {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(hangGuard))
		b, err := io.ReadAll(conn)
		var ne net.Error
		if err != nil && (!isNetErr(err, &ne) || ne.Timeout()) {
			t.Fatalf("the server did not close the connection: %v (read %q)", err, b)
		}
		return string(b)
	}
	dial := func(t *testing.T, limits string, opts faults.Options) (net.Conn, *faults.Server) {
		t.Helper()
		g, s := limitsGateway(t, limits, opts)
		addr := g.srv.Listener.Addr().String()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return conn, s
	}
	body := call("1", "hived.test_api.get", `[1]`)
	t.Run("max_header_bytes", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			limits string
			status int
		}{{"", 200}, {"  max_header_bytes: 1024\n", 431}} {
			conn, _ := dial(t, tc.limits, faults.Options{})
			req, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Host = "hivegate"
			req.Header.Set("X-Padding", strings.Repeat("p", 8<<10))
			req.Close = true
			if err := req.Write(conn); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), req)
			if err != nil {
				t.Fatalf("limits %q: %v", tc.limits, err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("limits %q: 8 KiB of headers: HTTP %d, want %d", tc.limits, resp.StatusCode, tc.status)
			}
		}
	})
	t.Run("read_header_timeout", func(t *testing.T) {
		t.Parallel()
		conn, _ := dial(t, "  read_header_timeout: 1\n", faults.Options{})
		_, _ = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: hivegate\r\n") // and never the rest
		readAll(t, conn)
	})
	t.Run("read_timeout", func(t *testing.T) {
		t.Parallel()
		conn, s := dial(t, "  read_timeout: 1\n", faults.Options{})
		_, _ = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: hivegate\r\nContent-Length: 500\r\n\r\n"+body[:10])
		if out := readAll(t, conn); strings.Contains(out, `"result"`) {
			t.Errorf("a request whose body never came was served: %q", out)
		}
		if s.Calls() != 0 {
			t.Errorf("%d upstream calls for an unread body", s.Calls())
		}
	})
	t.Run("write_timeout", func(t *testing.T) {
		t.Parallel()
		conn, s := dial(t, "  write_timeout: 1\n", faults.Options{Stall: 2 * time.Second})
		s.Set(faults.SlowHeaders) // answers after 2 s, within the route's 5 s timeout
		_, _ = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: hivegate\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		if out := readAll(t, conn); out != "" {
			t.Errorf("a response written after write_timeout reached the client: %q", out)
		}
	})
	t.Run("idle_timeout", func(t *testing.T) {
		t.Parallel()
		conn, _ := dial(t, "  idle_timeout: 1\n", faults.Options{})
		_, _ = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: hivegate\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("first request: HTTP %d close=%v", resp.StatusCode, resp.Close)
		}
		// The kept-alive connection is closed once idle for 1 s.
		_ = conn.SetReadDeadline(time.Now().Add(hangGuard))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("idle connection: %v, want EOF", err)
		}
	})
}

func isNetErr(err error, ne *net.Error) bool {
	var e net.Error
	ok := errors.As(err, &e)
	if ok {
		*ne = e
	}
	return ok
}
