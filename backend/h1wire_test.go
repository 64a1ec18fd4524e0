package backend

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// parseAnswer reads one answer from raw as a connection would: its head,
// then its decoded body. It returns the connection to inspect framing and
// keep-alive.
func parseAnswer(raw string) (*h1conn, []byte, error) {
	c := &h1conn{
		pool: &connPool{gzips: &sync.Pool{}},
		br:   bufio.NewReaderSize(strings.NewReader(raw), readBufSize),
	}
	if err := c.readHead(); err != nil {
		return c, nil, err
	}
	r, err := c.decoded()
	if err != nil {
		return c, nil, err
	}
	body, err := io.ReadAll(r)
	return c, body, err
}

func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = io.WriteString(zw, s)
	_ = zw.Close()
	return b.String()
}

func TestReadAnswer(t *testing.T) {
	t.Parallel()
	const ok = "HTTP/1.1 200 OK\r\n"
	z := gzipped(`{"a":1}`)
	pad := strings.Repeat("p", 1000)
	testCases := []struct {
		name      string
		raw       string
		status    int
		body      string
		keepAlive bool
		wantErr   error  // errors.Is
		errText   string // part of the error
	}{
		{name: "content-length", raw: ok + "Content-Length: 5\r\nContent-Type: application/json\r\n\r\nhello", status: 200, body: "hello", keepAlive: true},
		{name: "bare LF line endings", raw: "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", status: 200, body: "hi", keepAlive: true},
		{name: "no reason phrase", raw: "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", status: 200, keepAlive: true},
		{name: "header names in any case", raw: ok + "content-LENGTH:   3  \r\n\r\nabc", status: 200, body: "abc", keepAlive: true},
		{name: "same Content-Length twice", raw: ok + "Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", status: 200, body: "abc", keepAlive: true},
		{
			name:   "chunked with extensions and trailer",
			raw:    ok + "Transfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: t\r\n\r\n",
			status: 200, body: "hello, world!!!", keepAlive: true,
		},
		{name: "chunked and Content-Length: no reuse", raw: ok + "Content-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n", status: 200, body: "hi"},
		{name: "gzip", raw: ok + "Content-Encoding: gzip\r\nContent-Length: " + itoa(len(z)) + "\r\n\r\n" + z, status: 200, body: `{"a":1}`, keepAlive: true},
		{
			name:   "gzip chunked",
			raw:    ok + "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + hexLen(z[:7]) + "\r\n" + z[:7] + "\r\n" + hexLen(z[7:]) + "\r\n" + z[7:] + "\r\n0\r\n\r\n",
			status: 200, body: `{"a":1}`, keepAlive: true,
		},
		{name: "interim answers skipped", raw: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + ok + "Content-Length: 2\r\n\r\nok", status: 200, body: "ok", keepAlive: true},
		{name: "204 has no body", raw: "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", status: 204, keepAlive: true},
		{name: "Connection: close", raw: ok + "Connection: close\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok"},
		{name: "Connection list with close", raw: ok + "Connection: Upgrade, Close\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok"},
		{name: "to EOF", raw: ok + "Content-Type: application/json\r\n\r\nall of it", status: 200, body: "all of it"},
		{name: "HTTP/1.0", raw: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok"},
		{name: "HTTP/1.0 keep-alive", raw: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok", keepAlive: true},
		{name: "5xx", raw: "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\ndown", status: 503, body: "down", keepAlive: true},
		{name: "long header line skipped", raw: ok + "X-Pad: " + strings.Repeat("x", 3*readBufSize) + "\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok", keepAlive: true},
		{name: "nothing", raw: "", wantErr: io.EOF},
		{name: "truncated head", raw: ok + "Content-Len", wantErr: io.ErrUnexpectedEOF},
		{name: "truncated body", raw: ok + "Content-Length: 10\r\n\r\nabc", status: 200, wantErr: io.ErrUnexpectedEOF},
		{name: "truncated chunk", raw: ok + "Transfer-Encoding: chunked\r\n\r\n5\r\nab", status: 200, wantErr: io.ErrUnexpectedEOF},
		{name: "no last chunk", raw: ok + "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", status: 200, wantErr: io.ErrUnexpectedEOF},
		{name: "header section too large", raw: ok + strings.Repeat("X-Pad: "+pad+"\r\n", 70) + "\r\n", wantErr: errHeaderTooLarge, errText: "header section over 65536 bytes"},
		{name: "long Content-Length line", raw: ok + "Content-Length: " + strings.Repeat("1", 2*readBufSize) + "\r\n\r\n", wantErr: errMalformed},
		{name: "not HTTP", raw: "<html>oops</html>\r\n", wantErr: errMalformed, errText: "status line"},
		{name: "HTTP/2 status line", raw: "HTTP/2 200\r\n\r\n", wantErr: errMalformed},
		{name: "bad status", raw: "HTTP/1.1 2x0 OK\r\n\r\n", wantErr: errMalformed},
		{name: "101", raw: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", wantErr: errMalformed, errText: "101"},
		{name: "conflicting Content-Length", raw: ok + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", wantErr: errMalformed},
		{name: "negative Content-Length", raw: ok + "Content-Length: -1\r\n\r\n", wantErr: errMalformed},
		{name: "unsupported Transfer-Encoding", raw: ok + "Transfer-Encoding: gzip, chunked\r\n\r\n", wantErr: errMalformed},
		{name: "header without colon", raw: ok + "Oops\r\n\r\n", wantErr: errMalformed},
		{name: "obsolete folding", raw: ok + "X-A: 1\r\n  2\r\nContent-Length: 0\r\n\r\n", wantErr: errMalformed},
		{name: "bad chunk size", raw: ok + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", status: 200, wantErr: errMalformed},
		{name: "chunk longer than its size", raw: ok + "Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", status: 200, wantErr: errMalformed},
		{name: "bad gzip", raw: ok + "Content-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc", status: 200, errText: "gzip"},
	}
	for _, tc := range testCases {
		c, body, err := parseAnswer(tc.raw)
		if tc.wantErr != nil || tc.errText != "" {
			if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("%s: err %v, want %v containing %q", tc.name, err, tc.wantErr, tc.errText)
			}
			if tc.status != 0 && c.status != tc.status {
				t.Errorf("%s: status %d, want %d", tc.name, c.status, tc.status)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if c.status != tc.status || string(body) != tc.body || c.mode != bodyDone || c.keepAlive != tc.keepAlive || c.br.Buffered() != 0 {
			t.Errorf("%s: status %d body %q done %v keep-alive %v buffered %d; want %d %q true %v 0",
				tc.name, c.status, body, c.mode == bodyDone, c.keepAlive, c.br.Buffered(), tc.status, tc.body, tc.keepAlive)
		}
	}
}

// TestReadAnswerLeavesNextAnswer checks that reading an answer consumes it
// exactly: the next one on the connection is intact.
func TestReadAnswerLeavesNextAnswer(t *testing.T) {
	t.Parallel()
	answers := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n",
		"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\nthree",
		"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + itoa(len(gzipped("four"))) + "\r\n\r\n" + gzipped("four"),
	}
	c := &h1conn{
		pool: &connPool{gzips: &sync.Pool{}},
		br:   bufio.NewReaderSize(strings.NewReader(strings.Join(answers, "")), readBufSize),
	}
	for i, want := range []string{"one", "two", "three", "four"} {
		if err := c.readHead(); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		r, err := c.decoded()
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		body, err := io.ReadAll(r)
		if err != nil || string(body) != want || c.mode != bodyDone {
			t.Fatalf("answer %d: %q, %v; want %q", i, body, err, want)
		}
		if c.gz != nil {
			c.pool.gzips.Put(c.gz)
			c.gz = nil
		}
	}
	if err := c.readHead(); err != io.EOF {
		t.Errorf("after the last answer: %v, want io.EOF", err)
	}
}

// FuzzReadAnswer checks that no answer makes the parser panic or return
// more body than it was given.
func FuzzReadAnswer(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x\r\nhello\r\n0\r\nT: 1\r\n\r\n")
	f.Add("HTTP/1.0 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nbody")
	f.Add("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc")
	f.Fuzz(func(t *testing.T, raw string) {
		_, body, _ := parseAnswer(raw)
		if len(body) > len(raw) && !strings.Contains(strings.ToLower(raw), "gzip") {
			t.Fatalf("%d body bytes from %d input bytes", len(body), len(raw))
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

func hexLen(s string) string { return strconv.FormatInt(int64(len(s)), 16) }
