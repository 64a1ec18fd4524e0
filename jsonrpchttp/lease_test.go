package jsonrpchttp_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// poisonLease is a lent result buffer that, once released, is overwritten
// (as a reused buffer would be): an answer written after the release
// carries the poison.
type poisonLease struct {
	mu       sync.Mutex
	buf      []byte
	released int
}

func (l *poisonLease) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.released++
	for i := 1; i < len(l.buf)-1; i++ {
		l.buf[i] = 'z'
	}
}

// leaseCaller answers every method "sizeN" with a JSON string of N bytes
// in a lent buffer.
type leaseCaller struct {
	fakeDispatcher
	mu     sync.Mutex
	leases []*poisonLease
}

func newLeaseCaller() *leaseCaller {
	c := &leaseCaller{}
	c.answer = c.call
	return c
}

func (c *leaseCaller) call(call *dispatch.Call) dispatch.Result {
	method := call.UpstreamMethod
	if method == "fail" {
		return dispatch.Result{Err: jsonrpc.NewError(jsonrpc.KindUpstreamUnavailable, "backend down", nil)}
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(method, "size"))
	l := &poisonLease{buf: []byte(`"` + strings.Repeat("a", n-2) + `"`)}
	c.mu.Lock()
	c.leases = append(c.leases, l)
	c.mu.Unlock()
	return dispatch.Result{Result: l.buf, Lease: l}
}

// TestLeasesReleasedAfterWriting: the handler gives every lent result back
// once, and only after the answer is written, for small results (copied)
// and large ones (written from the lent buffer itself), single and batched.
func TestLeasesReleasedAfterWriting(t *testing.T) {
	t.Parallel()
	const large = 100 << 10
	for _, tc := range []struct {
		name  string
		body  string
		sizes []int // the lent results, in answer order
	}{
		{"single small", `{"jsonrpc":"2.0","id":1,"method":"size100"}`, []int{100}},
		{"single large", `{"jsonrpc":"2.0","id":1,"method":"size` + strconv.Itoa(large) + `"}`, []int{large}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"size100"},{"jsonrpc":"2.0","id":2,"method":"fail"},{"jsonrpc":"2.0","id":3,"method":"size` + strconv.Itoa(large) + `"}]`, []int{100, large}},
		{"batch, large first", `[{"jsonrpc":"2.0","id":1,"method":"size` + strconv.Itoa(large) + `"},{"jsonrpc":"2.0","id":2,"method":"size200"}]`, []int{large, 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newLeaseCaller()
			h := jsonrpchttp.NewHandler(c, jsonrpchttp.HandlerOptions{})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body)))
			out := w.Body.Bytes()
			if bytes.Contains(out, []byte("zz")) {
				t.Fatalf("the answer was written after its buffer was released: %.200s", out)
			}
			if len(c.leases) != len(tc.sizes) {
				t.Fatalf("%d results lent, want %d", len(c.leases), len(tc.sizes))
			}
			for _, n := range tc.sizes {
				if !bytes.Contains(out, []byte(`"`+strings.Repeat("a", n-2)+`"`)) {
					t.Errorf("the answer lacks the result of %d bytes", n)
				}
			}
			for i, l := range c.leases {
				if l.released != 1 {
					t.Errorf("lease %d released %d times, want once", i, l.released)
				}
			}
		})
	}
}
