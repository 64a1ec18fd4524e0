package auth

import (
	"net/http"
	"net/netip"
	"strconv"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/hivegate/hivegate/clientip"
)

// limiter bounds the requests per minute of each client address on the
// login and token endpoints: guessing codes, secrets or challenge
// signatures is slow work. The most recent clients are tracked (an address
// pushed out starts again with a full allowance).
type limiter struct {
	perMinute int
	clients   *lru.Cache[netip.Addr, *rate.Limiter]
	ip        clientip.Options
	now       func() time.Time
}

// limiterClients is how many client addresses a limiter remembers.
const limiterClients = 1 << 14

func newLimiter(perMinute int, ip clientip.Options, now func() time.Time) *limiter {
	c, _ := lru.New[netip.Addr, *rate.Limiter](limiterClients) // the size is positive
	return &limiter{perMinute: perMinute, clients: c, ip: ip, now: now}
}

// allow takes one request of r's client from its allowance; when none is
// left it returns the wait before the next one.
func (l *limiter) allow(r *http.Request) (bool, time.Duration) {
	addr := clientip.Addr(r, l.ip)
	lim, ok := l.clients.Get(addr)
	if !ok {
		lim = rate.NewLimiter(rate.Every(time.Minute/time.Duration(l.perMinute)), l.perMinute)
		l.clients.Add(addr, lim)
	}
	now := l.now()
	if lim.AllowN(now, 1) {
		return true, 0
	}
	interval := time.Minute / time.Duration(l.perMinute)
	return false, time.Duration((1 - lim.TokensAt(now)) * float64(interval))
}

// limited answers a refused request: HTTP 429 with Retry-After and an
// OAuth error body. It reports whether r was refused.
func (l *limiter) limited(w http.ResponseWriter, r *http.Request) bool {
	ok, wait := l.allow(r)
	if ok {
		return false
	}
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(wait.Round(time.Second)/time.Second))))
	writeError(w, http.StatusTooManyRequests, "slow_down", "too many requests from this address; retry later")
	return true
}
