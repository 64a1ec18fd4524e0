package dispatch

import (
	"context"

	"github.com/hivegate/hivegate/router"
)

// upstreamAll makes a broadcast call on every node of its backend
// (Call.AllNodes, backend.Pool.CallAll): each node gets it once, never
// retried, and the answer is one node's, an acceptance when any node
// accepted. Broadcasts are never cached, so the result is not lent.
func (d *Dispatcher) upstreamAll(ctx context.Context, c *router.Call, rt router.Route) outcome {
	resp, err := d.pool.CallAll(ctx, rt.Backend, upstreamRequest(c, rt, false, false))
	return d.outcomeOf(c, rt, resp, err)
}
