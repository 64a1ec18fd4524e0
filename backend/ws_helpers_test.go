package backend_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"

	"github.com/hivegate/hivegate/backend"
)

// wsAction is what a WebSocket node does with one call.
type wsAction int

const (
	wsAnswer      wsAction = iota // write the reply
	wsIgnore                      // never answer
	wsDrop                        // close the connection without answering
	wsAnswerLines                 // write each line of the reply as a message of its own
)

// wsHandler answers one call: the message to write back and what to do.
type wsHandler func(conn int64, req rpcRequest) (reply string, act wsAction)

// wsNode is a real WebSocket server on 127.0.0.1 speaking JSON-RPC, as
// hived's WebSocket endpoint does: each call is a text message, answered
// with one message carrying its id. Every call is served in a goroutine of
// its own, so answers may come back in any order.
type wsNode struct {
	srv     *httptest.Server
	conns   atomic.Int64 // connections accepted
	calls   atomic.Int64
	written atomic.Int64 // answers written (wsAnswer)
	// refuse answers the opening handshake with HTTP 503 while set.
	refuse atomic.Bool
	mu     sync.Mutex
	open   map[*websocket.Conn]bool
}

// newWSNode starts a WebSocket node; it stops when t ends.
func newWSNode(t testing.TB, h wsHandler) *wsNode {
	t.Helper()
	n := &wsNode{open: map[*websocket.Conn]bool{}}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.refuse.Load() {
			http.Error(w, "restarting", http.StatusServiceUnavailable)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.SetReadLimit(-1)
		id := n.conns.Add(1)
		n.mu.Lock()
		n.open[c] = true
		n.mu.Unlock()
		defer func() {
			n.mu.Lock()
			delete(n.open, c)
			n.mu.Unlock()
			_ = c.CloseNow()
		}()
		ctx := r.Context()
		var wg sync.WaitGroup
		defer wg.Wait()
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			n.calls.Add(1)
			var req rpcRequest
			_ = json.Unmarshal(msg, &req)
			req.Body = msg
			wg.Go(func() {
				reply, act := h(id, req)
				switch act {
				case wsAnswer:
					if c.Write(ctx, websocket.MessageText, []byte(reply)) == nil {
						n.written.Add(1)
					}
				case wsAnswerLines:
					for line := range strings.SplitSeq(reply, "\n") {
						if c.Write(ctx, websocket.MessageText, []byte(line)) != nil {
							return
						}
					}
				case wsDrop:
					_ = c.CloseNow()
				}
			})
		}
	}))
	t.Cleanup(n.close)
	return n
}

// url is the node's ws:// URL.
func (n *wsNode) url() string { return "ws" + strings.TrimPrefix(n.srv.URL, "http") }

// dropAll closes every open connection; the node goes on listening.
func (n *wsNode) dropAll() {
	n.mu.Lock()
	for c := range n.open {
		_ = c.CloseNow()
	}
	n.mu.Unlock()
}

// close stops the node, dropping every connection.
func (n *wsNode) close() {
	n.dropAll()
	n.srv.Close()
}

// wsResult answers every call with {"echo": params, "conn": N}.
func wsResult(conn int64, req rpcRequest) (string, wsAction) {
	return `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"echo":` + orNull(req.Params) + `}}`, wsAnswer
}

func orNull(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}

// newNodesPool returns a pool over name -> node URLs with the prober off.
func newNodesPool(t testing.TB, opts backend.Options, nodes map[string][]string) *backend.Pool {
	t.Helper()
	opts.HealthInterval = 0
	p, err := backend.NewNodes(nodes, opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("backend.NewNodes: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// callCtx is a background context for tests.
var callCtx = context.Background()
