// Package quota counts weighted calls against quotas per client address and
// per API key (the config's `quotas:` section): a Limiter holds the
// counters, in memory or shared by every replica through the Redis tier,
// and a Policy (policy.go) names the subject of a request and weighs its
// calls by the method keys the front ends' router calls hold. It is asked
// at dispatch's one door, about a request's calls together, before any is
// served: the dispatcher's Admit hook, which finds the request's Request
// in its context (gateway/quota_wiring.go).
//
// Counting is GCRA (the generic cell rate algorithm, a token bucket kept as
// one timestamp): a class allows Limit units per Period, at most Burst at
// once; a call that does not fit is refused with the time until it would.
package quota

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hivegate/hivegate/config"
)

// DefaultMaxSubjects bounds the subjects whose counters are kept in memory;
// the least recently seen is forgotten first (and starts again with a full
// bucket), as the Guard's rate limiter does.
const DefaultMaxSubjects = 65536

// Options configure a Limiter.
type Options struct {
	// Cache is the config's cache section: with a redis_url, counters are
	// shared through that Redis (under redis_prefix + "q:"), within
	// redis_timeout, behind a breaker of redis_breaker_failures and
	// redis_breaker_cooldown; without one, or while Redis fails, they are
	// counted in memory.
	Cache config.CacheSettings
	// Now is the clock; nil means time.Now. With Redis, every replica's
	// clock counts: keep them in step (NTP).
	Now func() time.Time
	// MaxSubjects bounds the in-memory counters (DefaultMaxSubjects when 0).
	MaxSubjects int
	// Registerer receives the quota metrics (nil: not registered), named
	// Namespace_quota_*.
	Registerer prometheus.Registerer
	Namespace  string
	// Logger receives Redis failures (rate-limited); nil discards.
	Logger *slog.Logger
}

// Subject is who a call counts against.
type Subject struct {
	// Kind is SubjectAddress, SubjectKey or SubjectApp.
	Kind string
	// Name is the key's configured name or the app's client id; empty for
	// an address. It is the metrics' key label: never the key itself.
	Name string
	// id is the counter's name: the kind and the address or name.
	id string
	// Class is the limit the subject is held to.
	Class config.QuotaClass
}

// The kinds of subject (the metrics' subject label).
const (
	SubjectAddress = "address"
	SubjectKey     = "key"
	SubjectApp     = "app"
)

// Limiter counts weighted calls per subject. Safe for concurrent use.
type Limiter struct {
	now   func() time.Time
	local *memory
	redis *redisCounter // nil without the shared tier
	m     *instruments
	log   *slog.Logger
}

// NewLimiter returns a Limiter. It does not connect to Redis: a Redis that
// is down is found out, and counted around, at the first call.
func NewLimiter(o Options) (*Limiter, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxSubjects <= 0 {
		o.MaxSubjects = DefaultMaxSubjects
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	l := &Limiter{now: o.Now, local: newMemory(o.MaxSubjects), log: o.Logger, m: newInstruments(o.Namespace)}
	if o.Cache.Enabled() {
		r, err := newRedisCounter(o.Cache, o.Now, o.Logger)
		if err != nil {
			return nil, err
		}
		l.redis = r
	}
	if o.Registerer != nil {
		if err := l.m.register(o.Registerer); err != nil {
			_ = l.Close()
			return nil, err
		}
	}
	return l, nil
}

// Close releases the Redis connections.
func (l *Limiter) Close() error {
	if l.redis != nil {
		return l.redis.close()
	}
	return nil
}

// Admit charges weight units to s. When s has not got them, nothing is
// charged and retryAfter is how long until it will.
func (l *Limiter) Admit(ctx context.Context, s Subject, weight int) (ok bool, retryAfter time.Duration) {
	var wait [1]time.Duration
	l.AdmitEach(ctx, s, []int{weight}, wait[:])
	return wait[0] == 0, wait[0]
}

// AdmitEach charges the calls of one request, in order, each its own
// weight: waits[i] is 0 for a call admitted, else how long until it would
// be. A call that does not fit does not stop a lighter one after it. One
// Redis round trip for them all.
func (l *Limiter) AdmitEach(ctx context.Context, s Subject, weights []int, waits []time.Duration) {
	tol, costs := costsOf(s.Class, weights)
	now := l.now().UnixMicro()
	done := false
	if l.redis != nil {
		done = l.redis.admit(ctx, s.id, now, tol, costs, waits, l.m)
	}
	if !done {
		l.local.admit(s.id, now, tol, costs, waits)
	}
	for i, w := range weights {
		l.m.observe(s, w, waits[i] == 0)
	}
}

// costsOf converts weights into GCRA costs in microseconds: a unit costs
// Period/Limit; the tolerance is Burst units. A call weighing more than
// the burst costs the burst: it is admitted with a full bucket.
func costsOf(c config.QuotaClass, weights []int) (tol int64, costs []int64) {
	unit := float64(c.Period.Microseconds()) / float64(max(1, c.Limit))
	tol = int64(math.Floor(float64(max(1, c.Burst)) * unit))
	costs = make([]int64, len(weights))
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		costs[i] = min(tol, max(1, int64(math.Ceil(float64(w)*unit))))
	}
	return tol, costs
}

// gcra applies the costs to a theoretical arrival time tat (µs): each cost
// that keeps tat within tol of now is admitted and added. It returns the
// new tat; waits get 0 or the time a refused cost would have to wait.
// redis.go's Lua script is the same algorithm.
func gcra(tat, now, tol int64, costs []int64, waits []time.Duration) int64 {
	tat = max(tat, now)
	for i, c := range costs {
		next := tat + c
		if wait := next - now - tol; wait > 0 {
			waits[i] = time.Duration(wait) * time.Microsecond
			continue
		}
		waits[i] = 0
		tat = next
	}
	return tat
}

// memory is the in-process counter store: a theoretical arrival time per
// subject in an LRU of bounded size.
type memory struct {
	mu  sync.Mutex
	lru *simplelru.LRU[string, int64]
}

func newMemory(size int) *memory {
	lru, err := simplelru.NewLRU[string, int64](size, nil)
	if err != nil {
		panic("quota: " + err.Error()) // size > 0 is checked by the caller
	}
	return &memory{lru: lru}
}

func (m *memory) admit(id string, now, tol int64, costs []int64, waits []time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tat, _ := m.lru.Get(id)
	if next := gcra(tat, now, tol, costs, waits); next > now {
		m.lru.Add(id, next)
	}
}
