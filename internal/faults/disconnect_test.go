package faults_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/internal/faults"
)

// rawPost sends a JSON-RPC request on a fresh TCP connection and returns
// the connection without reading the answer, so that a test can hang up.
func rawPost(t *testing.T, addr, body string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: hivegate\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestClientDisconnectCancelsUpstream shows that a client that hangs up
// cancels the upstream request no other client waits for, on every path:
// a NO_CACHE route, a broadcast and a cacheable (coalesced) route.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, method, params string }{
		{"NO_CACHE route", "nocache.test_api.wait", `[1]`},
		{"broadcast", "condenser_api.broadcast_transaction", `[{"operations":[]}]`},
		{"cacheable route", "cached.test_api.wait", `[1]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, faults.SlowHeaders, faults.Options{})
			extra := "  appbase: nocache\nttls:\n  nocache: NO_CACHE\n  cached: 60\n  appbase: 60\n"
			yaml := configYAML(map[string]string{"nocache": s.URL, "cached": s.URL}, extra)
			g := startGateway(t, yaml, faults.GatewayOptions{})
			conn := rawPost(t, g.srv.Listener.Addr().String(), call("1", tc.method, tc.params))
			waitFor(t, "the request to reach the backend", func() bool { return s.Stalled() == 1 })
			_ = conn.Close()
			waitFor(t, "the upstream request to be cancelled", func() bool { return s.Abandoned() == 1 })
			waitFor(t, "the guard to count no request in flight", func() bool { return g.Guard.InFlight() == 0 })
		})
	}
}

// TestClientDisconnectCancelsUpstreamBatch shows the same for the calls of
// a client batch sent upstream as one JSON-RPC batch: when the client hangs
// up, the upstream batch is cancelled, for calls not cached and cached ones.
func TestClientDisconnectCancelsUpstreamBatch(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"nocache.test_api.wait", "cached.test_api.wait"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, faults.SlowHeaders, faults.Options{})
			extra := "ttls:\n  nocache: NO_CACHE\n  cached: 60\ntimeouts:\n  nocache: 30\n  cached: 30\n"
			g := startGateway(t, configYAML(map[string]string{"nocache": s.URL, "cached": s.URL}, extra), faults.GatewayOptions{})
			body := "[" + call("1", method, `[1]`) + "," + call("2", method, `[2]`) + "]"
			conn := rawPost(t, g.srv.Listener.Addr().String(), body)
			waitFor(t, "the batch to reach the backend", func() bool { return s.Stalled() == 1 && s.Calls() == 2 })
			_ = conn.Close()
			waitFor(t, "the upstream batch to be cancelled", func() bool { return s.Abandoned() == 1 })
			waitFor(t, "the guard to count no request in flight", func() bool { return g.Guard.InFlight() == 0 })
			if n := s.Batches(); n != 1 {
				t.Errorf("%d upstream batches, want 1", n)
			}
		})
	}
}

// mainServer is the gateway served as cmd/hivegate serves it: the
// production http.Server (gateway.NewHTTPServer) with the connection limits
// of the gateway's config, on 127.0.0.1.
type mainServer struct {
	*http.Server
	Listener net.Listener
	URL      string
}

// serveMain starts g's mainServer; it is closed when the test ends.
func serveMain(t testing.TB, g *faults.Gateway) *mainServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := faults.MainServer(g.Handler, g.Config.Limits)
	go func() { _ = hs.Serve(gateway.KeepAccepting(ln, nil)) }()
	t.Cleanup(func() { _ = hs.Close() })
	return &mainServer{Server: hs, Listener: ln, URL: "http://" + ln.Addr().String()}
}

// TestGracefulShutdown shows what SIGTERM does to hivegate (cmd/hivegate
// calls http.Server.Shutdown): a request in flight completes with its
// answer, and new connections are refused from the start of the drain.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	s := newServer(t, faults.SlowHeaders, faults.Options{})
	g := startGateway(t, configYAML(map[string]string{"hived": s.URL}, "timeouts:\n  hived: 30\n"), faults.GatewayOptions{})
	hs, addr := g.srv, g.srv.Listener.Addr().String()
	inFlight := make(chan reply, 1)
	go func() {
		resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader(call("1", "hived.test_api.slow", `[1]`)))
		if err != nil {
			t.Errorf("in-flight request: %v", err)
			inFlight <- reply{}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		inFlight <- reply{status: resp.StatusCode, body: b}
	}()
	waitFor(t, "the request to reach the backend", func() bool { return s.Stalled() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	shutdown := make(chan error, 1)
	go func() { shutdown <- hs.Shutdown(ctx) }()
	waitFor(t, "new connections to be refused", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
			return false
		}
		return true
	})
	select {
	case err := <-shutdown:
		t.Fatalf("Shutdown returned (%v) with a request in flight", err)
	default:
	}
	s.Release()
	r := <-inFlight
	if got := r.single(t); r.status != http.StatusOK || got.Error != nil || string(got.Result) != echo("test_api.slow", `[1]`) {
		t.Errorf("in-flight request: HTTP %d %s", r.status, r.body)
	}
	if err := <-shutdown; err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Shutdown: %v", err)
	}
}
