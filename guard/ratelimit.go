package guard

import (
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/time/rate"

	"github.com/hivegate/hivegate/jsonrpc"
)

// limiter is a token bucket (golang.org/x/time/rate) per client address,
// kept in an LRU of bounded size so that a flood of distinct addresses
// costs bounded memory (about 200 bytes per address).
type limiter struct {
	rate  rate.Limit // tokens added per second
	burst int        // bucket size
	mu    sync.Mutex // guards lru; each rate.Limiter has its own lock
	lru   *simplelru.LRU[netip.Addr, *rate.Limiter]
}

func newLimiter(perSecond float64, burst, clients int) *limiter {
	lru, err := simplelru.NewLRU[netip.Addr, *rate.Limiter](clients, nil)
	if err != nil {
		panic("jsonrpc: " + err.Error()) // clients > 0 is checked by the caller
	}
	return &limiter{rate: rate.Limit(perSecond), burst: burst, lru: lru}
}

// take removes n tokens from addr's bucket when it holds them. When it does
// not, nothing is taken and wait is how long until it will (for n beyond
// the burst: until it would, were the bucket that large).
func (l *limiter) take(addr netip.Addr, n int, now time.Time) (ok bool, wait time.Duration) {
	l.mu.Lock()
	lim, found := l.lru.Get(addr)
	if !found {
		lim = rate.NewLimiter(l.rate, l.burst)
		l.lru.Add(addr, lim)
	}
	l.mu.Unlock()
	if lim.AllowN(now, n) {
		return true, 0
	}
	// AllowN took nothing; the wait is only a hint (Retry-After), so a
	// concurrent request of the same client between the two calls does
	// not matter.
	missing := float64(n) - lim.TokensAt(now)
	return false, time.Duration(max(0, missing) / float64(l.rate) * float64(time.Second))
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
		strconv.FormatFloat(float64(l.rate), 'f', -1, 64), l.burst)
}
