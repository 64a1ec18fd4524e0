package backend_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// resetMidBody promises a body, sends part of it and closes the connection.
func resetMidBody(t testing.TB, w http.ResponseWriter, id json.RawMessage) {
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	defer conn.Close()
	partial := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"blocks":[`
	_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"+partial)
}

// resetNow closes the connection with a TCP RST before answering.
func resetNow(t testing.TB, w http.ResponseWriter) {
	conn := hijack(t, w)
	if conn == nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func TestCallFailures(t *testing.T) {
	t.Parallel()
	big := `"` + strings.Repeat("x", 4096) + `"`
	testCases := []struct {
		name     string
		handler  handlerFunc
		retries  int
		wantKind jsonrpc.Kind
		wantHits int64
		wantText string // part of the client-visible message
	}{
		{
			name: "HTTP 503 is retried",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, _ rpcRequest) {
				http.Error(w, "upstream down at 10.1.2.3:8091", http.StatusServiceUnavailable)
			},
			retries: 2, wantKind: jsonrpc.KindUpstreamUnavailable, wantHits: 3,
			wantText: "backend hived answered HTTP 503 (3 attempts)",
		},
		{
			name: "HTTP 500 with a JSON-RPC body is retried",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32000,"message":"x"}}`)
			},
			retries: 1, wantKind: jsonrpc.KindUpstreamUnavailable, wantHits: 2,
		},
		{
			name: "HTTP 404 is not retried",
			handler: func(_ *fakeNode, w http.ResponseWriter, r *http.Request, _ rpcRequest) {
				http.NotFound(w, r)
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "backend hived answered HTTP 404",
		},
		{
			name: "HTML answer",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, _ rpcRequest) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "backend hived answered a body that is not JSON",
		},
		{
			name: "truncated JSON",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"a":`)
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "truncated JSON",
		},
		{
			name: "another id",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				id, _ := strconv.ParseUint(string(req.ID), 10, 64)
				answer(w, json.RawMessage(strconv.FormatUint(id+1, 10)), "result", `1`)
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "wrong id",
		},
		{
			name: "array answer",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				_, _ = io.WriteString(w, `[{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":1}]`)
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "array",
		},
		{
			name: "neither result nor error",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`}`)
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "neither result nor error",
		},
		{
			name:    "huge answer with Content-Length",
			handler: resultHandler(big),
			retries: 3, wantKind: jsonrpc.KindUpstreamResponseTooLarge, wantHits: 1,
			wantText: "backend hived answered more than 1 KiB",
		},
		{
			name: "huge chunked answer",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`)
				http.NewResponseController(w).Flush() // no Content-Length from here on
				for range 64 {
					if _, err := io.WriteString(w, `"`+strings.Repeat("y", 1000)+`",`); err != nil {
						return // the client stopped reading at the cap
					}
				}
			},
			retries: 3, wantKind: jsonrpc.KindUpstreamResponseTooLarge, wantHits: 1,
		},
		{
			name: "gzip answer over the cap once decoded",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				z := gzipString(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":"` + strings.Repeat("z", 64<<10) + `"}`)
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = io.WriteString(w, z) // a few hundred bytes on the wire
			},
			retries: 3, wantKind: jsonrpc.KindUpstreamResponseTooLarge, wantHits: 1,
			wantText: "backend hived answered more than 1 KiB",
		},
		{
			name: "gzip answer with bytes after the stream",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = io.WriteString(w, gzipString(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":1}`)+"garbage")
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "answered a body hivegate cannot decode",
		},
		{
			name: "an encoding hivegate did not ask for",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				w.Header().Set("Content-Encoding", "br")
				_, _ = io.WriteString(w, "\x1b\x00")
			},
			retries: 3, wantKind: jsonrpc.KindInvalidUpstreamResponse, wantHits: 1,
			wantText: "answered a body hivegate cannot decode",
		},
		{
			name: "reset mid-body is retried",
			handler: func(n *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				resetMidBody(t, w, req.ID)
			},
			retries: 2, wantKind: jsonrpc.KindUpstreamUnavailable, wantHits: 3,
			wantText: "in the middle of its answer (3 attempts)",
		},
		{
			name: "reset before answering is retried",
			handler: func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, _ rpcRequest) {
				resetNow(t, w)
			},
			retries: 3, wantKind: jsonrpc.KindUpstreamUnavailable, wantHits: 4,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newFakeNode(t, tc.handler)
			pool := newPool(t, backend.Options{MaxResponseBytes: 1024}, map[string]string{"hived": node.srv.URL})
			resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Params: json.RawMessage(`[]`), Retries: tc.retries})
			e := gatewayError(t, err, tc.wantKind)
			if !strings.Contains(e.Message, tc.wantText) {
				t.Errorf("message %q does not contain %q", e.Message, tc.wantText)
			}
			if got := node.hits.Load(); got != tc.wantHits {
				t.Errorf("backend saw %d requests, want %d", got, tc.wantHits)
			}
			if int64(resp.Attempts) != tc.wantHits {
				t.Errorf("Attempts = %d, want %d", resp.Attempts, tc.wantHits)
			}
			if resp.Result != nil || resp.Error != nil {
				t.Errorf("failed call returned Result %q / Error %v", resp.Result, resp.Error)
			}
		})
	}
}

func TestCallRefusedPort(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		retries      int
		wantAttempts int
	}{{0, 1}, {2, 3}, {9, backend.MaxRetries + 1}}
	for _, tc := range testCases {
		pool := newPool(t, backend.Options{}, map[string]string{"hived": refusedURL(t)})
		resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Retries: tc.retries})
		e := gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
		if !strings.Contains(e.Message, "backend hived refused the connection") {
			t.Errorf("message %q", e.Message)
		}
		if !strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("log text %q lost the cause", err.Error())
		}
		if resp.Attempts != tc.wantAttempts {
			t.Errorf("retries %d: Attempts = %d, want %d", tc.retries, resp.Attempts, tc.wantAttempts)
		}
	}
}

func TestCallRecoversAfterRetryableFailures(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t, func(n *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		switch n.hits.Load() {
		case 1:
			http.Error(w, "busy", http.StatusBadGateway)
		case 2:
			resetNow(t, w)
		default:
			answer(w, req.ID, "result", `{"ok":true}`)
		}
	})
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Retries: 3})
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	mustBytes(t, "result", resp.Result, `{"ok":true}`)
	if resp.Attempts != 3 || node.hits.Load() != 3 {
		t.Errorf("Attempts = %d, hits = %d; want 3 and 3", resp.Attempts, node.hits.Load())
	}
}
