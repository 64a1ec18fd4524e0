package backend_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// connStats counts the connections a server accepted and the most that
// were open at once (http.Server.ConnState).
type connStats struct {
	mu      sync.Mutex
	open    int
	maxOpen int
	total   int
}

func (s *connStats) hook(_ net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch state {
	case http.StateNew:
		s.total++
		s.open++
		s.maxOpen = max(s.maxOpen, s.open)
	case http.StateClosed, http.StateHijacked:
		s.open--
	}
}

// openNow returns the connections open now.
func (s *connStats) openNow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// waitFor polls cond until it holds, failing the test after 5s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// counts returns the connections accepted so far and the most open at once.
func (s *connStats) counts() (total, maxOpen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total, s.maxOpen
}

// idOf returns the id member of a JSON-RPC request body.
func idOf(body []byte) json.RawMessage {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &req)
	return req.ID
}

// methodOf returns the method member of a JSON-RPC request body.
func methodOf(body []byte) string {
	var req struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &req)
	return req.Method
}

// newCountedServer starts an HTTP (or, with useTLS, HTTPS) server on
// 127.0.0.1 whose connections are counted. h gets the request's body.
func newCountedServer(t testing.TB, useTLS bool, h func(w http.ResponseWriter, r *http.Request, body []byte)) (*httptest.Server, *connStats) {
	t.Helper()
	stats := &connStats{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		h(w, r, body)
	}))
	srv.Config.ConnState = stats.hook
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused TLS handshakes are expected
	if useTLS {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv, stats
}

// answerResult answers a JSON-RPC request body with result.
func answerResult(result string) func(w http.ResponseWriter, r *http.Request, body []byte) {
	return func(w http.ResponseWriter, _ *http.Request, body []byte) {
		answer(w, idOf(body), "result", result)
	}
}

// trusting returns a TLS configuration that trusts srv's certificate.
func trusting(srv *httptest.Server) *tls.Config {
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: roots}
}

// rawNode is a TCP server on 127.0.0.1 writing answers byte for byte, for
// what net/http's server would not write. It reads each request with
// http.ReadRequest and writes what its script returns.
type rawNode struct {
	url      string
	accepted atomic.Int64
	requests atomic.Int64
	closed   atomic.Int64 // connections the node has closed
}

// rawScript returns the bytes answering request number n (1-based, over
// all connections) with JSON-RPC id, and whether to close the connection
// afterwards (without saying so unless the answer does).
type rawScript func(n int64, id string) (answer string, closeAfter bool)

func newRawNode(t testing.TB, script rawScript) *rawNode {
	t.Helper()
	n := &rawNode{}
	n.url = serveRaw(t, func(conn net.Conn) {
		n.accepted.Add(1)
		n.serve(conn, script)
	})
	return n
}

func (n *rawNode) serve(conn net.Conn, script rawScript) {
	defer func() {
		_ = conn.Close()
		n.closed.Add(1)
	}()
	br := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return
		}
		a, closeAfter := script(n.requests.Add(1), string(idOf(body)))
		if _, err := io.WriteString(conn, a); err != nil || closeAfter {
			return
		}
	}
}
