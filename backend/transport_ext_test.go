package backend_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
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
// whole request — line, headers and body — arrives at once (net/http writes
// head and body in one buffer), with the pool's headers and the context's,
// the body byte for byte, and a header value with CR/LF never reaches the
// wire.
func TestRequestWrittenOnce(t *testing.T) {
	t.Parallel()
	params := `{"account":"` + strings.Repeat("a", 2000) + `"}`
	testCases := []struct {
		name      string
		ctx       context.Context
		requestID string // expected X-Request-Id, "" for none
	}{
		{"no context headers", context.Background(), ""},
		{"request id", backend.WithHeader(context.Background(), "X-Request-Id", "req-1"), "req-1"},
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
			req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(got)))
			if err != nil {
				t.Fatalf("the first read is not a whole request head: %v\n%q", err, got)
			}
			body, err := io.ReadAll(req.Body)
			if err != nil {
				t.Fatalf("the first read does not hold the whole body: %v", err)
			}
			wantBody := `{"jsonrpc":"2.0","id":` + string(idOf(body)) + `,"method":"condenser_api.get_accounts","params":` + params + `}`
			if string(body) != wantBody {
				t.Errorf("body:\n got %s\nwant %s", body, wantBody)
			}
			for k, want := range map[string]string{
				"User-Agent": "hivegate-test", "Content-Type": "application/json", "Accept": "application/json",
				"Accept-Encoding": "gzip", "X-Request-Id": tc.requestID, "X-Idempotency-Key": "",
			} {
				if v := req.Header.Get(k); v != want {
					t.Errorf("%s: %q, want %q", k, v, want)
				}
			}
			if req.Method != http.MethodPost || req.RequestURI != "/rpc?x=1" || req.Host != ln.Addr().String() {
				t.Errorf("request line %s %s, Host %s", req.Method, req.RequestURI, req.Host)
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

// TestMalformedAnswerHead shows that an answer head that is not valid
// HTTP — one whose headers go on and on (past 64 KiB), two different
// Content-Lengths, a status line that is not HTTP — fails clearly instead
// of being read without end or guessed at: the backend answered, so it is
// an invalid upstream response, not retried and not counted against the
// backend's health (even with a failure threshold of 1).
func TestMalformedAnswerHead(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, answer, cause string
	}{
		{"70 KiB of headers", rawOK("1", `1`, strings.Repeat("X-Pad: "+strings.Repeat("p", 1000)+"\r\n", 70)), "headers exceeded 65536 bytes"},
		{"two different Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 12\r\n\r\n{\"a\":1}", "Content-Length"},
		{"not HTTP", "SSH-2.0-OpenSSH_9.2\r\n", "malformed HTTP"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newRawNode(t, func(int64, string) (string, bool) { return tc.answer, false })
			pool := newPool(t, backend.Options{FailThreshold: 1}, map[string]string{"n": node.url})
			resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Retries: 2})
			e := gatewayError(t, err, jsonrpc.KindInvalidUpstreamResponse)
			if !strings.Contains(err.Error(), tc.cause) || e.Message != "Invalid upstream response: backend n answered something that is not an HTTP response" {
				t.Errorf("message %q, log text %q: want the cause (%s) named in the log text", e.Message, err.Error(), tc.cause)
			}
			if resp.Attempts != 1 || node.requests.Load() != 1 {
				t.Errorf("Attempts %d, requests %d; want 1 and 1", resp.Attempts, node.requests.Load())
			}
			if !pool.Healthy("n") {
				t.Error("a backend that answered was counted down")
			}
		})
	}
}
