package dispatch

import (
	"context"
	"encoding/json"

	"github.com/hivegate/hivegate/jsonrpc"
)

// CallFresh serves one JSON-RPC call from its backend whatever the cache
// holds, for a caller that must see the chain as it is now: the auth
// service checks a login signature against the account's current keys
// and a broadcast against its current posting authority (a key replaced
// after a leak must stop working at once, a just-granted authority must
// count at once). The call is routed, screened and timed out like any
// other; its answer is not cached and it joins no other call in flight.
func (d *Dispatcher) CallFresh(ctx context.Context, method string, params json.RawMessage) Result {
	r := d.Router()
	c, err := r.Parse(method, params)
	if err != nil {
		return Result{Err: jsonrpc.NewError(jsonrpc.KindInvalidRequest, invalidDetail(err), err), Cache: CacheBypass}
	}
	rt, err := r.Resolve(c)
	if err != nil {
		return Result{Err: jsonrpc.NewError(jsonrpc.KindMethodNotFound, "no backend is configured for "+keyPath(c.Key), err), Cache: CacheBypass, Key: c.Key}
	}
	if res, refused := d.screen(c, rt); refused {
		return res
	}
	return (&Pending{d: d, c: c, rt: rt}).Run(ctx)
}
