package backend

import (
	"errors"
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
		if !errors.Is(err, tc.wantErr) {
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
