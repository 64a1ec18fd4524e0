// Package dispatch is the one path every call takes, whichever front end it
// came from: route → cache → coalesced upstream call → TTL policy → store.
package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// CacheStatus says how a call was served; it is sent in x-hivegate-cache.
type CacheStatus string

// The cache statuses.
const (
	CacheHit       CacheStatus = "hit"       // served from the cache
	CacheMiss      CacheStatus = "miss"      // this call went upstream
	CacheBypass    CacheStatus = "bypass"    // the route does not cache (or the call failed before the cache)
	CacheCoalesced CacheStatus = "coalesced" // joined another client's identical upstream call
)

// Result is the answer to one call.
type Result struct {
	// Result is the raw result bytes; shared with the cache, never modify.
	Result json.RawMessage
	// Err is a backend JSON-RPC error (passed through) or a gateway error.
	Err   *jsonrpc.Error
	Cache CacheStatus
	// Route is the urls config key that routed the call; empty when none did.
	Route string
	// Key is the call's canonical key; empty when the method was invalid.
	Key string
	// Forms, when not nil, keeps forms derived from Result (the cache
	// entry it came from or went into): a front end keeps what it makes of
	// Result there (a compressed form, a decoded message), charged to the
	// cache budget, so that the next hit does not make it again.
	Forms Forms
	// RetryAfter, when not zero, is how long the client should wait before
	// it makes the call again: a call over its quota (Hooks.Admit). The
	// front ends send it as Retry-After.
	RetryAfter time.Duration
	// Lease, when not nil, holds the buffer Result lives in, lent by the
	// backend pool: a result no one else holds (not cached, not shared by
	// coalesced callers). See Release.
	Lease Releaser
}

// Forms keeps the forms derived from a result, each under a key of its
// owner's type; *cache.Entry implements it (cache.Entry.SetDerived).
type Forms interface {
	// Derived returns the form kept under k, or nil.
	Derived(k any) any
	// SetDerived keeps v under k, charged size bytes, and reports
	// whether it did (false: no room, or the entry left the cache).
	SetDerived(k, v any, size int) bool
	// GrowDerived charges n more bytes to v, still the form under k, and
	// reports whether it did (false: keep nothing more with v).
	GrowDerived(k, v any, n int) bool
}

// Releaser gives back a lent buffer; *backend.Lease implements it.
type Releaser interface {
	Release()
}

// Release ends the result's lease, when it has one: the front end that got
// the Result from Serve calls it once it has written Result out, and reads
// Result no more (it is cleared). The lease begins in the backend pool,
// which reads the answer into a pooled buffer, and this is its one
// hand-over. A result without a lease is left as it is.
func (r *Result) Release() {
	if r.Lease != nil {
		r.Lease.Release()
		r.Lease, r.Result = nil, nil
	}
}

// Dispatcher ties router, cache and backend pool together. Safe for
// concurrent use; the router can be swapped atomically on config reload.
type Dispatcher struct {
	router  atomic.Pointer[router.Router]
	cache   *cache.Cache
	pool    *backend.Pool
	lib     *backend.LIBTracker
	flights flights
	log     *slog.Logger
	// tier is the in-process cache in front of the shared Redis tier; nil
	// without one (see WithSharedCache).
	tier *cache.Tiered
	// libGap and libSeen sample the get_dynamic_global_properties answers
	// the LIB tracker reads (observeLIB).
	libGap  time.Duration
	libSeen atomic.Int64
	// maxBatch and noBatch are runBatch's settings (WithUpstreamBatching).
	maxBatch int
	noBatch  map[string]bool
	// waiter and waits are the block wait's (WithBlockWait, blockwait.go).
	waiter BlockWaiter
	waits  *BlockWaitCounts
}

// New returns a Dispatcher. c may be nil (no in-process caching); lib may
// be nil (every block counts as reversible).
func New(r *router.Router, c *cache.Cache, p *backend.Pool, lib *backend.LIBTracker, logger *slog.Logger, opts ...Option) *Dispatcher {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{cache: c, pool: p, lib: lib, log: logger, libGap: DefaultLIBObserveGap, maxBatch: DefaultMaxUpstreamBatch, waits: new(BlockWaitCounts)}
	for _, opt := range opts {
		opt(d)
	}
	d.router.Store(r)
	return d
}

// Router returns the router in use.
func (d *Dispatcher) Router() *router.Router { return d.router.Load() }

// SetRouter swaps the router (config reload); calls in flight finish on the
// router they started with.
func (d *Dispatcher) SetRouter(r *router.Router) { d.router.Store(r) }

// Cache returns the cache (nil when caching is off).
func (d *Dispatcher) Cache() *cache.Cache { return d.cache }

// Pool returns the backend pool.
func (d *Dispatcher) Pool() *backend.Pool { return d.pool }

// FlightStats counts the coalesced upstream calls in flight.
type FlightStats struct {
	// Calls is the number of upstream calls some client is waiting on.
	Calls int
	// Waiters is the number of clients waiting on them (at least Calls).
	Waiters int
}

// Flights returns how many coalesced upstream calls are in flight and how
// many clients wait on them, for metrics and tests.
func (d *Dispatcher) Flights() FlightStats { return d.flights.stats() }

// invalidDetail is the client-visible detail of a method the router cannot
// parse, without the "invalid method: " prefix the error's own text has.
func invalidDetail(err error) string {
	return strings.TrimPrefix(err.Error(), router.ErrInvalidMethod.Error()+": ")
}

// keyPath is a key without its params segment: params can be large and
// are the client's own, so error messages leave them out.
func keyPath(key string) string {
	if i := strings.Index(key, ".params="); i >= 0 {
		return key[:i]
	}
	return key
}

// outcome is one upstream exchange.
type outcome struct {
	resp   backend.Response
	result json.RawMessage
	err    error
	entry  *cache.Entry
	shared bool // the result came from the shared cache tier
}

func (o outcome) rpcErr() *jsonrpc.Error {
	if o.err != nil {
		var je *jsonrpc.Error
		if errors.As(o.err, &je) {
			return je
		}
		if errors.Is(o.err, context.Canceled) || errors.Is(o.err, context.DeadlineExceeded) {
			return jsonrpc.NewError(jsonrpc.KindUpstreamTimeout, "the request was cancelled", o.err)
		}
		return jsonrpc.NewError(jsonrpc.KindInternal, "", o.err)
	}
	return o.resp.Error
}

// upstream makes the call. The result of a call to be cached comes in a
// buffer that starts with the key (backend.Request.ResultPrefix), which the
// cache takes over as the entry's: the result is copied once, not twice.
// A result that only one caller will read (pooled) stays in the pooled
// buffer it was read into (backend.Request.PooledResult).
func (d *Dispatcher) upstream(ctx context.Context, c *router.Call, rt router.Route, cacheable, pooled bool) outcome {
	resp, err := d.pool.Call(ctx, rt.Backend, upstreamRequest(c, rt, cacheable, pooled))
	return d.outcomeOf(c, rt, resp, err)
}

// upstreamRequest is the backend request of a call.
func upstreamRequest(c *router.Call, rt router.Route, cacheable, pooled bool) backend.Request {
	req := backend.Request{
		Method:       c.UpstreamMethod,
		Params:       c.UpstreamParams,
		Timeout:      rt.Timeout,
		Retries:      rt.Retries,
		Once:         rt.Broadcast, // a transaction must not reach the node twice
		PooledResult: pooled && !cacheable,
	}
	if cacheable {
		req.ResultPrefix = c.Key
	}
	return req
}

// outcomeOf is the outcome of a call's backend answer; it logs failures
// and feeds get_dynamic_global_properties answers to the LIB tracker.
func (d *Dispatcher) outcomeOf(c *router.Call, rt router.Route, resp backend.Response, err error) outcome {
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			d.log.Warn("upstream call failed", "key", c.Key, "backend", rt.Backend, "error", err)
		}
		return outcome{err: err, resp: resp}
	}
	if resp.Error == nil && d.lib != nil && c.Method == "get_dynamic_global_properties" && d.observeDue() {
		d.lib.Observe(resp.Result)
	}
	return outcome{resp: resp, result: resp.Result}
}

// store applies the route's TTL policy and caches the result. resp is the
// backend's answer: its Buffer, when not nil, holds the key then the result
// and is handed over to the cache; its MaxAge serves
// HONOR_UPSTREAM_CACHE_CONTROL.
func (d *Dispatcher) store(c *router.Call, rt router.Route, result json.RawMessage, resp backend.Response) *cache.Entry {
	buf := resp.Buffer
	var ttl time.Duration
	switch rt.TTL.Kind {
	case config.TTLSeconds:
		ttl = rt.TTL.Duration()
	case config.TTLNoExpire:
		ttl = cache.NoExpiry
	case config.TTLExpireIfReversible:
		// A call with no block number in its params (say
		// get_dynamic_global_properties) is not cached: its answer changes
		// with every block, and both Drone and jussi leave it uncached.
		n, ok := cache.BlockNum(c.APIMethod(), c.Params)
		if !ok {
			return nil
		}
		var lib uint64
		if d.lib != nil {
			lib = d.lib.LastIrreversible()
		}
		var store bool
		if ttl, store = cache.ReversibleTTL(n, lib, result); !store {
			return nil
		}
	case config.TTLUpstreamCacheControl:
		// As long as the backend's Cache-Control max-age says; an answer
		// without one (or with max-age=0, no-store, no-cache) is not cached.
		if resp.MaxAge <= 0 {
			return nil
		}
		ttl = resp.MaxAge
	default:
		return nil
	}
	var e *cache.Entry
	switch {
	case buf != nil && d.tier != nil:
		e, _ = d.tier.StoreBuffer(buf, len(c.Key), ttl)
	case buf != nil:
		e, _ = d.cache.StoreBuffer(buf, len(c.Key), ttl)
	case d.tier != nil:
		e, _ = d.tier.Store(c.Key, result, ttl)
	default:
		e, _ = d.cache.Store(c.Key, result, ttl)
	}
	return e
}

// Healthy reports whether any backend can be reached.
func (d *Dispatcher) Healthy() bool { return d.pool.AnyHealthy() }

// Serving reports whether every backend has a node in service, the rule
// load balancers see in GET / and the gRPC health service.
func (d *Dispatcher) Serving() bool { return d.pool.AllServing() }

// detach returns a copy of c whose params do not alias the caller's buffers.
func detach(c *router.Call) *router.Call {
	cp := *c
	cp.Params = clone(c.Params)
	if sameBytes(c.UpstreamParams, c.Params) {
		// The usual case: what goes upstream is the client's params.
		cp.UpstreamParams = cp.Params
	} else {
		cp.UpstreamParams = clone(c.UpstreamParams)
	}
	return &cp
}

// sameBytes reports whether a and b are the same slice of one array.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func clone(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

// DefaultLIBObserveGap is the least time between two upstream
// get_dynamic_global_properties answers the LIB tracker reads. A block
// comes every 3 seconds, and the tracker polls on its own; reading every
// answer of a route that does not cache them cost a twentieth of each such
// call. A LIB read late only makes more blocks count as reversible, never
// fewer.
const DefaultLIBObserveGap = 100 * time.Millisecond

// WithLIBObserveGap sets the least time between two
// get_dynamic_global_properties answers the LIB tracker reads (default
// DefaultLIBObserveGap); 0 reads every one.
func WithLIBObserveGap(gap time.Duration) Option {
	return func(d *Dispatcher) { d.libGap = max(gap, 0) }
}

// observeDue reports whether this get_dynamic_global_properties answer is
// the one of its gap the LIB tracker reads.
func (d *Dispatcher) observeDue() bool {
	if d.libGap == 0 {
		return true
	}
	now := time.Now().UnixNano()
	last := d.libSeen.Load()
	if last != 0 && now >= last && now-last < int64(d.libGap) {
		return false
	}
	return d.libSeen.CompareAndSwap(last, now)
}
