// Package dispatch is the one path every call takes, whichever front end it
// came from: route → cache → coalesced upstream call → TTL policy → store.
package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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
	// Entry is the cache entry the result came from or was stored in, nil
	// when none; front ends may attach a derived form to it (Entry.SetAux).
	Entry *cache.Entry
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
}

// New returns a Dispatcher. c may be nil (no caching); lib may be nil (every
// block counts as reversible).
func New(r *router.Router, c *cache.Cache, p *backend.Pool, lib *backend.LIBTracker, logger *slog.Logger) *Dispatcher {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{cache: c, pool: p, lib: lib, log: logger}
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
	c, err := d.Router().Parse(method, params)
	if err != nil {
		return Result{Err: jsonrpc.NewError(jsonrpc.KindInvalidRequest, err.Error(), err), Cache: CacheBypass}
	}
	return d.Do(ctx, c)
}

// Do serves a parsed call.
func (d *Dispatcher) Do(ctx context.Context, c *router.Call) Result {
	rt, err := d.Router().Resolve(c)
	if err != nil {
		return Result{Err: jsonrpc.NewError(jsonrpc.KindMethodNotFound, "no backend is configured for "+c.Key, err), Cache: CacheBypass, Key: c.Key}
	}
	res := Result{Route: rt.Matched.URL, Key: c.Key}
	cacheable := d.cache != nil && rt.TTL.Kind != config.TTLNoCache && !rt.Broadcast
	if cacheable {
		if e, ok := d.cache.Get(c.Key); ok {
			res.Result, res.Entry, res.Cache = e.Value, e, CacheHit
			return res
		}
	}
	if rt.Broadcast {
		// A broadcast is never coalesced: two clients sending the same
		// transaction each get the node's own answer.
		out := d.upstream(ctx, c, rt)
		res.Result, res.Err, res.Cache = out.result, out.rpcErr(), CacheBypass
		return res
	}
	// The upstream call may outlive this client's request (another client
	// can still be waiting on it), so it must not hold the request's buffers.
	c = detach(c)
	out, leader := d.flights.do(ctx, c.Key, func(ctx context.Context) outcome {
		o := d.upstream(ctx, c, rt)
		if cacheable && o.err == nil && o.resp.Error == nil {
			o.entry = d.store(c, rt, o.result)
		}
		return o
	})
	res.Result, res.Err, res.Entry = out.result, out.rpcErr(), out.entry
	switch {
	case !leader:
		res.Cache = CacheCoalesced
	case cacheable:
		res.Cache = CacheMiss
	default:
		res.Cache = CacheBypass
	}
	return res
}

// outcome is one upstream exchange.
type outcome struct {
	resp   backend.Response
	result json.RawMessage
	err    error
	entry  *cache.Entry
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

func (d *Dispatcher) upstream(ctx context.Context, c *router.Call, rt router.Route) outcome {
	resp, err := d.pool.Call(ctx, rt.Backend, backend.Request{
		Method:  c.UpstreamMethod,
		Params:  c.UpstreamParams,
		Timeout: rt.Timeout,
		Retries: rt.Retries,
	})
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			d.log.Warn("upstream call failed", "key", c.Key, "backend", rt.Backend, "error", err)
		}
		return outcome{err: err, resp: resp}
	}
	if resp.Error == nil && d.lib != nil && c.Method == "get_dynamic_global_properties" {
		d.lib.Observe(resp.Result)
	}
	return outcome{resp: resp, result: resp.Result}
}

// store applies the route's TTL policy and caches the result.
func (d *Dispatcher) store(c *router.Call, rt router.Route, result json.RawMessage) *cache.Entry {
	var ttl time.Duration
	switch rt.TTL.Kind {
	case config.TTLSeconds:
		ttl = rt.TTL.Duration()
	case config.TTLNoExpire:
		ttl = cache.NoExpiry
	case config.TTLExpireIfReversible:
		var lib uint64
		if d.lib != nil {
			lib = d.lib.LastIrreversible()
		}
		var store bool
		if n, ok := cache.BlockNum(c.APIMethod(), c.Params); ok {
			ttl, store = cache.ReversibleTTL(n, lib, result)
		} else {
			// No block number in this call: it may change with the next
			// block, so it lives as long as reversible data does.
			ttl, store = cache.ReversibleTTLDuration, !isEmptyResult(result)
		}
		if !store {
			return nil
		}
	default:
		return nil
	}
	d.cache.Set(c.Key, result, ttl)
	e, _ := d.cache.Get(c.Key)
	return e
}

// CallJSONRPC serves one JSON-RPC call for the JSON-RPC front end.
func (d *Dispatcher) CallJSONRPC(ctx context.Context, method string, params json.RawMessage) jsonrpc.Answer {
	r := d.Call(ctx, method, params)
	return jsonrpc.Answer{Result: r.Result, Err: r.Err, Cache: string(r.Cache), Route: r.Route}
}

// Healthy reports whether any backend can be reached.
func (d *Dispatcher) Healthy() bool { return d.pool.AnyHealthy() }

// detach returns a copy of c whose params do not alias the caller's buffers.
func detach(c *router.Call) *router.Call {
	cp := *c
	cp.Params = clone(c.Params)
	cp.UpstreamParams = clone(c.UpstreamParams)
	return &cp
}

// isEmptyResult reports a null, {} or [] result: under EXPIRE_IF_REVERSIBLE
// such an answer usually means "not produced yet" and is never stored.
func isEmptyResult(r json.RawMessage) bool {
	r = bytes.TrimSpace(r)
	switch string(r) {
	case "", "null", "{}", "[]":
		return true
	}
	return false
}

func clone(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}
