package backend_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// rpcRequest is what a fake node decoded from one request.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Body   []byte          `json:"-"`
}

// fakeNode is a real HTTP server on 127.0.0.1 that plays a Hive node. It
// counts the requests it received and keeps their bodies.
type fakeNode struct {
	srv    *httptest.Server
	hits   atomic.Int64
	mu     sync.Mutex
	bodies [][]byte
	// release is closed when the test ends, to free handlers that hang.
	release chan struct{}
}

// handlerFunc answers one decoded request.
type handlerFunc func(n *fakeNode, w http.ResponseWriter, r *http.Request, req rpcRequest)

// newFakeNode starts a fake node with handler h; it stops when t ends.
func newFakeNode(t testing.TB, h handlerFunc) *fakeNode {
	t.Helper()
	n := &fakeNode{release: make(chan struct{})}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n.hits.Add(1)
		n.mu.Lock()
		n.bodies = append(n.bodies, body)
		n.mu.Unlock()
		var req rpcRequest
		_ = json.Unmarshal(body, &req)
		req.Body = body
		h(n, w, r, req)
	}))
	t.Cleanup(func() {
		close(n.release)
		n.srv.CloseClientConnections()
		n.srv.Close()
	})
	return n
}

// lastBody returns the body of the latest request.
func (n *fakeNode) lastBody() []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.bodies) == 0 {
		return nil
	}
	return n.bodies[len(n.bodies)-1]
}

// answer writes a JSON-RPC response with the given id and raw member.
func answer(w http.ResponseWriter, id json.RawMessage, member, raw string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"`+member+`":`+raw+`}`)
}

// resultHandler answers every request with result raw.
func resultHandler(raw string) handlerFunc {
	return func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		answer(w, req.ID, "result", raw)
	}
}

// hijack takes over the connection of w so a test can break it.
func hijack(t testing.TB, w http.ResponseWriter) net.Conn {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return nil
	}
	return conn
}

// newPool returns a pool over name -> node URL with the prober off.
func newPool(t testing.TB, opts backend.Options, urls map[string]string) *backend.Pool {
	t.Helper()
	opts.HealthInterval = 0
	p, err := backend.New(urls, opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("backend.New: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// refusedURL returns the URL of a 127.0.0.1 port nothing listens on.
func refusedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/"
}

// gatewayError asserts err is a gateway *jsonrpc.Error of kind want whose
// client-visible parts (message, data, JSON) reveal no address.
func gatewayError(t testing.TB, err error, want jsonrpc.Kind) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *jsonrpc.Error", err, err)
	}
	if e.Kind != want {
		t.Fatalf("kind = %q, want %q (error %v)", e.Kind, want, err)
	}
	visible := e.Message + string(e.Data) + string(e.AppendJSON(nil))
	for _, leak := range []string{"127.0.0.1", "localhost", "http://", "[::1]"} {
		if strings.Contains(visible, leak) {
			t.Errorf("client-visible error %q contains %q", visible, leak)
		}
	}
	return e
}

// mustJSONEqualBytes fails unless got is exactly want.
func mustBytes(t testing.TB, what string, got []byte, want string) {
	t.Helper()
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}
