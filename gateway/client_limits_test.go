package gateway_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// limitConns is startGuarded's listener wrapper of hivegate serve.
var limitConns = func(ln net.Listener, l config.Limits) net.Listener { return gateway.LimitClientConns(ln, l, nil) }

// getOn sends GET / on c and reports whether an answer came back.
func getOn(c net.Conn) bool {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: hivegate\r\n\r\n"); err != nil {
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return true
}

// TestMaxConnsPerClient shows limits.max_conns_per_client: a peer holding
// its share of open connections has its next one closed unanswered, while
// another peer connects; once one of its connections is closed it may
// open another. A peer in trusted_proxies (loopback, by default) is not
// capped: a reverse proxy stands for many clients.
func TestMaxConnsPerClient(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, limits string
		capped       bool
	}{
		{"loopback is a client", "  max_conns_per_client: 3\n  trusted_proxies: [192.0.2.1]\n", true},
		{"loopback is a trusted proxy (default)", "  max_conns_per_client: 3\n", false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := startGuarded(t, tc.limits, 0, limitConns)
			dial := func(src string) net.Conn {
				t.Helper()
				c, err := dialerFrom(src).Dial("tcp", g.addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.Close() })
				return c
			}
			var held []net.Conn
			for i := range 3 {
				c := dial("127.0.0.1")
				if !getOn(c) {
					t.Fatalf("connection %d within the cap not served", i+1)
				}
				held = append(held, c)
			}
			if served := getOn(dial("127.0.0.1")); served == tc.capped {
				t.Fatalf("fourth connection from one peer served: %v, want %v", served, !tc.capped)
			}
			if !getOn(dial("127.0.0.2")) {
				t.Fatal("another peer's connection not served")
			}
			_ = held[0].Close()
			waitFor(t, "the closed connection's place to be given back", func() bool { return getOn(dial("127.0.0.1")) })
		})
	}
}

// TestMaxConcurrentStreams shows limits.max_concurrent_streams: the
// SETTINGS an h2c client receives on connecting.
func TestMaxConcurrentStreams(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		limits string
		want   uint32
	}{
		{"  max_concurrent_streams: 2\n", 2},
		{"  max_in_flight: 100\n", 100},
	}
	for _, tc := range testCases {
		t.Run(fmt.Sprint(tc.want), func(t *testing.T) {
			t.Parallel()
			g := startGuarded(t, tc.limits, 0, nil)
			c, err := net.Dial("tcp", g.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
				t.Fatal(err)
			}
			fr := http2.NewFramer(c, c)
			if err := fr.WriteSettings(); err != nil {
				t.Fatal(err)
			}
			for {
				f, err := fr.ReadFrame()
				if err != nil {
					t.Fatal(err)
				}
				if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
					if v, ok := sf.Value(http2.SettingMaxConcurrentStreams); !ok || v != tc.want {
						t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS %d (sent: %v), want %d", v, ok, tc.want)
					}
					return
				}
			}
		})
	}
}

// TestMaxInFlightPerClient shows limits.max_in_flight_per_client: with
// one call of a client address in flight (the node takes a second), its
// next call is refused at once with -32017 and HTTP 429 when the key is 1,
// and served with the default (max_in_flight/8 = 8); another address is
// served either way.
func TestMaxInFlightPerClient(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, limits string
		status       int
	}{
		{"1", "  max_in_flight: 64\n  max_in_flight_per_client: 1\n  trusted_proxies: [192.0.2.1]\n", http.StatusTooManyRequests},
		{"default", "  max_in_flight: 64\n  trusted_proxies: [192.0.2.1]\n", http.StatusOK},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := startGuarded(t, tc.limits, time.Second, nil)
			call := func(src, param string) (int, string) {
				c := h1Client(src)
				defer c.CloseIdleConnections()
				resp, err := c.Post(g.url, "application/json", strings.NewReader(
					`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_config","params":["`+param+`"]}`))
				if err != nil {
					t.Error(err)
					return 0, ""
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			first := make(chan int, 1)
			go func() { s, _ := call("127.0.0.1", "first"); first <- s }()
			waitFor(t, "the first call at the node", func() bool { return g.node.CallsOf("condenser_api.get_config") > 0 })
			status, body := call("127.0.0.1", "second")
			if status != tc.status || (status == http.StatusTooManyRequests && !strings.Contains(body, `"code":-32017`)) {
				t.Errorf("second call of the address: HTTP %d %s, want %d", status, body, tc.status)
			}
			if status, body := call("127.0.0.2", "other"); status != http.StatusOK {
				t.Errorf("another address: HTTP %d %s", status, body)
			}
			if s := <-first; s != http.StatusOK {
				t.Errorf("first call: HTTP %d", s)
			}
		})
	}
}

// TestBodyTimeout shows limits.body_timeout: a body that takes 1.5 s to
// arrive is answered 408 (-32700) with body_timeout: 1, and served with
// the default (10 s).
func TestBodyTimeout(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, limits string
		status       int
	}{
		{"1", "  body_timeout: 1\n", http.StatusRequestTimeout},
		{"default", "  max_in_flight: 100\n", http.StatusOK},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := startGuarded(t, tc.limits, 0, nil)
			c, err := net.Dial("tcp", g.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			body := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_config","params":[]}`
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: hivegate\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:20]); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond)
			_, _ = io.WriteString(c, body[20:]) // fails when the connection is closed
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || (tc.status == http.StatusRequestTimeout && !strings.Contains(string(b), `"code":-32700`)) {
				t.Errorf("HTTP %d %s, want %d", resp.StatusCode, b, tc.status)
			}
		})
	}
}

// TestSlowBodiesFromACappedClient runs the slow-body attacks from an
// address that is a client (not a trusted proxy), through the listener of
// hivegate serve: the address's connections beyond max_conns_per_client
// (default 256) are closed, its requests beyond its share of max_in_flight
// refused at once, and good clients from other addresses are answered.
func TestSlowBodiesFromACappedClient(t *testing.T) {
	testCases := []struct {
		name   string
		attack func(t *testing.T, g *guardedGateway) func()
	}{
		{"HTTP/1.1", func(t *testing.T, g *guardedGateway) func() {
			return slowBodiesH1(t, g.addr, "127.0.0.1", attackConns)
		}},
		{"h2c", func(t *testing.T, g *guardedGateway) func() {
			return slowBodiesH2C(t, g.url, "127.0.0.1", attackH2Conns, attackStreams)
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			done := leakCheck(t)
			g := startGuarded(t, "  max_in_flight: 8\n  trusted_proxies: [192.0.2.1]\n", 0, limitConns)
			stop := tc.attack(t, g)
			time.Sleep(300 * time.Millisecond)
			var good []*http.Client
			for i := range goodWorkers {
				if i%2 == 0 {
					good = append(good, h1Client(fmt.Sprintf("127.0.0.%d", 2+i)))
				} else {
					good = append(good, h2cClient(fmt.Sprintf("127.0.0.%d", 2+i)))
				}
			}
			lat, failed := goodLoad(g.url, good)
			stop()
			g.stop()
			checkGood(t, lat, failed)
			done()
		})
	}
}
