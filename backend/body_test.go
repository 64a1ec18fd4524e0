package backend

import (
	"bytes"
	"encoding/json"
	"io"
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

func TestRequestBodyReferences(t *testing.T) {
	t.Parallel()
	p := &Pool{}
	p.reqBufs.New = func() any { b := make([]byte, 0, 8); return &b }
	body := p.newRequestBody(42, `a"b`, json.RawMessage(`[1]`))
	const want = `{"jsonrpc":"2.0","id":42,"method":"a\"b","params":[1]}`
	r1, r2 := body.newReader(), body.newReader()
	var out bytes.Buffer
	if _, err := r1.WriteTo(&out); err != nil || out.String() != want {
		t.Fatalf("WriteTo: %q, %v", out.String(), err)
	}
	got, err := io.ReadAll(r2)
	if err != nil || string(got) != want {
		t.Fatalf("Read: %q, %v", got, err)
	}
	body.release() // the call's own reference
	if body.refs.Load() != 2 {
		t.Fatalf("refs = %d, want 2 readers", body.refs.Load())
	}
	_ = r1.Close()
	_ = r1.Close() // idempotent
	if body.buf == nil || body.refs.Load() != 1 {
		t.Fatalf("refs = %d after closing one reader twice", body.refs.Load())
	}
	_ = r2.Close()
	if body.buf != nil {
		t.Error("buffer not released after the last reference")
	}
	if _, err := r2.Read(make([]byte, 1)); err != errBodyClosed {
		t.Errorf("Read after Close: %v", err)
	}
	empty := p.newRequestBody(1, "m", json.RawMessage{})
	if got := string(empty.bytes()); got != `{"jsonrpc":"2.0","id":1,"method":"m"}` {
		t.Errorf("empty params body %q", got)
	}
}
