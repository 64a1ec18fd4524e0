package backend

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadBodyCap(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name    string
		size    int
		limit   int64
		start   int
		wantErr error
	}{
		{"empty", 0, 10, 0, nil},
		{"under cap", 9, 10, 0, nil},
		{"at cap", 10, 10, 0, nil},
		{"one over cap", 11, 10, 0, errTooLarge},
		{"far over cap", 1 << 20, 1000, 0, errTooLarge},
		{"fits the buffer", 100, 1000, 100, nil},
		{"chunks after a small buffer", 300_000, 1 << 20, 16, nil},
		{"chunks over cap", 300_000, 200_000, 16, errTooLarge},
		{"buffer larger than cap", 50, 10, 4096, errTooLarge},
	}
	p, err := New(nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range testCases {
		want := strings.Repeat("a", tc.size)
		src := &countingReader{r: iotest.HalfReader(strings.NewReader(want))}
		buf := make([]byte, 0, tc.start)
		body, fresh, err := p.readBody(src, &buf, tc.limit)
		if err != tc.wantErr {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
			continue
		}
		if err == nil && string(body) != want {
			t.Errorf("%s: read %d bytes, want %d", tc.name, len(body), tc.size)
		}
		if err == nil && fresh != (tc.size > tc.start) {
			t.Errorf("%s: fresh = %v with a buffer of %d for %d bytes", tc.name, fresh, tc.start, tc.size)
		}
		if src.n > tc.limit+1 {
			t.Errorf("%s: read %d bytes past a cap of %d", tc.name, src.n, tc.limit)
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestNewRequest checks the bytes of a request: line, headers and body in
// one buffer, the context's headers filtered, Content-Length exact.
func TestNewRequest(t *testing.T) {
	t.Parallel()
	p, err := New(map[string]string{"n": "http://node.example:8091/rpc?x=1"}, Options{UserAgent: "ua/1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	be := p.backends["n"]
	const head = "POST /rpc?x=1 HTTP/1.1\r\nHost: node.example:8091\r\nUser-Agent: ua/1\r\n" +
		"Content-Type: application/json\r\nAccept: application/json\r\n"
	bg := context.Background()
	testCases := []struct {
		name    string
		ctx     context.Context
		method  string
		params  json.RawMessage
		headers string
		body    string
	}{
		{"no params", bg, "m", nil, "", `{"jsonrpc":"2.0","id":7,"method":"m"}`},
		{"empty params", bg, "m", json.RawMessage{}, "", `{"jsonrpc":"2.0","id":7,"method":"m"}`},
		{"escaped method", bg, `a"b`, json.RawMessage(`[1]`), "", `{"jsonrpc":"2.0","id":7,"method":"a\"b","params":[1]}`},
		{"large params", bg, "m", json.RawMessage(`["` + strings.Repeat("x", 5000) + `"]`), "",
			`{"jsonrpc":"2.0","id":7,"method":"m","params":["` + strings.Repeat("x", 5000) + `"]}`},
		{
			"context headers: last value wins, reserved and invalid dropped",
			WithHeader(WithHeader(WithHeader(WithHeader(WithHeader(WithHeader(WithHeader(bg,
				"x-request-id", "r0"), "X-Request-Id", " r1 "), "traceparent", "00-1"),
				"content-length", "0"), "Connection", "close"), "X-Evil", "a\r\nX-Injected: 1"), "bad name", "v"),
			"m", json.RawMessage(`{}`),
			"X-Request-Id: r1\r\nTraceparent: 00-1\r\n",
			`{"jsonrpc":"2.0","id":7,"method":"m","params":{}}`,
		},
	}
	for _, tc := range testCases {
		bp := p.newRequest(tc.ctx, be, 7, tc.method, tc.params)
		want := head + tc.headers + "Content-Length: " + strconv.Itoa(len(tc.body)) + "\r\n\r\n" + tc.body
		if got := string(*bp); got != want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, want)
		}
		p.putRequest(bp)
	}
	if got, want := string(be.probe), head+"Content-Length: "+strconv.Itoa(len(probeBody))+"\r\n\r\n"+probeBody; got != want {
		t.Errorf("probe request:\n got %q\nwant %q", got, want)
	}
}
