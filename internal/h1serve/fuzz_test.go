package h1serve_test

import (
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/h1serve"
)

// fuzzWait bounds one exchange of the fuzz target; the servers' own
// timeouts are shorter, so that no input can keep a connection open.
const fuzzWait = 2 * time.Second

// maxSeed bounds the size of the seeds taken from the table.
const maxSeed = 16 << 10

// FuzzServe writes arbitrary bytes on a fresh connection, half-closes it,
// and requires the fast path (with its fallback) to answer exactly as a
// plain net/http server with the same echoing handler: the same statuses,
// bodies and headers (Date aside), in the same number, and no panic or
// hang. The seeds are the inputs of the differential table.
func FuzzServe(f *testing.F) {
	for _, tc := range rawCases {
		// The 1 MiB head is left out: minimizing inputs that size stalls
		// the fuzzer for its whole minimization budget.
		if len(tc.raw) <= maxSeed {
			f.Add([]byte(tc.raw))
		}
	}
	h := echoHandler()
	timeouts := func(s *http.Server) {
		s.ReadHeaderTimeout = time.Second
		s.ReadTimeout = time.Second
		s.WriteTimeout = time.Second
	}
	fast := startFast(f, h, fastConfig{
		opts: h1serve.Options{ReadHeaderTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second},
		fb:   timeouts,
	})
	plain := startPlain(f, h, timeouts)
	var src sources
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := exchangeOn(t, src.dialer(fast.addr), raw, fuzzWait)
		want := exchangeOn(t, src.dialer(plain), raw, fuzzWait)
		if d := diffAnswers(got, want); d != "" {
			t.Fatalf("input %q: fast path and net/http differ:\n%s", raw, d)
		}
	})
}

// sources spreads the fuzz target's connections over source addresses in
// 127.0.0.0/8: the client closes first, so each connection leaves a
// TIME_WAIT entry, and one source address runs out of ephemeral ports (and
// connects slowly) within a minute of fuzzing.
type sources struct{ n atomic.Uint32 }

// dialer returns a dial function to addr from the next source address,
// falling back to the default one where only 127.0.0.1 is usable.
func (s *sources) dialer(addr string) func() (net.Conn, error) {
	return func() (net.Conn, error) {
		n := s.n.Add(1)
		ip := net.IPv4(127, byte(1+n/250%250), byte(1+n%250), 2)
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: ioWait}
		if c, err := d.Dial("tcp", addr); err == nil {
			return c, nil
		}
		return net.DialTimeout("tcp", addr, ioWait)
	}
}
