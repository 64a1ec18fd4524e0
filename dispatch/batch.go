package dispatch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/router"
)

// DefaultMaxUpstreamBatch is the most calls sent to a backend in one
// JSON-RPC batch unless WithUpstreamBatching says otherwise.
const DefaultMaxUpstreamBatch = 50

// WithUpstreamBatching sets how the calls of a client batch go upstream
// (runBatch): at most max calls in one JSON-RPC batch request (1: every
// call on its own), and never batched to the backends named in off, for
// nodes that do not take batches (limits.max_upstream_batch_size,
// limits.no_upstream_batch).
func WithUpstreamBatching(size int, off []string) Option {
	return func(d *Dispatcher) {
		d.maxBatch = max(size, 1)
		d.noBatch = make(map[string]bool, len(off))
		for _, name := range off {
			d.noBatch[name] = true
		}
	}
}

// runBatch makes the upstream calls of one client batch and writes their
// results to results[it.at]. Each call is coalesced with identical calls in
// flight, looked up in the shared tier and cached exactly as run does; but
// the calls that go upstream to one backend with the same timeout and
// retries are sent together, in JSON-RPC batches of at most the configured
// size (backend.Pool.CallBatch, which falls back to one call at a time for
// a node that refuses a batch). Broadcasts and calls to a backend with
// batching off are made on their own, as by run.
//
// The last group is sent from this goroutine when none of its calls is
// coalesced (a NO_CACHE route's, say): such calls belong to this client
// alone and end with its request, so they need neither a goroutine, nor a
// context of their own, nor a channel each to hand their outcomes back.
func (d *Dispatcher) runBatch(ctx context.Context, items []batchItem, results []Result) {
	var groups []*upstreamGroup // a handful at most: found by a scan
	var wg sync.WaitGroup
	for i := range items {
		it := &items[i]
		p := &it.p
		if !d.batchable(p) {
			it.alone = true
			wg.Go(func() { results[it.at] = p.run(ctx) })
			continue
		}
		k := groupKey{backend: p.rt.Backend, timeout: p.rt.Timeout, retries: p.rt.Retries}
		var g *upstreamGroup
		for _, og := range groups {
			if og.key == k {
				g = og
				break
			}
		}
		if g == nil {
			g = &upstreamGroup{key: k, client: ctx, items: make([]*batchItem, 0, len(items)-i)}
			groups = append(groups, g)
		}
		it.c = &p.c
		if !p.coalesce {
			// A call no other client may share: it lives as long as this
			// client's request.
			g.private = true
			g.items = append(g.items, it)
			continue
		}
		g.shared = true
		it.c = detach(&p.c) // may outlive this request (see run)
		it.fl, it.leader = d.flights.join(it.c.Key, g.hold)
		if it.leader {
			g.items = append(g.items, it)
		}
	}
	for n, g := range groups {
		if n == len(groups)-1 && !g.shared {
			// Only this client's calls: sent here, under its context.
			g.ctx = ctx
			d.sendCalls(g)
			continue
		}
		g.start()
		if g.private {
			g.live.Add(1)
			stop := context.AfterFunc(ctx, g.release)
			defer stop()
		}
		d.sendGroup(g)
	}
	for i := range items {
		it := &items[i]
		switch {
		case it.alone:
		case it.fl != nil:
			results[it.at] = it.p.result(d.flights.wait(ctx, it.c.Key, it.fl), it.leader)
		case it.done == nil: // sent from this goroutine
			results[it.at] = it.p.result(it.out, true)
		default:
			select {
			case <-it.done:
				results[it.at] = it.p.result(it.out, true)
			case <-ctx.Done():
				results[it.at] = it.p.result(outcome{err: ctx.Err()}, true)
			}
		}
	}
	wg.Wait()
}

// batchable reports whether p may go upstream in a JSON-RPC batch.
func (d *Dispatcher) batchable(p *pending) bool {
	return d.maxBatch > 1 && !p.rt.Broadcast && !d.noBatch[p.rt.Backend]
}

// batchItem is one call of runBatch: results[at] is its result.
type batchItem struct {
	p      pending
	at     int
	alone  bool // not batchable: made by run, on its own
	c      *router.Call
	fl     *flight // nil for a call that is not coalesced
	leader bool    // fl was started by this call, which makes it
	// done, when not nil, is closed when out, the outcome of a call that
	// is not coalesced, is set by another goroutine.
	done chan struct{}
	out  outcome
}

// groupKey is what the calls of one upstream batch share.
type groupKey struct {
	backend string
	timeout time.Duration
	retries int
}

// upstreamGroup is the calls of a client batch that may go upstream
// together. A group that holds coalesced calls, or that is not the last,
// runs its calls in a goroutine under a context of its own, detached from
// the client's like a flight's: it is cancelled when every flight among
// them has lost its last waiter and, if it holds calls that are not
// coalesced, their client is gone. The last group of calls that are not
// coalesced runs under the client's context (runBatch).
type upstreamGroup struct {
	key     groupKey
	client  context.Context // the client request's
	items   []*batchItem    // the flights' leaders and the calls not coalesced
	private bool            // some calls are not coalesced
	shared  bool            // some calls are coalesced (flights)
	ctx     context.Context
	cancel  context.CancelFunc
	live    atomic.Int32 // holds not yet released
}

// start gives g its own context: its calls carry the client's values
// (request id, trace) but not its cancellation.
func (g *upstreamGroup) start() {
	if g.ctx == nil {
		g.ctx, g.cancel = context.WithCancel(context.WithoutCancel(g.client))
	}
}

// hold counts one more reason to make the group's calls and returns its
// release, for a flight's cancellation.
func (g *upstreamGroup) hold() func() {
	g.start()
	g.live.Add(1)
	var once sync.Once
	return func() { once.Do(g.release) }
}

// release drops one hold; the last cancels the group's calls.
func (g *upstreamGroup) release() {
	if g.live.Add(-1) == 0 {
		g.cancel()
	}
}

// sendGroup starts g's calls in a goroutine of their own (sendCalls),
// which cancels the group's context when they are done.
func (d *Dispatcher) sendGroup(g *upstreamGroup) {
	for _, it := range g.items {
		if it.fl == nil {
			it.done = make(chan struct{})
		}
	}
	go func() {
		defer g.cancel()
		d.sendCalls(g)
	}()
}

// sendCalls makes g's calls under g.ctx: flights first look in the shared
// tier, then whatever is left goes upstream in batches of at most the
// configured size, the last batch from the calling goroutine.
func (d *Dispatcher) sendCalls(g *upstreamGroup) {
	calls := d.fromSharedTier(g)
	var wg sync.WaitGroup
	for len(calls) > d.maxBatch {
		chunk := calls[:d.maxBatch]
		calls = calls[len(chunk):]
		wg.Go(func() { d.sendChunk(g, chunk) })
	}
	if len(calls) > 0 {
		d.sendChunk(g, calls) // the last chunk in this goroutine: one hand-off less
	}
	wg.Wait()
}

// fromSharedTier answers the group's flights the shared cache tier holds
// (run asks it the same way) and returns the calls left to make.
func (d *Dispatcher) fromSharedTier(g *upstreamGroup) []*batchItem {
	if d.tier == nil || !g.shared {
		return g.items
	}
	found := make([]bool, len(g.items))
	var wg sync.WaitGroup
	for i, it := range g.items {
		if it.fl == nil || !it.p.cacheable {
			continue
		}
		wg.Go(func() {
			if v, e, ok := d.tier.FetchShared(g.ctx, it.c.Key); ok {
				found[i] = true
				d.flights.finish(it.c.Key, it.fl, outcome{result: v, entry: e, shared: true})
			}
		})
	}
	wg.Wait()
	left := g.items[:0:0]
	for i, it := range g.items {
		if !found[i] {
			left = append(left, it)
		}
	}
	return left
}

// sendChunk makes the calls of one upstream batch (alone when there is
// one), caches what may be cached and ends each call's flight.
func (d *Dispatcher) sendChunk(g *upstreamGroup, chunk []*batchItem) {
	if len(chunk) == 1 {
		it := chunk[0]
		d.ended(it, d.upstream(g.ctx, it.c, it.p.rt, it.p.cacheable, false))
		return
	}
	reqs := make([]backend.Request, len(chunk))
	for i, it := range chunk {
		reqs[i] = upstreamRequest(it.c, it.p.rt, it.p.cacheable, false)
	}
	resps, errs := d.pool.CallBatch(g.ctx, g.key.backend, reqs)
	for i, it := range chunk {
		d.ended(it, d.outcomeOf(it.c, it.p.rt, resps[i], errs[i]))
	}
}

// ended caches what may be cached of a batch call's outcome o and hands o
// to the call's waiters: its flight's, or runBatch.
func (d *Dispatcher) ended(it *batchItem, o outcome) {
	if it.p.cacheable && o.err == nil && o.resp.Error == nil {
		o.entry = d.store(it.c, it.p.rt, o.result, o.resp)
	}
	switch {
	case it.fl != nil:
		d.flights.finish(it.c.Key, it.fl, o)
	case it.done != nil:
		it.out = o
		close(it.done)
	default:
		it.out = o // sent from runBatch's goroutine
	}
}
