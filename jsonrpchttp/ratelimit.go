package jsonrpchttp

import (
	"github.com/hivegate/hivegate/jsonrpc"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// limiter is a token bucket per client address, kept in an LRU of bounded
// size so that a flood of distinct addresses costs bounded memory (about
// 150 bytes per address).
type limiter struct {
	rate  float64 // tokens added per second
	burst int     // bucket size
	mu    sync.Mutex
	lru   *simplelru.LRU[netip.Addr, *bucket]
}

// bucket is one client's tokens as of last.
type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate float64, burst, clients int) *limiter {
	lru, err := simplelru.NewLRU[netip.Addr, *bucket](clients, nil)
	if err != nil {
		panic("jsonrpc: " + err.Error()) // clients > 0 is checked by the caller
	}
	return &limiter{rate: rate, burst: burst, lru: lru}
}

// take removes n tokens from addr's bucket when it holds them. When it does
// not, nothing is taken and wait is how long until it will.
func (l *limiter) take(addr netip.Addr, n float64, now time.Time) (ok bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.lru.Get(addr)
	if !found {
		b = &bucket{tokens: float64(l.burst), last: now}
		l.lru.Add(addr, b)
	} else if d := now.Sub(b.last); d > 0 {
		b.tokens = min(float64(l.burst), b.tokens+d.Seconds()*l.rate)
		b.last = now
	}
	if b.tokens >= n {
		b.tokens -= n
		return true, 0
	}
	return false, time.Duration((n - b.tokens) / l.rate * float64(time.Second))
}

// clients returns the number of client buckets held.
func (l *limiter) clients() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

// refusal is the error of a client over its rate.
func (l *limiter) refusal() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.KindRateLimited, "more than %s calls per second (burst %d) from your address",
		strconv.FormatFloat(l.rate, 'f', -1, 64), l.burst)
}
