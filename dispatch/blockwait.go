package dispatch

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/router"
)

// Block wait (streams.block_wait): clients that poll for the next block
// ask get_block for a block that does not exist yet, and ask again and
// again until it does. A get_block or get_block_header call for block N
// with head < N <= head + streams.block_wait is held until the chain
// follower has block N (or the call's timeout passes), and then goes the
// normal way: the waiters for one block are coalesced into one upstream
// call (flights) and its answer is cached. A call that times out waiting
// is forwarded as before and gets the node's own answer for a block it
// does not have. The head is the gateway's chain follower (package
// stream, wired in by the gateway: dispatch cannot import it).
//
// A held call keeps its place in the request's concurrency limits (the
// HTTP server's and the guard's): the wait happens inside Serve.

// BlockWaiter is the chain follower the block wait reads.
type BlockWaiter interface {
	// Head is the highest block the follower has; ok is false while it
	// has none yet.
	Head() (num uint64, ok bool)
	// WaitBlock returns nil once the follower has block num, an error
	// when ctx ends first or the follower has stopped.
	WaitBlock(ctx context.Context, num uint64) error
}

// WithBlockWait gives the dispatcher the chain follower the block wait
// reads, and where it counts the calls it holds (nil: counters of its own;
// the gateway passes one set for every generation, so that the counts
// survive a reload). Without a follower (or with streams.block_wait 0) no
// call is held.
func WithBlockWait(w BlockWaiter, counts *BlockWaitCounts) Option {
	return func(d *Dispatcher) {
		d.waiter = w
		if counts != nil {
			d.waits = counts
		}
	}
}

// BlockWaitStats counts the calls the block wait held.
type BlockWaitStats struct {
	Waiting  int64 // held now
	Arrived  int64 // released because the block came
	TimedOut int64 // the call's timeout passed first: forwarded as before
	Gone     int64 // the client went away, or the follower stopped
}

// BlockWaitCounts are the counters behind BlockWaitStats; the zero value
// is ready. Safe for concurrent use.
type BlockWaitCounts struct {
	waiting, arrived, timedOut, gone atomic.Int64
}

// Stats reads the counters.
func (w *BlockWaitCounts) Stats() BlockWaitStats {
	return BlockWaitStats{Waiting: w.waiting.Load(), Arrived: w.arrived.Load(), TimedOut: w.timedOut.Load(), Gone: w.gone.Load()}
}

// BlockWaits returns the counts of held calls.
func (d *Dispatcher) BlockWaits() BlockWaitStats { return d.waits.Stats() }

// waitBlock holds c while it asks for a block just past the follower's
// head, until the block comes or rt's timeout (the call's own upstream
// timeout) or ctx ends; whatever happens, the call then goes on. It
// reports whether it held the call.
//
// The calls of one request are held together at most one timeout: until
// is the request's wait deadline, zero until a call is first held, which
// sets it to its own. A later call of the batch waits only what is left of
// it, and is not held once it has passed: a batch of 50 calls for blocks
// that do not come must not hold its place 50 timeouts long.
func (d *Dispatcher) waitBlock(ctx context.Context, c *router.Call, rt router.Route, until *time.Time) bool {
	if d.waiter == nil {
		return false
	}
	k := d.Router().Config().Streams.BlockWait
	if k <= 0 {
		return false
	}
	num, ok := blockAsked(c)
	if !ok {
		return false
	}
	head, ok := d.waiter.Head()
	if !ok || num <= head || num > head+uint64(k) {
		return false
	}
	var deadline time.Time
	if rt.Timeout > 0 {
		deadline = time.Now().Add(rt.Timeout)
	}
	if !until.IsZero() {
		if !time.Now().Before(*until) {
			return false // the request's wait is spent
		}
		if deadline.IsZero() || until.Before(deadline) {
			deadline = *until
		}
	}
	*until = deadline
	wctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	w := d.waits
	w.waiting.Add(1)
	err := d.waiter.WaitBlock(wctx, num)
	w.waiting.Add(-1)
	switch {
	case err == nil:
		w.arrived.Add(1)
	case ctx.Err() == nil && wctx.Err() != nil:
		w.timedOut.Add(1)
	default:
		w.gone.Add(1)
	}
	return true
}

// blockAsked is the block number a get_block or get_block_header call
// asks for (condenser_api's [N], block_api's {"block_num": N}; a number or
// a decimal string, read as the cache's TTL policy reads it).
func blockAsked(c *router.Call) (uint64, bool) {
	if c.Method != "get_block" && c.Method != "get_block_header" {
		return 0, false
	}
	return cache.BlockNum(c.APIMethod(), c.Params)
}
