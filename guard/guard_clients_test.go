package guard_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/guard"
)

// holdHandler answers 200 "ok", after release is closed for a request
// with the header X-Hold.
type holdHandler struct {
	entered chan struct{}
	release chan struct{}
}

func (h *holdHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Hold") != "" {
		h.entered <- struct{}{}
		<-h.release
	}
	_, _ = io.WriteString(w, "ok")
}

// TestGuardPerClientCap shows MaxInFlightPerClient: with one request of
// a client held, its next one is refused at once (429, -32017 or a
// Connect resource_exhausted error) while other clients are served; a
// client in the trusted proxies' ranges is not capped; behind a trusted
// proxy the cap counts the client its header names.
func TestGuardPerClientCap(t *testing.T) {
	t.Parallel()
	xff := clientip.Options{TrustedProxyHeader: "X-Forwarded-For"}
	testCases := []struct {
		name       string
		ip         clientip.Options
		held, next [2]string // remote address and X-Forwarded-For
		path       string
		status     int
		bodyPrefix string
	}{
		{"same address refused", clientip.Options{}, [2]string{"198.51.100.7:1"}, [2]string{"198.51.100.7:2"}, "/", 429,
			`{"jsonrpc":"2.0","error":{"code":-32017,"message":"Rate limited: 1 requests at once from one client address; retry later"`},
		{"same address, Connect path", clientip.Options{}, [2]string{"198.51.100.7:1"}, [2]string{"198.51.100.7:2"},
			"/hivegate.v1.JsonRpcService/Call", 429, `{"code":"resource_exhausted","message":"Rate limited: 1 requests at once`},
		{"same IPv6 /64 refused", clientip.Options{}, [2]string{"[2001:db8:1:2::1]:1"}, [2]string{"[2001:db8:1:2::99]:2"}, "/", 429, `{"jsonrpc":"2.0","error":{"code":-32017`},
		{"other address served", clientip.Options{}, [2]string{"198.51.100.7:1"}, [2]string{"198.51.100.8:1"}, "/", 200, "ok"},
		{"trusted range not capped", clientip.Options{}, [2]string{"10.0.0.5:1"}, [2]string{"10.0.0.5:2"}, "/", 200, "ok"},
		{"proxy: same client refused", xff, [2]string{"127.0.0.1:1", "203.0.113.9"}, [2]string{"127.0.0.1:2", "203.0.113.9"}, "/", 429, `{"jsonrpc":"2.0","error":{"code":-32017`},
		{"proxy: other client served", xff, [2]string{"127.0.0.1:1", "203.0.113.9"}, [2]string{"127.0.0.1:2", "203.0.113.10"}, "/", 200, "ok"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := &holdHandler{entered: make(chan struct{}, 1), release: make(chan struct{})}
			g := guard.New(h, guard.Options{MaxInFlightPerClient: 1, ClientIP: tc.ip})
			request := func(from [2]string, hold bool) *http.Request {
				r := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(`{}`))
				r.RemoteAddr = from[0]
				if from[1] != "" {
					r.Header.Set("X-Forwarded-For", from[1])
				}
				if hold {
					r.Header.Set("X-Hold", "1")
				}
				return r
			}
			done := make(chan struct{})
			go func() { defer close(done); g.ServeHTTP(httptest.NewRecorder(), request(tc.held, true)) }()
			<-h.entered
			w := httptest.NewRecorder()
			g.ServeHTTP(w, request(tc.next, false))
			close(h.release)
			<-done
			if w.Code != tc.status || !strings.HasPrefix(w.Body.String(), tc.bodyPrefix) {
				t.Errorf("HTTP %d %s, want %d %s…", w.Code, w.Body, tc.status, tc.bodyPrefix)
			}
			if tc.status == 429 && (w.Header().Get("Retry-After") != "1" || w.Header().Get("Connection") != "close") {
				t.Errorf("Retry-After %q, Connection %q (the body is left unread: close)", w.Header().Get("Retry-After"), w.Header().Get("Connection"))
			}
			// Every place is given back.
			w = httptest.NewRecorder()
			g.ServeHTTP(w, request(tc.next, false))
			if w.Code != http.StatusOK {
				t.Errorf("after the held request: HTTP %d %s", w.Code, w.Body)
			}
		})
	}
}

// TestGuardBodyLimit shows that the Guard refuses a body over
// MaxBodyBytes itself, with or without a Content-Length, as Handler does,
// on JSON-RPC and Connect paths; the Connect paths get 5 bytes more (the
// gRPC envelope). The handler behind is never reached.
func TestGuardBodyLimit(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, path string
		size       int
		length     bool // send a Content-Length
		status     int
		body       string
	}{
		{"JSON-RPC, Content-Length over", "/", 1025, true, 413, `{"jsonrpc":"2.0","error":{"code":-32014,"message":"Request too large: the body exceeds 1024 bytes"`},
		{"JSON-RPC, chunked over", "/", 1025, false, 413, `{"jsonrpc":"2.0","error":{"code":-32014,"message":"Request too large: the body exceeds 1024 bytes"`},
		{"JSON-RPC, at the limit", "/", 1024, false, 200, "1024"},
		{"Connect, Content-Length over", "/hivegate.v1.JsonRpcService/Call", 1030, true, 413, `{"code":"resource_exhausted","message":"Request too large: the body exceeds 1024 bytes"}`},
		{"Connect, chunked over", "/hivegate.v1.JsonRpcService/Call", 1030, false, 413, `{"code":"resource_exhausted"`},
		{"Connect, limit and envelope", "/hivegate.v1.JsonRpcService/Call", 1029, true, 200, "1029"},
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil || int64(len(b)) != r.ContentLength {
			http.Error(w, "body", http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, strconv.Itoa(len(b)))
	})
	g := guard.New(next, guard.Options{MaxBodyBytes: 1024})
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader = strings.NewReader(strings.Repeat("x", tc.size))
			if !tc.length {
				body = io.MultiReader(body) // no length: chunked
			}
			resp, err := http.Post(srv.URL+tc.path, "application/json", body)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.HasPrefix(string(b), tc.body) {
				t.Errorf("HTTP %d %s, want %d %s…", resp.StatusCode, b, tc.status, tc.body)
			}
		})
	}
}

// TestGuardBodyTimeout shows BodyTimeout: a body that has not arrived in
// time is answered 408 (-32700 for JSON-RPC) and its connection closed;
// the handler behind is never reached. A body that arrives in time is
// served.
func TestGuardBodyTimeout(t *testing.T) {
	t.Parallel()
	var reached sync.WaitGroup
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "served")
	})
	g := guard.New(next, guard.Options{BodyTimeout: 300 * time.Millisecond})
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !resp.Close ||
		!strings.HasPrefix(string(b), `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the body did not arrive within 300ms"`) {
		t.Errorf("HTTP %d (close %v) %s", resp.StatusCode, resp.Close, b)
	}
	if _, err := br.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("the connection stays open after the timeout: %v", err)
	}
	// In time: served, and a call longer than BodyTimeout is not cut.
	resp, err = http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "served" {
		t.Errorf("a body in time: HTTP %d %s", resp.StatusCode, b)
	}
}

// TestGuardStreamPathsNotReadAhead shows StreamPaths: a streaming
// procedure's handler gets the body as it arrives (it answers the first
// message before the client sends the next), and BodyTimeout still bounds
// how long the client may keep sending.
func TestGuardStreamPathsNotReadAhead(t *testing.T) {
	t.Parallel()
	readErr := make(chan error, 1)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		br := bufio.NewReader(r.Body)
		line, err := br.ReadString('\n')
		if err != nil {
			readErr <- err
			return
		}
		_, _ = io.WriteString(w, line)
		http.NewResponseController(w).Flush()
		_, err = br.ReadString('\n') // the client sends nothing more
		readErr <- err
	})
	g := guard.New(next, guard.Options{BodyTimeout: 300 * time.Millisecond, StreamPaths: []string{"/stream.v1.S/"}})
	srv := httptest.NewUnstartedServer(g)
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	srv.Config.Protocols = &p
	srv.Start()
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{Protocols: &p}}
	t.Cleanup(client.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/stream.v1.S/Chat", pr)
	go func() { _, _ = io.WriteString(pw, "first\n") }()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("first answer %q, %v", line, err)
	}
	select {
	case err := <-readErr:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the stream's next read: %v, want the body deadline", err)
		}
	case <-ctx.Done():
		t.Error("BodyTimeout does not bound a stream")
	}
}

// TestGuardPlaceFreedWhenAnswerStarts shows that a request gives its
// max_in_flight place back when its handler starts to answer, however
// long the answer then takes to send, and keeps its client's share until
// the handler returns.
func TestGuardPlaceFreedWhenAnswerStarts(t *testing.T) {
	t.Parallel()
	for _, start := range []string{"WriteHeader", "Write", "Flush"} {
		t.Run(start, func(t *testing.T) {
			t.Parallel()
			answering, release := make(chan struct{}), make(chan struct{})
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Hold") == "" {
					_, _ = io.WriteString(w, "ok")
					return
				}
				switch start {
				case "WriteHeader":
					w.WriteHeader(http.StatusOK)
				case "Write":
					_, _ = io.WriteString(w, "part")
				case "Flush":
					http.NewResponseController(w).Flush()
				}
				close(answering)
				<-release
			})
			g := guard.New(next, guard.Options{MaxInFlight: 1, MaxInFlightPerClient: 1})
			held := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
			held.Header.Set("X-Hold", "1")
			done := make(chan struct{})
			go func() { defer close(done); g.ServeHTTP(httptest.NewRecorder(), held) }()
			<-answering
			if n := g.InFlight(); n != 0 {
				t.Errorf("InFlight %d once the answer started, want 0", n)
			}
			other := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
			other.RemoteAddr = "198.51.100.9:1"
			w := httptest.NewRecorder()
			g.ServeHTTP(w, other)
			same := httptest.NewRecorder()
			g.ServeHTTP(same, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
			close(release)
			<-done
			if w.Code != http.StatusOK {
				t.Errorf("another client while an answer is sent: HTTP %d %s", w.Code, w.Body)
			}
			if same.Code != http.StatusTooManyRequests {
				t.Errorf("the same client while its answer is sent: HTTP %d, want 429 (its share is held)", same.Code)
			}
			if n := g.InFlight(); n != 0 {
				t.Errorf("InFlight %d at the end", n)
			}
		})
	}
}
