package gateway

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/metrics"
)

// The operator page's figures, on the admin listener:
//
//	GET /admin/stats    cache hit ratio and fill; calls of the last minute; the top methods by rate and by upstream time
//	GET /admin/errors   the last errors calls were answered with (time, method, code, kind, backend)
//
// Methods are counted by method key (namespace.api.method, without
// params), in buckets of statBucket over the last statWindow; at most
// maxStatMethods distinct keys are kept, later ones count as otherMethods,
// so that clients sending made-up methods cannot grow the table.

const (
	statBucket     = 10 * time.Second
	statBuckets    = 6 // statWindow / statBucket
	statWindow     = statBucket * statBuckets
	maxStatMethods = 1000
	otherMethods   = "(other methods)"
	noMethod       = "(invalid method)"
)

// callStats counts calls per method key over the last statWindow.
type callStats struct {
	started time.Time
	mu      sync.RWMutex
	methods map[string]*methodStats // at most maxStatMethods+1 keys
}

// methodStats are one method's buckets.
type methodStats struct {
	mu      sync.Mutex
	buckets [statBuckets]bucket
}

// bucket counts the calls of one statBucket interval.
type bucket struct {
	slot                           int64 // start of the interval, in statBucket units since the epoch
	calls, errors, hits, upstreams int64
	upstreamTime                   time.Duration
}

// slotOf returns the bucket interval t falls in.
func slotOf(t time.Time) int64 { return t.UnixNano() / int64(statBucket) }

// method returns the stats of key, made on first use within the bound.
func (s *callStats) method(key string) *methodStats {
	s.mu.RLock()
	m, ok := s.methods[key]
	s.mu.RUnlock()
	if ok {
		return m
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.methods == nil {
		s.methods = map[string]*methodStats{}
	}
	if len(s.methods) >= maxStatMethods {
		key = otherMethods
	}
	if m, ok := s.methods[key]; ok {
		return m
	}
	m = &methodStats{}
	s.methods[key] = m
	return m
}

// wentUpstream reports whether a served call was answered by a backend
// (or failed there): a miss or an uncached route, with a result, a
// backend's error or an upstream failure.
func wentUpstream(res *dispatch.Result, outcome string) bool {
	if res.Cache != dispatch.CacheMiss && res.Cache != dispatch.CacheBypass {
		return false
	}
	switch jsonrpc.Kind(outcome) {
	case metrics.OutcomeOK, metrics.OutcomeBackendError, jsonrpc.KindUpstreamTimeout, jsonrpc.KindUpstreamUnavailable,
		jsonrpc.KindInvalidUpstreamResponse, jsonrpc.KindUpstreamResponseTooLarge:
		return true
	}
	return false
}

// record counts one served call at now; d is the time it took, counted as
// upstream time when it went upstream.
func (s *callStats) record(now time.Time, key string, res *dispatch.Result, outcome string, d time.Duration) {
	m := s.method(key)
	slot := slotOf(now)
	m.mu.Lock()
	b := &m.buckets[slot%statBuckets]
	if b.slot != slot {
		*b = bucket{slot: slot}
	}
	b.calls++
	if res.Err != nil {
		b.errors++
	}
	if res.Cache == dispatch.CacheHit {
		b.hits++
	}
	if wentUpstream(res, outcome) {
		b.upstreams++
		b.upstreamTime += d
	}
	m.mu.Unlock()
}

// MethodStat is one method's figures over the window GET /admin/stats
// reports.
type MethodStat struct {
	Method         string  `json:"method"`
	Calls          int64   `json:"calls"`
	RatePerSecond  float64 `json:"rate_per_s"`
	Errors         int64   `json:"errors"`
	CacheHits      int64   `json:"cache_hits"`
	UpstreamCalls  int64   `json:"upstream_calls"`
	UpstreamTimeMS float64 `json:"upstream_time_ms"`
	UpstreamMeanMS float64 `json:"upstream_mean_ms"`
}

// window returns every method's figures over the window ending at now and
// the window's length: the statBuckets-1 last buckets and the current one,
// so between statWindow-statBucket and statWindow, or less while the
// gateway is younger.
func (s *callStats) window(now time.Time) ([]MethodStat, time.Duration) {
	cur := slotOf(now)
	span := min(now.Sub(time.Unix(0, (cur-statBuckets+1)*int64(statBucket))), now.Sub(s.started))
	secs := max(span.Seconds(), 1)
	var out []MethodStat
	s.mu.RLock()
	defer s.mu.RUnlock()
	for k, m := range s.methods {
		st := MethodStat{Method: k}
		var up time.Duration
		m.mu.Lock()
		for _, b := range m.buckets {
			if b.slot > cur-statBuckets && b.slot <= cur {
				st.Calls += b.calls
				st.Errors += b.errors
				st.CacheHits += b.hits
				st.UpstreamCalls += b.upstreams
				up += b.upstreamTime
			}
		}
		m.mu.Unlock()
		if st.Calls == 0 {
			continue
		}
		st.RatePerSecond = round3(float64(st.Calls) / secs)
		st.UpstreamTimeMS = round3(float64(up.Nanoseconds()) / 1e6)
		if st.UpstreamCalls > 0 {
			st.UpstreamMeanMS = round3(float64(up.Microseconds()) / 1000 / float64(st.UpstreamCalls))
		}
		out = append(out, st)
	}
	return out, span
}

// round3 rounds to three decimals, for JSON a person reads.
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// errorRingSize is how many recent errors GET /admin/errors keeps.
const errorRingSize = 100

// RecentError is one call answered with an error, as GET /admin/errors
// shows it.
type RecentError struct {
	Time     time.Time `json:"time"`
	Frontend string    `json:"frontend"`
	Method   string    `json:"method"`
	// Code is the JSON-RPC error code the client got, Kind the gateway's
	// error kind (backend_error for a node's own error).
	Code int    `json:"code"`
	Kind string `json:"kind"`
	// Message is the message the client got, at most 200 bytes: gateway
	// errors name backends, never node URLs.
	Message string `json:"message"`
	// Backend is the backend the call's route names ("" when unrouted).
	Backend string `json:"backend,omitempty"`
}

// errorRing keeps the last errorRingSize errors.
type errorRing struct {
	mu    sync.Mutex
	buf   [errorRingSize]RecentError
	total int64
}

// add records an error.
func (r *errorRing) add(e RecentError) {
	r.mu.Lock()
	r.buf[r.total%errorRingSize] = e
	r.total++
	r.mu.Unlock()
}

// recent returns the kept errors, newest first, and how many there were in
// all.
func (r *errorRing) recent() ([]RecentError, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := min(r.total, errorRingSize)
	out := make([]RecentError, 0, n)
	for i := range n {
		out = append(out, r.buf[(r.total-1-i)%errorRingSize])
	}
	return out, r.total
}

// opsObserver records served calls for the operator page: one per
// generation, which knows its routes' backends.
type opsObserver struct {
	st       *operatorState
	backends map[string]string // urls key → backend name
}

// forConfig returns the observer of a generation of cfg.
func (o *operatorState) forConfig(cfg *config.Config) *opsObserver {
	b := make(map[string]string, len(cfg.URLs))
	for _, e := range cfg.URLs {
		b[e.Key] = e.Value
	}
	return &opsObserver{st: o, backends: b}
}

// served records one call served by frontend: its figures, and its error
// in the ring.
func (o *opsObserver) served(frontend string, res *dispatch.Result, outcome string, d time.Duration) {
	if o == nil {
		return
	}
	key := noMethod
	if res.Key != "" {
		key, _, _ = strings.Cut(res.Key, ".params=")
	}
	now := o.st.now()
	o.st.stats.record(now, key, res, outcome, d)
	if res.Err == nil {
		return
	}
	msg := res.Err.Message
	if len(msg) > 200 {
		msg = strings.ToValidUTF8(msg[:200], "") + "…"
	}
	o.st.errors.add(RecentError{
		Time: now.UTC(), Frontend: frontend, Method: key, Code: int(res.Err.Code), Kind: outcome,
		Message: msg, Backend: o.backends[res.Route],
	})
}

// latencies are the nodes' moving average call times, in nanoseconds,
// by backend name and shown URL.
type latencies struct {
	mu sync.RWMutex
	ns map[[2]string]*atomic.Int64
}

// latencyWeight is the weight of a new sample in the moving average.
const latencyWeight = 0.2

// observeLatency adds the time of a call one node answered in one
// attempt.
func (o *operatorState) observeLatency(backendName, shownURL string, d time.Duration) {
	k := [2]string{backendName, shownURL}
	l := &o.latency
	l.mu.RLock()
	a := l.ns[k]
	l.mu.RUnlock()
	if a == nil {
		l.mu.Lock()
		if a = l.ns[k]; a == nil {
			if l.ns == nil {
				l.ns = map[[2]string]*atomic.Int64{}
			}
			a = &atomic.Int64{}
			l.ns[k] = a
		}
		l.mu.Unlock()
	}
	for {
		old := a.Load()
		next := int64(d)
		if old != 0 {
			next = old + int64(latencyWeight*float64(int64(d)-old))
		}
		if a.CompareAndSwap(old, max(next, 1)) {
			return
		}
	}
}

// latencyMS returns a node's moving average in milliseconds; nil before
// its first call.
func (o *operatorState) latencyMS(backendName, shownURL string) *float64 {
	o.latency.mu.RLock()
	a := o.latency.ns[[2]string{backendName, shownURL}]
	o.latency.mu.RUnlock()
	if a == nil {
		return nil
	}
	ms := round3(float64(a.Load()) / 1e6)
	return &ms
}

// adminStats answers GET /admin/stats[?top=N]: the in-process cache's hit
// ratio and fill, the calls of the last minute, and the top N (10; at most
// 100) methods by rate and by upstream time.
func (g *Gateway) adminStats(w http.ResponseWriter, r *http.Request) {
	top := 10
	if s := r.URL.Query().Get("top"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "top is a number from 1 to 100"})
			return
		}
		top = n
	}
	type cacheView struct {
		cacheHealth
		HitRatio  *float64 `json:"hit_ratio"`
		FillRatio float64  `json:"fill_ratio"`
	}
	var out struct {
		Now      time.Time    `json:"now"`
		Since    time.Time    `json:"counting_since"`
		Cache    *cacheView   `json:"cache"`
		WindowS  float64      `json:"window_s"`
		Calls    int64        `json:"calls"`
		Rate     float64      `json:"rate_per_s"`
		Errors   int64        `json:"errors"`
		FromHits *float64     `json:"served_from_cache"`
		ByRate   []MethodStat `json:"top_by_rate"`
		ByTime   []MethodStat `json:"top_by_upstream_time"`
	}
	now := g.ops.now()
	out.Now, out.Since = now.UTC(), g.ops.stats.started.UTC()
	if g.cache != nil {
		st := g.cache.Stats()
		c := &cacheView{cacheHealth: cacheHealth{st.Entries, st.Bytes, st.Capacity, st.Hits, st.Misses, st.Evictions, st.Expired}}
		if n := st.Hits + st.Misses; n > 0 {
			r := round3(float64(st.Hits) / float64(n))
			c.HitRatio = &r
		}
		if st.Capacity > 0 {
			c.FillRatio = round3(float64(st.Bytes) / float64(st.Capacity))
		}
		out.Cache = c
	}
	all, span := g.ops.stats.window(now)
	out.WindowS = round3(span.Seconds())
	var hits int64
	for _, m := range all {
		out.Calls += m.Calls
		out.Errors += m.Errors
		hits += m.CacheHits
	}
	out.Rate = round3(float64(out.Calls) / max(span.Seconds(), 1))
	if out.Calls > 0 {
		r := round3(float64(hits) / float64(out.Calls))
		out.FromHits = &r
	}
	out.ByRate = topBy(all, top, func(m MethodStat) float64 { return float64(m.Calls) })
	out.ByTime = topBy(all, top, func(m MethodStat) float64 { return m.UpstreamTimeMS })
	writeJSON(w, http.StatusOK, out)
}

// topBy returns the n methods with the highest positive value of by,
// highest first, ties by name.
func topBy(all []MethodStat, n int, by func(MethodStat) float64) []MethodStat {
	out := make([]MethodStat, 0, n)
	for _, m := range all {
		if by(m) > 0 {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b MethodStat) int {
		if c := cmp.Compare(by(b), by(a)); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out[:min(n, len(out))]
}

// adminErrors answers GET /admin/errors: the last errors, newest first.
func (g *Gateway) adminErrors(w http.ResponseWriter, _ *http.Request) {
	errs, total := g.ops.errors.recent()
	writeJSON(w, http.StatusOK, struct {
		Capacity int           `json:"capacity"`
		Total    int64         `json:"total"`
		Errors   []RecentError `json:"errors"`
	}{errorRingSize, total, errs})
}
