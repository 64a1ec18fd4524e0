package h1serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/h1serve"
)

// rawCase is a request (or several) sent byte for byte. fast is how many
// of its requests the fast path serves and over whether the connection is
// then handed to the fallback.
type rawCase struct {
	name string
	raw  string
	fast uint64
	over bool
}

// host is the Host line of the fast-path requests of the table.
const host = "Host: hivegate.test\r\n"

var rawCases = []rawCase{
	// Served by the fast path.
	{name: "fast", raw: post(`{"id":1}`), fast: 1},
	{name: "fast, no body", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n", fast: 1},
	{name: "fast, header case", raw: "POST / HTTP/1.1\r\nhOsT: hivegate.test\r\ncontent-LENGTH: 2\r\ncOnTeNt-TyPe: application/json\r\nx-request-id: abc\r\n\r\n{}", fast: 1},
	{name: "fast, tabs and spaces around values", raw: "POST / HTTP/1.1\r\nHost:\thivegate.test \r\nContent-Length: \t2\t\r\nX-A:  \t v w \t \r\n\r\n{}", fast: 1},
	{name: "fast, same-name headers", raw: "POST / HTTP/1.1\r\n" + host + "X-A: 1\r\nx-a: 2\r\nX-A:3\r\nAccept: a\r\naccept: b\r\nContent-Length: 0\r\n\r\n", fast: 1},
	{name: "fast, obs-text values", raw: "POST / HTTP/1.1\r\n" + host + "X-U: caf\xc3\xa9 \xff\x80\r\nContent-Length: 0\r\n\r\n", fast: 1},
	{name: "fast, empty value", raw: "POST / HTTP/1.1\r\n" + host + "X-Empty:\r\nX-Blank: \r\nContent-Length: 0\r\n\r\n", fast: 1},
	{name: "fast, token names", raw: "POST / HTTP/1.1\r\n" + host + "X!#$%&'*+-.^_`|~9: v\r\nContent-Length: 0\r\n\r\n", fast: 1},
	{name: "fast, keep-alive", raw: "POST / HTTP/1.1\r\n" + host + "Connection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", fast: 1},
	{name: "fast, leading zeros in length", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 003\r\n\r\nabc", fast: 1},
	{name: "fast, host with port and IPv6", raw: "POST / HTTP/1.1\r\nHost: [::1]:8080\r\nContent-Length: 0\r\n\r\n", fast: 1},
	{name: "fast, body cut short", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 10\r\n\r\nabc", fast: 1},
	{name: "fast, pipelined", raw: post("1") + post("22") + post("333"), fast: 3},
	{name: "fast then close", raw: post("1", "Connection: close") + post("2"), fast: 1},
	{name: "fast, Pragma", raw: post("1", "Pragma: no-cache"), fast: 1},
	{name: "fast, head ends in LF", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\n", fast: 0},
	{name: "CRLF after a POST body", raw: post("1") + "\r\n" + post("2"), fast: 2},
	{name: "fast, then 3 bytes and EOF", raw: post("1") + "GET", fast: 1},
	{name: "CRLF and 2 bytes after a POST, then EOF", raw: post("1") + "\r\nGE", fast: 1, over: true},
	{name: "3 bytes with a bare LF after a POST, then EOF", raw: post("1") + "0\n0", fast: 1},
	{name: "4 CRLF then a request after a POST", raw: post("1") + "\r\n\r\n" + post("2"), fast: 2},
	{name: "5 CRLF then a request after a POST", raw: post("1") + "\r\n\r\n\n" + post("2"), fast: 1, over: true},
	{name: "fast prefix, then EOF", raw: "POST / HTTP/1.1\r\n" + host, fast: 0},

	// Handed over to net/http.
	{name: "GET", raw: "GET / HTTP/1.1\r\n" + host + "\r\n", over: true},
	{name: "HEAD", raw: "HEAD / HTTP/1.1\r\n" + host + "\r\n", over: true},
	{name: "lower-case method", raw: "post / HTTP/1.1\r\n" + host + "Content-Length: 0\r\n\r\n", over: true},
	{name: "POST /other", raw: "POST /other HTTP/1.1\r\n" + host + "Content-Length: 2\r\n\r\n{}", over: true},
	{name: "POST with query", raw: "POST /?a=1 HTTP/1.1\r\n" + host + "Content-Length: 2\r\n\r\n{}", over: true},
	{name: "absolute form", raw: "POST http://other.test/ HTTP/1.1\r\n" + host + "Content-Length: 2\r\n\r\n{}", over: true},
	{name: "HTTP/1.0", raw: "POST / HTTP/1.0\r\n" + host + "Content-Length: 2\r\n\r\n{}", over: true},
	{name: "HTTP/1.0 keep-alive", raw: "POST / HTTP/1.0\r\n" + host + "Connection: keep-alive\r\nContent-Length: 2\r\n\r\n{}" + post("x"), over: true},
	{name: "chunked", raw: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", over: true},
	{name: "chunked and Content-Length", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", over: true},
	{name: "Content-Length and chunked", raw: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\n" + host + "\r\n", over: true},
	{name: "unknown transfer coding", raw: "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "two different lengths", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}x", over: true},
	{name: "two equal lengths", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "length list", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 2, 2\r\n\r\n{}", over: true},
	{name: "length not a number", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 2a\r\n\r\n{}", over: true},
	{name: "negative length", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: -2\r\n\r\n{}", over: true},
	{name: "plus sign length", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: +2\r\n\r\n{}", over: true},
	{name: "huge length", raw: "POST / HTTP/1.1\r\n" + host + "Content-Length: 99999999999999999999\r\n\r\n{}", over: true},
	{name: "no length", raw: "POST / HTTP/1.1\r\n" + host + "\r\n", over: true},
	{name: "missing Host", raw: "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "two Hosts", raw: "POST / HTTP/1.1\r\n" + host + host + "Content-Length: 2\r\n\r\n{}", over: true},
	{name: "empty Host", raw: "POST / HTTP/1.1\r\nHost:\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "Host with a space", raw: "POST / HTTP/1.1\r\nHost: a b\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "Host with a slash", raw: "POST / HTTP/1.1\r\nHost: a/b\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "Expect 100-continue", raw: "POST / HTTP/1.1\r\n" + host + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "Expect other", raw: "POST / HTTP/1.1\r\n" + host + "Expect: fancy\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "Upgrade", raw: "POST / HTTP/1.1\r\n" + host + "Connection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "Connection list", raw: "POST / HTTP/1.1\r\n" + host + "Connection: keep-alive, close\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "TE header", raw: "POST / HTTP/1.1\r\n" + host + "TE: trailers\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "Trailer header", raw: "POST / HTTP/1.1\r\n" + host + "Trailer: X-T\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "obs-fold", raw: "POST / HTTP/1.1\r\n" + host + "X-A: one\r\n two\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "space before colon", raw: "POST / HTTP/1.1\r\n" + host + "X-A : v\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "space in name", raw: "POST / HTTP/1.1\r\n" + host + "X A: v\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "no colon", raw: "POST / HTTP/1.1\r\n" + host + "X-A\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "empty name", raw: "POST / HTTP/1.1\r\n" + host + ": v\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "control byte in value", raw: "POST / HTTP/1.1\r\n" + host + "X-A: a\x01b\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "DEL in value", raw: "POST / HTTP/1.1\r\n" + host + "X-A: a\x7fb\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "bare CR in value", raw: "POST / HTTP/1.1\r\n" + host + "X-A: a\rb\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "bare LF line endings", raw: "POST / HTTP/1.1\n" + "Host: hivegate.test\nContent-Length: 2\n\n{}", over: true},
	{name: "bare LF in a header line", raw: "POST / HTTP/1.1\r\n" + host + "X-A: v\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "leading empty line", raw: "\r\n" + post("x"), over: true},
	{name: "head over 4 KiB", raw: "POST / HTTP/1.1\r\n" + host + "X-Big: " + strings.Repeat("b", 5000) + "\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "head over MaxHeaderBytes", raw: "POST / HTTP/1.1\r\n" + host + "X-Big: " + strings.Repeat("b", 1<<20+5000) + "\r\nContent-Length: 2\r\n\r\n{}", over: true},
	{name: "garbage", raw: "\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", over: true},
	{name: "fast then GET", raw: post("1") + "GET / HTTP/1.1\r\n" + host + "\r\n", fast: 1, over: true},
	{name: "fast then chunked", raw: post("1") + "POST / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n" + post("3"), fast: 1, over: true},
	{name: "GET then fast", raw: "GET / HTTP/1.1\r\n" + host + "\r\n" + post("2"), over: true},
	{name: "fast then garbage", raw: post("1") + "\x00\x01\x02\r\n\r\n", fast: 1, over: true},
}

// TestHandover shows each input going to the fallback server at the right
// request boundary (Stats) and getting exactly the answers a plain
// net/http server with the same handler gives.
func TestHandover(t *testing.T) {
	t.Parallel()
	h := echoHandler()
	plain := startPlain(t, h, nil)
	for _, tc := range rawCases {
		if !tc.over {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFast(t, h, fastConfig{})
			got := exchange(t, f.addr, []byte(tc.raw), ioWait)
			want := exchange(t, plain, []byte(tc.raw), ioWait)
			if d := diffAnswers(got, want); d != "" {
				t.Errorf("fast path and net/http differ:\n%s", d)
			}
			if s := f.srv.Stats(); s != (h1serve.Stats{Served: tc.fast, HandedOver: 1}) {
				t.Errorf("Stats %+v, want %d served then the connection handed over", s, tc.fast)
			}
		})
	}
}

// TestHandoverMarked proves with a marker header on the fallback's answers
// that a request after a fast one on the same connection is answered by
// the fallback, and the fast one is not.
func TestHandoverMarked(t *testing.T) {
	t.Parallel()
	f := startFast(t, echoHandler(), fastConfig{marked: true})
	c := dial(t, f.addr)
	br := bufio.NewReader(c)
	send(t, c, post("1"))
	if resp, _ := readAnswer(t, br); resp.Header.Get(fallbackMarker) != "" {
		t.Errorf("first request answered by the fallback")
	}
	send(t, c, "GET / HTTP/1.1\r\n"+host+"\r\n")
	if resp, body := readAnswer(t, br); resp.Header.Get(fallbackMarker) != "1" || !strings.Contains(body, `method="GET"`) {
		t.Errorf("GET answered without the fallback's marker: %v %q", resp.Header, body)
	}
	send(t, c, post("3"))
	if resp, body := readAnswer(t, br); resp.Header.Get(fallbackMarker) != "1" || !strings.Contains(body, `body="3"`) {
		t.Errorf("a POST after the handover was not left to the fallback: %v %q", resp.Header, body)
	}
	if s := f.srv.Stats(); s != (h1serve.Stats{Served: 1, HandedOver: 1}) {
		t.Errorf("Stats %+v, want 1 served and 1 handed over", s)
	}
}

// TestDifferential compares, for every input of the table, the fast path
// (with its fallback) with a plain net/http server running the same
// echoing handler.
func TestDifferential(t *testing.T) {
	t.Parallel()
	h := echoHandler()
	f := startFast(t, h, fastConfig{})
	plain := startPlain(t, h, nil)
	for _, tc := range rawCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := exchange(t, f.addr, []byte(tc.raw), ioWait)
			want := exchange(t, plain, []byte(tc.raw), ioWait)
			if d := diffAnswers(got, want); d != "" {
				t.Errorf("fast path and net/http differ:\n%s", d)
			}
		})
	}
}

// TestHandoverHTTP2PriorKnowledge shows an h2c prior-knowledge connection
// handed over: net/http's own HTTP/2 client gets HTTP/2 answers from the
// fallback, and the raw preface is answered with a SETTINGS frame.
func TestHandoverHTTP2PriorKnowledge(t *testing.T) {
	t.Parallel()
	f := startFast(t, echoHandler(), fastConfig{marked: true, fb: func(s *http.Server) {
		s.Protocols = new(http.Protocols)
		s.Protocols.SetHTTP1(true)
		s.Protocols.SetUnencryptedHTTP2(true)
	}})
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: ioWait}
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		req, _ := http.NewRequestWithContext(context.Background(), method, "http://"+f.addr+"/", strings.NewReader(""))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s over h2c: %v", method, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.ProtoMajor != 2 || resp.Header.Get(fallbackMarker) != "1" || !strings.Contains(string(body), `proto="HTTP/2.0"`) {
			t.Errorf("%s: %s %v %q, want an HTTP/2 answer from the fallback", method, resp.Proto, resp.Header, body)
		}
	}
	c := dial(t, f.addr)
	send(t, c, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
	var frame [9]byte
	if _, err := io.ReadFull(c, frame[:]); err != nil {
		t.Fatalf("reading the first frame: %v", err)
	}
	length := binary.BigEndian.Uint32(append([]byte{0}, frame[:3]...))
	if frame[3] != 0x4 || frame[4]&0x1 != 0 || length%6 != 0 {
		t.Errorf("first bytes %q: want a SETTINGS frame", frame)
	}
	if s := f.srv.Stats(); s.Served != 0 || s.HandedOver != 2 {
		t.Errorf("Stats %+v, want 2 connections handed over", s)
	}
}

// TestMaxHeaderBytes shows a head over Options.MaxHeaderBytes (and the
// fallback's) handed over for net/http's 431.
func TestMaxHeaderBytes(t *testing.T) {
	t.Parallel()
	const limit = 600
	h := echoHandler()
	f := startFast(t, h, fastConfig{opts: h1serve.Options{MaxHeaderBytes: limit}, fb: func(s *http.Server) { s.MaxHeaderBytes = limit }})
	plain := startPlain(t, h, func(s *http.Server) { s.MaxHeaderBytes = limit })
	for _, n := range []int{100, 3000, 4500} {
		raw := []byte(post("x", "X-Big: "+strings.Repeat("b", n)) + post("y"))
		got := exchange(t, f.addr, raw, ioWait)
		want := exchange(t, plain, raw, ioWait)
		if d := diffAnswers(got, want); d != "" {
			t.Errorf("header of %d bytes: fast path and net/http differ:\n%s", n, d)
		}
	}
	if s := f.srv.Stats(); s.Served != 2 || s.HandedOver != 2 {
		t.Errorf("Stats %+v, want the small heads served and the two big ones handed over", s)
	}
}

// handlerCase is a handler behaviour compared between the fast path and
// net/http.
type handlerCase struct {
	name string
	h    http.HandlerFunc
}

func writeAll(w http.ResponseWriter, pieces ...string) {
	for _, p := range pieces {
		_, _ = io.WriteString(w, p)
	}
}

var handlerCases = []handlerCase{
	{name: "status and headers", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("X-A", "1")
		w.Header().Add("X-A", "2")
		w.WriteHeader(http.StatusAccepted)
		writeAll(w, "accepted")
	}},
	{name: "nothing written", h: func(w http.ResponseWriter, r *http.Request) {}},
	{name: "status only", h: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }},
	{name: "http.Error", h: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", http.StatusInternalServerError) }},
	{name: "unknown status", h: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(599); writeAll(w, "x") }},
	{name: "sniffed html", h: func(w http.ResponseWriter, r *http.Request) { writeAll(w, "<html><body>hi</body></html>") }},
	{name: "sniffed binary", h: func(w http.ResponseWriter, r *http.Request) { writeAll(w, "\x00\x01\x02") }},
	{name: "sniffed in pieces", h: func(w http.ResponseWriter, r *http.Request) { writeAll(w, "<ht", "ml><body>hi</body></html>") }},
	{name: "content type suppressed", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		writeAll(w, "<html>")
	}},
	{name: "declared length", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		writeAll(w, "he", "llo")
	}},
	{name: "declared length, short", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		writeAll(w, "he")
	}},
	{name: "invalid declared length", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "five")
		writeAll(w, "hello")
	}},
	{name: "204 with a length", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		w.WriteHeader(http.StatusNoContent)
	}},
	{name: "newline in a value", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-A", "a\r\nX-Injected: b")
		writeAll(w, "x")
	}},
	{name: "invalid header name", h: func(w http.ResponseWriter, r *http.Request) { w.Header()["Bad Name"] = []string{"v"}; writeAll(w, "x") }},
	{name: "handler closes", h: func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Connection", "close"); writeAll(w, "x") }},
	{name: "header set after WriteHeader", h: func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Header().Set("X-Late", "1")
		writeAll(w, "x")
	}},
	{name: "handler says keep-alive", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "keep-alive")
		writeAll(w, "x")
	}},
	{name: "handler sets Transfer-Encoding", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Transfer-Encoding", "chunked")
		writeAll(w, "x")
	}},
	{name: "closes the body unread", h: func(w http.ResponseWriter, r *http.Request) { _ = r.Body.Close(); writeAll(w, "x") }},
	{name: "Host in r.Header", h: func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%q", r.Header["Host"])
	}},
	{name: "header set after Write", h: func(w http.ResponseWriter, r *http.Request) {
		writeAll(w, "x")
		w.Header().Set("X-Late", "1")
	}},
	{name: "declared length, nothing written", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		w.WriteHeader(http.StatusOK)
	}},
	{name: "declared length, first write too long", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "3")
		writeAll(w, "hello")
	}},
	{name: "sniffed in pieces, declared length", h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "30")
		writeAll(w, "<ht", "ml><body>hi there</body></html>"[:27])
	}},
	{name: "context values", h: func(w http.ResponseWriter, r *http.Request) {
		_, local := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		_, srv := r.Context().Value(http.ServerContextKey).(*http.Server)
		fmt.Fprintf(w, "local addr %v, server %v", local, srv)
	}},
}

// TestHandlerDifferential compares what the fast path and net/http send
// for the same handler behaviours, on a connection that goes on.
func TestHandlerDifferential(t *testing.T) {
	t.Parallel()
	for _, tc := range handlerCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFast(t, tc.h, fastConfig{})
			plain := startPlain(t, tc.h, nil)
			raw := []byte(post("first") + post("second"))
			got := exchange(t, f.addr, raw, ioWait)
			want := exchange(t, plain, raw, ioWait)
			if d := diffAnswers(got, want); d != "" {
				t.Errorf("fast path and net/http differ:\n%s", d)
			}
			if s := f.srv.Stats(); s.Served == 0 || s.HandedOver != 0 {
				t.Errorf("Stats %+v: not served by the fast path", s)
			}
		})
	}
}

// TestWatchedByteAfterPipelined shows a Content-Length: 0 request whose
// handler waits on Done while a GET is buffered behind it and a third
// request arrives during the wait: all three are answered in order, as by
// net/http (the watcher must neither start with bytes buffered nor hand
// its byte over ahead of them).
func TestWatchedByteAfterPipelined(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 2)
	release := make(chan struct{}, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Wait") == "" {
			echoHandler().ServeHTTP(w, r)
			return
		}
		_ = r.Context().Done()
		arrived <- struct{}{}
		<-release
		_, _ = io.WriteString(w, "waited")
	})
	f := startFast(t, h, fastConfig{})
	plain := startPlain(t, h, nil)
	var outs [2][]byte
	for i, addr := range []string{f.addr, plain} {
		c := dial(t, addr)
		send(t, c, "POST / HTTP/1.1\r\nHost: a\r\nX-Wait: 1\r\nContent-Length: 0\r\n\r\nGET /second HTTP/1.1\r\nHost: a\r\n\r\n")
		recv(t, arrived, "the first request")
		send(t, c, "GET /third HTTP/1.1\r\nHost: a\r\n\r\n")
		// No signal tells that the watcher has read; on loopback it has
		// well within this pause.
		time.Sleep(100 * time.Millisecond)
		release <- struct{}{}
		_ = c.CloseWrite()
		outs[i] = waitClosed(t, c)
	}
	if d := diffAnswers(outs[0], outs[1]); d != "" {
		t.Errorf("fast path and net/http differ:\n%s", d)
	}
}

// TestWatchedByteOfNextPost: a long answer goes out before its handler
// returns, so the client sends its next request while the connection is
// still watched and the watcher reads that request's first byte. The next
// request is then served on the same connection, whatever the idle
// timeout: stopping the watch set a past read deadline that waiting for
// the rest of that request must replace.
func TestWatchedByteOfNextPost(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 64<<10)
	for _, idle := range []time.Duration{0, time.Minute} {
		t.Run(fmt.Sprintf("idle timeout %v", idle), func(t *testing.T) {
			t.Parallel()
			sent := make(chan struct{}, 1)
			release := make(chan struct{}, 1)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if r.Header.Get("X-Wait") == "" {
					_, _ = io.WriteString(w, "second")
					return
				}
				_ = r.Context().Done()
				time.Sleep(2 * h1serve.WatchDelay) // the watch starts
				w.Header().Set("Content-Length", strconv.Itoa(len(long)))
				_, _ = io.WriteString(w, long)
				// net/http holds its last bytes back without this; the fast
				// path has written them all (and has no Flush).
				_ = http.NewResponseController(w).Flush()
				sent <- struct{}{}
				<-release
			})
			f := startFast(t, h, fastConfig{opts: h1serve.Options{IdleTimeout: idle}})
			plain := startPlain(t, h, func(s *http.Server) { s.IdleTimeout = idle })
			var outs [2][]byte
			for i, addr := range []string{f.addr, plain} {
				c := dial(t, addr)
				send(t, c, post("first", "X-Wait: 1"))
				recv(t, sent, "the long answer")
				br := bufio.NewReader(c)
				if _, body := readAnswer(t, br); body != long {
					t.Fatalf("the first answer has %d bytes, want %d", len(body), len(long))
				}
				send(t, c, post("next"))
				// No signal tells that the watcher has read; on loopback it
				// has well within this pause.
				time.Sleep(100 * time.Millisecond)
				release <- struct{}{}
				_ = c.CloseWrite()
				out, _ := io.ReadAll(br)
				_ = c.Close()
				outs[i] = out
			}
			if !strings.Contains(string(outs[0]), "second") {
				t.Errorf("the next request got %q, want its answer", outs[0])
			}
			if d := diffAnswers(outs[0], outs[1]); d != "" {
				t.Errorf("fast path and net/http differ:\n%s", d)
			}
		})
	}
}

// TestHandoverKeepsCloseWrite shows net/http's closeWriteAndWait (after a
// 431) sending its FIN at once on a handed-over connection, as on its own:
// without CloseWrite on the handed-over conn the client waits 500 ms more.
func TestHandoverKeepsCloseWrite(t *testing.T) {
	t.Parallel()
	h := echoHandler()
	small := func(s *http.Server) { s.MaxHeaderBytes = 1000 }
	f := startFast(t, h, fastConfig{fb: small})
	plain := startPlain(t, h, small)
	raw := "POST / HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("b", 8000) + "\r\n\r\n"
	for _, s := range []struct{ name, addr string }{{"net/http", plain}, {"fast path", f.addr}} {
		c := dial(t, s.addr)
		start := time.Now()
		send(t, c, raw)
		out := waitClosed(t, c)
		if el := time.Since(start); !strings.HasPrefix(string(out), "HTTP/1.1 431 ") || el > 250*time.Millisecond {
			t.Errorf("%s: %q, connection ended after %v; want a 431 and the end at once", s.name, out, el)
		}
	}
}

// TestContextCancelledAfterPanic shows a request context cancelled after
// its handler panicked, as net/http does, so that work started with it
// and watching only Err stops.
func TestContextCancelledAfterPanic(t *testing.T) {
	t.Parallel()
	ctxs := make(chan context.Context, 1)
	f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctxs <- r.Context()
		panic(http.ErrAbortHandler)
	}), fastConfig{})
	c := dial(t, f.addr)
	send(t, c, post(""))
	waitClosed(t, c)
	if err := recv(t, ctxs, "the handler").Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("context error %v after the panic, want context.Canceled", err)
	}
}

// TestIdleWithoutIdleTimeout shows that, IdleTimeout unset, an idle
// connection waits under ReadTimeout (here none) as with net/http, not
// under ReadHeaderTimeout.
func TestIdleWithoutIdleTimeout(t *testing.T) {
	t.Parallel()
	const d = 100 * time.Millisecond
	h := echoHandler()
	f := startFast(t, h, fastConfig{opts: h1serve.Options{ReadHeaderTimeout: d}, fb: func(s *http.Server) { s.ReadHeaderTimeout = d }})
	plain := startPlain(t, h, func(s *http.Server) { s.ReadHeaderTimeout = d })
	for _, s := range []struct{ name, addr string }{{"net/http", plain}, {"fast path", f.addr}} {
		c := dial(t, s.addr)
		send(t, c, post("1"))
		br := bufio.NewReader(c)
		readAnswer(t, br)
		time.Sleep(3 * d) // the client's pause between two requests
		send(t, c, post("2"))
		if _, err := br.Peek(1); err != nil {
			t.Errorf("%s: second request after a %v pause: %v", s.name, 3*d, err)
		}
	}
}

// TestShutdownAnswerSaysClose shows a request in flight when Shutdown
// starts answered with Connection: close, as net/http does, on the fast
// path and on a plain net/http server.
func TestShutdownAnswerSaysClose(t *testing.T) {
	t.Parallel()
	for _, fastPath := range []bool{false, true} {
		b := newBlocker()
		f := startFast(t, b, fastConfig{})
		shutdown := f.srv.Shutdown
		addr := f.addr
		if !fastPath {
			s := &http.Server{Handler: b}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = s.Serve(ln) }()
			t.Cleanup(func() { _ = s.Close() })
			shutdown, addr = s.Shutdown, ln.Addr().String()
		}
		c := dial(t, addr)
		send(t, c, post("x", "X-Block: 1"))
		recv(t, b.arrived, "the request")
		shut := make(chan error, 1)
		go func() { shut <- shutdown(context.Background()) }()
		// Shutdown has no signal before it waits on the request.
		time.Sleep(50 * time.Millisecond)
		close(b.release)
		as, _ := parseAnswers(waitClosed(t, c))
		if len(as) != 1 || !as[0].Close {
			t.Errorf("fast path %v: answers %+v, want one with Connection: close", fastPath, as)
		}
		recv(t, shut, "Shutdown")
	}
}

// TestDocumentedDifferences pins what the fast path does not do, as its
// ResponseWriter's documentation says: it is not an http.Flusher (the
// ResponseController reports ErrNotSupported, and the answer is still
// whole), and declared trailers are not sent.
func TestDocumentedDifferences(t *testing.T) {
	t.Parallel()
	flushErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Trailer", "X-T")
		writeAll(w, "before ")
		flushErr <- http.NewResponseController(w).Flush()
		writeAll(w, "after")
		w.Header().Set("X-T", "t")
	})
	f := startFast(t, h, fastConfig{})
	out := exchange(t, f.addr, []byte(post("x")), ioWait)
	if err := <-flushErr; !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("Flush: %v, want http.ErrNotSupported", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), nil)
	if err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "before after" || resp.ContentLength != int64(len(body)) {
		t.Errorf("body %q with Content-Length %d, want the whole answer with its length", body, resp.ContentLength)
	}
	if v := resp.Header.Get("X-T") + resp.Trailer.Get("X-T"); v != "" {
		t.Errorf("trailer X-T sent (%q)", v)
	}
	if s := f.srv.Stats(); s.Served != 1 {
		t.Errorf("Stats %+v: not served by the fast path", s)
	}
}
