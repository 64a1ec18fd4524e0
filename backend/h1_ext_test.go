package backend_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// TestKeepAliveReuse shows sequential calls share one connection, over
// http and https, and that Close drops idle connections while the pool
// stays usable.
func TestKeepAliveReuse(t *testing.T) {
	t.Parallel()
	for _, useTLS := range []bool{false, true} {
		t.Run("tls="+strconv.FormatBool(useTLS), func(t *testing.T) {
			t.Parallel()
			srv, stats := newCountedServer(t, useTLS, answerResult(`{"ok":true}`))
			opts := backend.Options{}
			if useTLS {
				opts.TLSConfig = trusting(srv)
			}
			pool := newPool(t, opts, map[string]string{"n": srv.URL})
			for i := range 10 {
				resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Params: json.RawMessage(`[` + strconv.Itoa(i) + `]`)})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				mustBytes(t, "result", resp.Result, `{"ok":true}`)
				if resp.Attempts != 1 {
					t.Errorf("call %d: %d attempts", i, resp.Attempts)
				}
			}
			if total, _ := stats.counts(); total != 1 {
				t.Errorf("10 sequential calls used %d connections, want 1", total)
			}
			pool.Close()
			if _, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"}); err != nil {
				t.Fatalf("call after Close: %v", err)
			}
			if total, _ := stats.counts(); total != 2 {
				t.Errorf("after Close: %d connections in all, want 2 (a new one)", total)
			}
		})
	}
}

// TestHTTPSUntrustedCertificate shows an https backend whose certificate is
// not trusted is not called, and the error shows no address.
func TestHTTPSUntrustedCertificate(t *testing.T) {
	t.Parallel()
	srv, _ := newCountedServer(t, true, answerResult(`1`))
	pool := newPool(t, backend.Options{}, map[string]string{"n": srv.URL})
	_, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"})
	e := gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
	if !strings.Contains(e.Message, "backend n could not be reached") || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("message %q, log text %q", e.Message, err.Error())
	}
}

// TestRequestWrittenOnce reads requests with one Read on a raw socket: the
// whole request — line, headers and body — arrives at once, byte for byte
// as expected, with the context's headers, and a header value with CR/LF
// never reaches the wire.
func TestRequestWrittenOnce(t *testing.T) {
	t.Parallel()
	params := `{"account":"` + strings.Repeat("a", 2000) + `"}`
	testCases := []struct {
		name    string
		ctx     context.Context
		headers string // expected between the pool's headers and Content-Length
	}{
		{"no context headers", context.Background(), ""},
		{"request id", backend.WithHeader(context.Background(), "X-Request-Id", "req-1"), "X-Request-Id: req-1\r\n"},
		{"CR/LF in a value", backend.WithHeader(context.Background(), "X-Request-Id", "req-2\r\nX-Injected: yes"), ""},
		{"LF alone in a value", backend.WithHeader(context.Background(), "X-Request-Id", "req-3\nX-Injected: yes"), ""},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			first := make(chan []byte, 1)
			go func() {
				conn, err := ln.Accept()
				if err != nil {
					first <- nil
					return
				}
				defer conn.Close()
				buf := make([]byte, 64<<10)
				n, _ := conn.Read(buf)
				first <- buf[:n]
				id := idOf(buf[bytes.Index(buf[:n], []byte("\r\n\r\n"))+4 : n])
				body := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":1}`
				_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body))
				_, _ = conn.Read(buf) // until the client closes
			}()
			opts := backend.Options{UserAgent: "hivegate-test"}
			pool := newPool(t, opts, map[string]string{"n": "http://" + ln.Addr().String() + "/rpc?x=1"})
			if _, err := pool.Call(tc.ctx, "n", backend.Request{Method: "condenser_api.get_accounts", Params: json.RawMessage(params)}); err != nil {
				t.Fatalf("Call: %v", err)
			}
			got := <-first
			body := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_accounts","params":` + params + `}`
			want := "POST /rpc?x=1 HTTP/1.1\r\nHost: " + ln.Addr().String() + "\r\nUser-Agent: hivegate-test\r\n" +
				"Content-Type: application/json\r\nAccept: application/json\r\n" + tc.headers +
				"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
			if string(got) != want {
				t.Errorf("first read:\n got %q\nwant %q", got, want)
			}
			if bytes.Contains(got, []byte("X-Injected")) {
				t.Error("a header injected through a value reached the wire")
			}
		})
	}
}

// rawOK is an HTTP/1.1 200 answer with Content-Length carrying result.
func rawOK(id, result, extraHeaders string) string {
	body := `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extraHeaders +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func gzipString(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.String()
}

// TestAnswerShapes calls raw servers answering in the ways HTTP/1.x allows
// (and one it does not): every call gets its result, and connections are
// reused exactly when the answer allows it.
func TestAnswerShapes(t *testing.T) {
	t.Parallel()
	const result = `{"head_block_number":7}`
	body := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}` }
	testCases := []struct {
		name      string
		script    rawScript
		wantConns int64 // after three calls
	}{
		{"Content-Length", func(_ int64, id string) (string, bool) { return rawOK(id, result, ""), false }, 1},
		{"chunked", func(_ int64, id string) (string, bool) {
			b := body(id)
			return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
				strconv.FormatInt(10, 16) + ";name=x\r\n" + b[:10] + "\r\n" +
				strconv.FormatInt(int64(len(b)-10), 16) + "\r\n" + b[10:] + "\r\n0\r\nX-Checksum: 1\r\n\r\n", false
		}, 1},
		{"gzip", func(_ int64, id string) (string, bool) {
			z := gzipString(body(id))
			return "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(len(z)) + "\r\n\r\n" + z, false
		}, 1},
		{"1xx before the answer", func(_ int64, id string) (string, bool) {
			return "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" + rawOK(id, result, ""), false
		}, 1},
		{"long header skipped", func(_ int64, id string) (string, bool) {
			return rawOK(id, result, "Content-Security-Policy: "+strings.Repeat("x", 20<<10)+"\r\n"), false
		}, 1},
		{"Connection: close", func(_ int64, id string) (string, bool) { return rawOK(id, result, "Connection: close\r\n"), true }, 3},
		{"no Content-Length, to EOF", func(_ int64, id string) (string, bool) {
			return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + body(id), true
		}, 3},
		{"HTTP/1.0 without keep-alive", func(_ int64, id string) (string, bool) {
			return "HTTP/1.0 200 OK\r\nContent-Length: " + strconv.Itoa(len(body(id))) + "\r\n\r\n" + body(id), false
		}, 3},
		{"HTTP/1.0 keep-alive", func(_ int64, id string) (string, bool) {
			return "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: " + strconv.Itoa(len(body(id))) + "\r\n\r\n" + body(id), false
		}, 1},
		{"5xx then fine", func(n int64, id string) (string, bool) {
			if n%2 == 1 {
				return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy", false
			}
			return rawOK(id, result, ""), false
		}, 1},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newRawNode(t, tc.script)
			pool := newPool(t, backend.Options{}, map[string]string{"n": node.url})
			for i := range 3 {
				resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Retries: 1})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				mustBytes(t, "result", resp.Result, result)
			}
			if got := node.accepted.Load(); got != tc.wantConns {
				t.Errorf("three calls used %d connections, want %d", got, tc.wantConns)
			}
		})
	}
}

// TestHeaderSectionTooLarge shows an answer whose headers go on and on
// fails clearly instead of being read without end.
func TestHeaderSectionTooLarge(t *testing.T) {
	t.Parallel()
	node := newRawNode(t, func(_ int64, id string) (string, bool) {
		return rawOK(id, `1`, strings.Repeat("X-Pad: "+strings.Repeat("p", 1000)+"\r\n", 100)), false
	})
	pool := newPool(t, backend.Options{}, map[string]string{"n": node.url})
	resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"})
	e := gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
	if !strings.Contains(err.Error(), "header section over 65536 bytes") || !strings.Contains(e.Message, "backend n ") {
		t.Errorf("message %q, log text %q: want the header section named in the cause", e.Message, err.Error())
	}
	if resp.Attempts != 1 || node.requests.Load() != 1 {
		t.Errorf("Attempts %d, requests %d; want 1 and 1", resp.Attempts, node.requests.Load())
	}
}
