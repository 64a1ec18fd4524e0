// Package dispatch is the one path every call takes, whichever front end it
// came from: route → cache → coalesced upstream call → TTL policy → store.
package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

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
	// Entry is the cache entry the result came from or was stored in, nil
	// when none; front ends may attach a derived form to it (Entry.SetDecoded).
	Entry *cache.Entry
	// Lease, when not nil, is the backend pool's buffer Result lives in: a
	// result no one else holds (not cached, not shared by coalesced
	// callers). A front end done with Result, having written it out, may
	// give the buffer back (Lease.Release) and must not read Result after;
	// one that does not only leaves it to the garbage collector.
	Lease *backend.Lease
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
	// scratch holds Prepare's reusable *callScratch.
	scratch sync.Pool
	// libGap and libSeen sample the get_dynamic_global_properties answers
	// the LIB tracker reads (observeLIB).
	libGap  time.Duration
	libSeen atomic.Int64
	// maxBatch and noBatch are RunBatch's settings (WithUpstreamBatching).
	maxBatch int
	noBatch  map[string]bool
}

// New returns a Dispatcher. c may be nil (no in-process caching); lib may
// be nil (every block counts as reversible).
func New(r *router.Router, c *cache.Cache, p *backend.Pool, lib *backend.LIBTracker, logger *slog.Logger, opts ...Option) *Dispatcher {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{cache: c, pool: p, lib: lib, log: logger, libGap: DefaultLIBObserveGap, maxBatch: DefaultMaxUpstreamBatch}
	d.scratch.New = func() any { return &callScratch{key: make([]byte, 0, 256)} }
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

// Call parses and serves one JSON-RPC call.
func (d *Dispatcher) Call(ctx context.Context, method string, params json.RawMessage) Result {
	res, p := d.Prepare(method, params)
	if p == nil {
		return res
	}
	return p.Run(ctx)
}

// Do serves a parsed call.
func (d *Dispatcher) Do(ctx context.Context, c *router.Call) Result {
	res, p := d.PrepareCall(c)
	if p == nil {
		return res
	}
	return p.Run(ctx)
}

// Prepare parses a JSON-RPC call and answers it at once when no upstream
// request is needed: a cache hit, an invalid method or a method with no
// route. Then the Pending is nil. Otherwise the Result is empty and the
// Pending makes the upstream call.
//
// A cache hit allocates nothing: the call is parsed into a pooled Call, its
// key built in a pooled buffer and looked up from there, and the Result's
// Key is the cache entry's own. Only a call that goes on (a Pending, an
// error) gets a Call and a key string of its own.
func (d *Dispatcher) Prepare(method string, params json.RawMessage) (Result, *Pending) {
	r := d.Router()
	s := d.scratch.Get().(*callScratch)
	defer d.scratch.Put(s)
	key, err := r.ParseKey(&s.call, s.key[:0], method, params)
	s.key = key[:0]
	if err != nil {
		return Result{Err: jsonrpc.NewError(jsonrpc.KindInvalidRequest, invalidDetail(err), err), Cache: CacheBypass}, nil
	}
	// Until it is given a key of its own, s.call's Key views the pooled
	// buffer: nothing that outlives this call may keep it.
	s.call.Key = unsafe.String(unsafe.SliceData(key), len(key))
	res, p := d.prepare(r, &s.call, key)
	s.call = router.Call{}
	return res, p
}

// callScratch is the pooled Call and key buffer of Prepare.
type callScratch struct {
	call router.Call
	key  []byte
}

// PrepareCall is Prepare for a call already parsed.
func (d *Dispatcher) PrepareCall(c *router.Call) (Result, *Pending) {
	return d.prepare(d.Router(), c, nil)
}

// prepare is PrepareCall. When scratch is not nil, c is Prepare's pooled
// Call and c.Key views scratch: c is copied, with a key string of its own,
// before anything that outlives the call refers to it.
func (d *Dispatcher) prepare(r *router.Router, c *router.Call, scratch []byte) (Result, *Pending) {
	rt, err := r.Resolve(c)
	if err == nil && rt.TTL.Kind != config.TTLNoCache && !rt.Broadcast && d.cache != nil {
		// cacheable (see below): a hit is the answer.
		var e *cache.Entry
		var ok bool
		if scratch != nil {
			e, ok = d.cache.GetBytes(scratch)
		} else {
			e, ok = d.cache.Get(c.Key)
		}
		if ok {
			return Result{Result: e.Value, Entry: e, Cache: CacheHit, Route: rt.Matched.URL, Key: e.Key()}, nil
		}
	}
	if scratch != nil {
		own := *c
		own.Key = string(scratch)
		c, rt.Key = &own, own.Key
	}
	if err != nil {
		return Result{Err: jsonrpc.NewError(jsonrpc.KindMethodNotFound, "no backend is configured for "+keyPath(c.Key), err), Cache: CacheBypass, Key: c.Key}, nil
	}
	if res, refused := d.screen(c, rt); refused { // limits.blacklist_accounts (blacklist.go)
		return res, nil
	}
	if res, refused := d.accountHistoryLimit(c, rt); refused { // limits.account_history_limit (limits.go)
		return res, nil
	}
	// Broadcasts change chain state: never cached, never coalesced (two
	// clients sending one transaction each get the node's own answer).
	// NO_CACHE routes are not coalesced either: an operator who turns the
	// cache off for a method wants an answer computed after the request
	// arrived, not one an earlier request is already waiting for.
	coalesce := rt.TTL.Kind != config.TTLNoCache && !rt.Broadcast
	cacheable := coalesce && (d.cache != nil || d.tier != nil)
	return Result{}, &Pending{d: d, c: c, rt: rt, coalesce: coalesce, cacheable: cacheable}
}

// Pending is a call that needs an upstream request.
type Pending struct {
	d         *Dispatcher
	c         *router.Call
	rt        router.Route
	coalesce  bool // join an identical call in flight
	cacheable bool // store the answer
}

// Run makes the upstream call (or joins an identical one in flight),
// applies the TTL policy and stores the answer. With a shared cache tier
// (WithSharedCache) the flight first looks in Redis, within its timeout,
// and a hit there is the answer (CacheHit, no upstream call). A Pending
// holds no resources, so one that is never run needs no clean-up.
func (p *Pending) Run(ctx context.Context) Result {
	d, c, rt := p.d, p.c, p.rt
	if !p.coalesce {
		// This caller alone holds the result: it may be lent.
		out := d.upstream(ctx, c, rt, false, true)
		return p.result(out, true)
	}
	// The upstream call may outlive this client's request (another client
	// can still be waiting on it), so it must not hold the request's buffers.
	c = detach(c)
	cacheable := p.cacheable
	out, leader := d.flights.do(ctx, c.Key, func(ctx context.Context) outcome {
		if cacheable && d.tier != nil {
			// The in-process cache missed in PrepareCall; the shared tier
			// is asked once per flight, within its short timeout.
			if v, e, ok := d.tier.FetchShared(ctx, c.Key); ok {
				return outcome{result: v, entry: e, shared: true}
			}
		}
		o := d.upstream(ctx, c, rt, cacheable, false)
		if cacheable && o.err == nil && o.resp.Error == nil {
			o.entry = d.store(c, rt, o.result, o.resp)
		}
		return o
	})
	return p.result(out, leader)
}

// result is the Result of p's outcome; leader says whether this caller's
// flight made the call (false: coalesced onto another's).
func (p *Pending) result(out outcome, leader bool) Result {
	res := Result{Route: p.rt.Matched.URL, Key: p.c.Key, Cache: CacheBypass, Result: out.result, Err: out.rpcErr(), Entry: out.entry}
	switch {
	case !p.coalesce:
		res.Lease = out.resp.Lease
	case out.shared:
		res.Cache = CacheHit // from the shared tier: no upstream call was made
	case !leader:
		res.Cache = CacheCoalesced
	case p.cacheable:
		res.Cache = CacheMiss
	}
	return res
}

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

// CallJSONRPC serves one JSON-RPC call for the JSON-RPC front end.
func (d *Dispatcher) CallJSONRPC(ctx context.Context, method string, params json.RawMessage) jsonrpc.Answer {
	return d.Call(ctx, method, params).Answer()
}

// CallJSONRPCBatch implements jsonrpc.BatchCaller (ServeBatch).
func (d *Dispatcher) CallJSONRPCBatch(ctx context.Context, els []jsonrpc.Element, answers []jsonrpc.Answer) {
	d.ServeBatch(ctx, els, answers, nil)
}

// ServeBatch serves the valid elements (Err nil) of a JSON-RPC batch into
// answers, by position: cache hits and calls refused before any upstream
// request are answered at once, the rest go upstream together (RunBatch).
// observe, when not nil, is told each element's Result.
func (d *Dispatcher) ServeBatch(ctx context.Context, els []jsonrpc.Element, answers []jsonrpc.Answer, observe func(Result)) {
	var pending []*Pending
	var at []int
	for i, el := range els {
		if el.Err != nil {
			continue
		}
		res, p := d.Prepare(el.Req.Method, el.Req.Params)
		if p == nil {
			answers[i] = res.Answer()
			if observe != nil {
				observe(res)
			}
			continue
		}
		pending = append(pending, p)
		at = append(at, i)
	}
	if len(pending) == 0 {
		return
	}
	for j, res := range d.RunBatch(ctx, pending) {
		answers[at[j]] = res.Answer()
		if observe != nil {
			observe(res)
		}
	}
}

// Answer is the JSON-RPC front end's view of r.
func (r Result) Answer() jsonrpc.Answer {
	a := jsonrpc.Answer{Result: r.Result, Err: r.Err, Cache: string(r.Cache), Route: r.Route}
	if r.Lease != nil {
		a.Lease = r.Lease
	}
	if r.Entry != nil && r.Cache == CacheHit {
		// A gzip-encoded answer keeps the compressed result with the entry,
		// once the entry is asked for again: a result read once (the miss
		// that stored it) is compressed with the answer, not kept twice.
		a.Forms = r.Entry
	}
	return a
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
