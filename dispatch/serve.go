package dispatch

import (
	"context"
	"strings"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// Serve is the one door into the dispatcher. Every front end comes through
// it: the JSON-RPC handler (a single request or a batch), the typed
// Connect/gRPC services, JsonRpcService and the auth service's own reads
// of the chain. A front end parses its calls into router Calls itself (the
// JSON-RPC handler with router.Router.ParseKey, the typed services from
// their request messages), hands them to Serve with the hooks it was given,
// and reads the results by position.
//
// The hooks are to Serve what connect's interceptors are to a handler,
// narrowed to the calls: the quotas are an Admit hook (a request's calls
// together), the token policy an Authorize hook, the metrics and access
// log an Observe hook (one call each). Wrapping the dispatcher in
// layers of one interface instead made every layer repeat the batch's
// per-element fan-out, and the policy parse every call again.

// Call is one call given to Serve.
type Call struct {
	// Call is the router's parse of the call. Its Key and Params may view
	// the front end's buffers: they must stay unchanged until Serve returns,
	// and Serve keeps nothing of them past its return (it copies what an
	// upstream call that outlives the request needs).
	router.Call
	// Invalid, when not nil, answers the call as it is, with Cache bypass:
	// the front end's own refusal (a method the router could not parse, a
	// typed request that fails validation). Only the Observe hook sees such
	// a call; Call.UpstreamMethod then names the method as the client sent it.
	Invalid *jsonrpc.Error
	// Fresh serves the call from its backend whatever the cache holds, for
	// a caller that must see the chain as it is now: the auth service
	// checks a login signature against the account's current keys and a
	// broadcast against its current posting authority (a key replaced after
	// a leak must stop working at once). The call is routed, screened and
	// timed out like any other; its answer is not cached and it joins no
	// other call in flight.
	Fresh bool
	// AllNodes sends a broadcast call (router.Route.Broadcast) to every
	// node of its backend in service at once, once each, and answers it
	// accepted when any node accepted (backend.Pool.CallAll, fanout.go):
	// BroadcastTransaction's signed transactions. Other calls ignore it.
	AllNodes bool
}

// Hooks are what a front end adds to each of its calls. The zero Hooks (or
// a nil *Hooks) add nothing: the auth service's own chain reads use none.
type Hooks struct {
	// Admit, when set, is asked once per Serve, before anything else, about
	// all its calls together (a batch's in one go: quotas count them in
	// one round trip): it refuses a call by setting its result's Err, and
	// RetryAfter when waiting helps, and leaves the others' results zero
	// (Serve clears them first). A refused call is answered with that
	// result (Cache bypass, nothing cached or sent upstream); Authorize is
	// not asked about it. Admit sees the front end's Invalid calls too,
	// with their zero router.Call. The quotas (quotas:) implement it.
	Admit func(ctx context.Context, calls []Call, results []Result)
	// Authorize, when set, is asked about every call the router parsed,
	// before the cache is: nil lets the call through, an error is its
	// answer (Cache bypass, nothing cached or sent upstream). The auth
	// token policy (auth.require_token) implements it.
	Authorize func(ctx context.Context, c *router.Call) *jsonrpc.Error
	// Observe, when set, is told every call's result once it is known,
	// with the time since Serve began: the requests metrics and the access
	// log. res is read-only and valid only during the call.
	Observe func(ctx context.Context, c *Call, res *Result, elapsed time.Duration)
}

// Serve serves calls into results, by position (len(results) must be at
// least len(calls)); it returns when every call is answered. A call the
// cache holds, or one refused before any upstream request, is answered at
// once; a single call that goes upstream is coalesced with identical calls
// in flight, looked up in the shared tier and cached (see run); the calls
// of a batch that go upstream are sent together (runBatch).
//
// A result may hold a buffer lent by the backend pool (Result.Lease): the
// front end gives it back with Result.Release once it has written the
// result out, the one hand-over of a lease. One that does not only leaves
// it to the garbage collector.
func (d *Dispatcher) Serve(ctx context.Context, h *Hooks, calls []Call, results []Result) {
	var start time.Time
	observe := h != nil && h.Observe != nil
	if observe {
		start = time.Now()
	}
	r := d.Router()
	if h != nil && h.Admit != nil {
		clear(results[:len(calls)])
		h.Admit(ctx, calls, results)
	}
	if len(calls) == 1 {
		var p pending
		var waitUntil time.Time
		if d.prepare(ctx, h, r, &calls[0], &results[0], &p, &waitUntil) {
			p.ownKey()
			results[0] = p.run(ctx)
		}
		if observe {
			h.Observe(ctx, &calls[0], &results[0], time.Since(start))
		}
		return
	}
	var items []batchItem
	var waitUntil time.Time // the batch's block wait deadline (blockwait.go)
	for i := range calls {
		var p pending
		if !d.prepare(ctx, h, r, &calls[i], &results[i], &p, &waitUntil) {
			if observe {
				h.Observe(ctx, &calls[i], &results[i], time.Since(start))
			}
			continue
		}
		if items == nil { // only a batch with an upstream call allocates
			items = make([]batchItem, 0, len(calls)-i)
		}
		items = append(items, batchItem{p: p, at: i})
	}
	if len(items) == 0 {
		return
	}
	ownKeys(items)
	d.runBatch(ctx, items, results)
	if observe {
		elapsed := time.Since(start) // runBatch returned: every call has ended
		for j := range items {
			i := items[j].at
			h.Observe(ctx, &calls[i], &results[i], elapsed)
		}
	}
}

// prepare answers c into res when no upstream request is needed: a refusal
// (Admit, Invalid, Authorize, no route, limits) or a cache hit; it then
// returns false. Otherwise it fills p, the upstream call to make, and
// returns true. waitUntil is the request's block wait deadline, shared by
// its calls (waitBlock).
//
// A cache hit allocates nothing: the key is looked up as the front end's
// buffer holds it, and the Result's Key is the cache entry's own. Only a
// call that goes on (p, an error) gets a Call and a key string of its own.
func (d *Dispatcher) prepare(ctx context.Context, h *Hooks, r *router.Router, c *Call, res *Result, p *pending, waitUntil *time.Time) bool {
	if h != nil && h.Admit != nil && res.Err != nil { // refused by Admit (Serve cleared the results)
		res.Cache = CacheBypass
		if c.Invalid == nil {
			res.Key = strings.Clone(c.Key)
			// The route a refused call would have taken, for the metrics
			// and the access log (a quota refusal is counted on its route).
			if rt, err := r.Resolve(&c.Call); err == nil {
				res.Route = rt.Matched.URL
			}
		}
		return false
	}
	if c.Invalid != nil {
		*res = Result{Err: c.Invalid, Cache: CacheBypass}
		return false
	}
	if h != nil && h.Authorize != nil {
		if e := h.Authorize(ctx, &c.Call); e != nil {
			*res = Result{Err: e, Cache: CacheBypass, Key: strings.Clone(c.Key)}
			// Counted on the route it would have taken, as Admit's refusals.
			if rt, err := r.Resolve(&c.Call); err == nil {
				res.Route = rt.Matched.URL
			}
			return false
		}
	}
	rt, err := r.Resolve(&c.Call)
	// A get_block for a block just past the head waits for it
	// (streams.block_wait, blockwait.go), before the cache: an answer
	// cached before the block existed would say it does not.
	held := err == nil && !c.Fresh && d.waitBlock(ctx, &c.Call, rt, waitUntil)
	// Broadcasts change chain state: never cached, never coalesced (two
	// clients sending one transaction each get the node's own answer).
	// NO_CACHE routes are not coalesced either: an operator who turns the
	// cache off for a method wants an answer computed after the request
	// arrived, not one an earlier request is already waiting for. A fresh
	// call neither reads the cache nor joins or stores anything.
	coalesce := err == nil && rt.TTL.Kind != config.TTLNoCache && !rt.Broadcast && !c.Fresh
	if coalesce && d.cache != nil {
		if e, ok := d.cache.Get(c.Key); ok {
			*res = Result{Result: e.Value, Forms: e, Cache: CacheHit, Route: rt.Matched.URL, Key: e.Key()}
			return false
		}
	}
	*p = pending{d: d, c: c.Call, rt: rt, coalesce: coalesce, cacheable: coalesce && (d.cache != nil || d.tier != nil), held: held,
		allNodes: c.AllNodes && err == nil && rt.Broadcast}
	if err != nil {
		key := strings.Clone(c.Key)
		*res = Result{Err: jsonrpc.NewError(jsonrpc.KindMethodNotFound, "no backend is configured for "+keyPath(key), err), Cache: CacheBypass, Key: key}
		return false
	}
	if refused, ok := d.screen(&p.c, rt); ok { // limits.blacklist_accounts (blacklist.go)
		refused.Key = strings.Clone(refused.Key)
		*res = refused
		return false
	}
	if refused, ok := d.accountHistoryLimit(&p.c, rt); ok { // limits.account_history_limit (limits.go)
		refused.Key = strings.Clone(refused.Key)
		*res = refused
		return false
	}
	// The key still views the front end's buffer: the caller gives it one
	// of its own (ownKey, ownKeys).
	return true
}

// ownKey gives p a key of its own instead of the front end's.
func (p *pending) ownKey() {
	p.c.Key = strings.Clone(p.c.Key)
	p.rt.Key = p.c.Key
}

// ownKeys gives the calls of items keys of their own. The keys of the
// calls that are not coalesced (nor cached) are copied together into one
// allocation: they live as long as the request. A key that may outlive it
// (a flight's, a cached answer's) gets an allocation of its own, so that
// it never holds the others' bytes.
func ownKeys(items []batchItem) {
	n := 0
	for i := range items {
		if p := &items[i].p; !p.coalesce {
			n += len(p.c.Key)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i := range items {
		if p := &items[i].p; !p.coalesce {
			b.WriteString(p.c.Key)
		}
	}
	all := b.String()
	for i := range items {
		p := &items[i].p
		if p.coalesce {
			p.ownKey()
			continue
		}
		k := len(p.c.Key)
		p.c.Key, all = all[:k], all[k:]
		p.rt.Key = p.c.Key
	}
}

// InvalidMethod is the answer to a call the router could not parse
// (router.ErrInvalidMethod): invalid_request, with the router's reason.
func InvalidMethod(err error) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.KindInvalidRequest, invalidDetail(err), err)
}

// pending is a call that needs an upstream request. Its Call is a copy
// with a key of its own; its params still view the front end's buffers,
// which run detaches before anything may outlive the request.
type pending struct {
	d         *Dispatcher
	c         router.Call
	rt        router.Route
	coalesce  bool // join an identical call in flight
	cacheable bool // store the answer
	// held: the block wait held the call, and every waiter for the block
	// was released at once. One that looked in the cache before another's
	// flight stored the answer, and starts a flight after it ended, finds
	// the answer in the cache there instead of asking again.
	held bool
	// allNodes: a broadcast sent to every node (Call.AllNodes, fanout.go).
	allNodes bool
}

// run makes the upstream call (or joins an identical one in flight),
// applies the TTL policy and stores the answer. With a shared cache tier
// (WithSharedCache) the flight first looks in Redis, within its timeout,
// and a hit there is the answer (CacheHit, no upstream call).
func (p *pending) run(ctx context.Context) Result {
	d, rt := p.d, p.rt
	if p.allNodes {
		return p.result(d.upstreamAll(ctx, &p.c, rt), true)
	}
	if !p.coalesce {
		// This caller alone holds the result: it may be lent.
		out := d.upstream(ctx, &p.c, rt, false, true)
		return p.result(out, true)
	}
	// The upstream call may outlive this client's request (another client
	// can still be waiting on it), so it must not hold the request's buffers.
	c := detach(&p.c)
	cacheable, held := p.cacheable, p.held
	out, leader := d.flights.do(ctx, c.Key, func(ctx context.Context) outcome {
		if held && d.cache != nil {
			if e, ok := d.cache.Get(c.Key); ok {
				return outcome{result: e.Value, entry: e, shared: true}
			}
		}
		if cacheable && d.tier != nil {
			// The in-process cache missed in prepare; the shared tier is
			// asked once per flight, within its short timeout.
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
func (p *pending) result(out outcome, leader bool) Result {
	res := Result{Route: p.rt.Matched.URL, Key: p.c.Key, Cache: CacheBypass, Result: out.result, Err: out.rpcErr()}
	if out.entry != nil {
		res.Forms = out.entry
	}
	switch {
	case !p.coalesce:
		if out.resp.Lease != nil {
			res.Lease = out.resp.Lease
		}
	case out.shared:
		res.Cache = CacheHit // from the shared tier: no upstream call was made
	case !leader:
		res.Cache = CacheCoalesced
	case p.cacheable:
		res.Cache = CacheMiss
	}
	return res
}
