package gateway

import (
	"context"

	"github.com/hivegate/hivegate/dispatch"
)

// The block wait (streams.block_wait, dispatch/blockwait.go) reads the
// stream hub's follower: every generation's dispatcher is given the
// gateway's blockWaiter, which finds the hub when asked (the hub is built
// after the first generation, and is nil when streams are off: then no
// call is held).

// blockWaiter is the dispatcher's view of the gateway's chain follower.
type blockWaiter struct{ g *Gateway }

var _ dispatch.BlockWaiter = blockWaiter{}

// Head implements dispatch.BlockWaiter: the follower's tip, not ok while
// streams are off or the follower has read no block yet.
func (w blockWaiter) Head() (uint64, bool) {
	s := w.g.streams
	if s == nil {
		return 0, false
	}
	tip, _ := s.hub.Tip()
	return tip, tip > 0
}

// WaitBlock implements dispatch.BlockWaiter.
func (w blockWaiter) WaitBlock(ctx context.Context, num uint64) error {
	s := w.g.streams
	if s == nil {
		return context.Canceled
	}
	return s.hub.WaitBlock(ctx, num)
}
