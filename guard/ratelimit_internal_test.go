package guard

import (
	"net/netip"
	"testing"
	"time"
)

// TestLimiterBucket checks the token bucket with an explicit clock: the
// burst, the refill at the configured rate, the cap at the burst, the wait
// it reports, and that clients do not share tokens.
func TestLimiterBucket(t *testing.T) {
	t.Parallel()
	l := newLimiter(2, 3, 10) // 2 per second, burst 3
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	t0 := time.Unix(1000, 0)
	steps := []struct {
		addr     netip.Addr
		at       time.Duration
		n        int
		ok       bool
		wantWait time.Duration
	}{
		{a, 0, 1, true, 0},
		{a, 0, 1, true, 0},
		{a, 0, 1, true, 0},
		{a, 0, 1, false, 500 * time.Millisecond}, // empty: one token in 1/2 s
		{b, 0, 3, true, 0},                       // another client has its own bucket
		{a, 500 * time.Millisecond, 1, true, 0},  // refilled one
		{a, 500 * time.Millisecond, 1, false, 500 * time.Millisecond},
		{a, time.Hour, 3, true, 0},                       // refill is capped at the burst...
		{a, time.Hour, 1, false, 500 * time.Millisecond}, // ...not an hour's worth
		{a, time.Hour, 4, false, 2 * time.Second},        // more than the burst never fits now
	}
	for i, s := range steps {
		ok, wait := l.take(s.addr, s.n, t0.Add(s.at))
		if ok != s.ok || wait != s.wantWait {
			t.Errorf("step %d: take(%v, %d) at +%v = %v, %v; want %v, %v", i, s.addr, s.n, s.at, ok, wait, s.ok, s.wantWait)
		}
	}
}

// TestLimiterBoundedClients checks that the limiter forgets the least
// recently seen client beyond its capacity, so a flood of addresses costs
// bounded memory.
func TestLimiterBoundedClients(t *testing.T) {
	t.Parallel()
	l := newLimiter(1, 1, 100)
	now := time.Unix(0, 0)
	for i := range 10_000 {
		addr := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		l.take(addr, 1, now)
	}
	if n := l.clients(); n != 100 {
		t.Errorf("%d buckets held, want 100", n)
	}
}
