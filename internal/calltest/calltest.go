// Package calltest provides an in-memory stand-in for the dispatcher
// (jsonrpchttp.Dispatcher) for the tests of the HTTP front door and the
// JSON-RPC handler, which need calls answered without a cache or a node.
// Nothing here is used by the hivegate binary.
package calltest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// Echo is an in-memory dispatcher: the result of a call is
// {"m":method,"p":params}, the method and params as the client sent them;
// the method "fail" answers a gateway error. With Hold set, each call
// marks Entered done and waits until Hold is closed or its context ends.
// The calls of a batch are answered concurrently.
type Echo struct {
	Hold    chan struct{} // nil: answer at once
	Entered sync.WaitGroup

	once   sync.Once
	router *router.Router
}

// Router returns a router of the default config, which parses every method
// the gateway would.
func (c *Echo) Router() *router.Router {
	c.once.Do(func() {
		r, err := router.New(&config.Config{})
		if err != nil {
			panic(err) // the empty config is valid
		}
		c.router = r
	})
	return c.router
}

// Serve answers every call (jsonrpchttp.Dispatcher); it tells h's Observe
// hook, when set, of each.
func (c *Echo) Serve(ctx context.Context, h *dispatch.Hooks, calls []dispatch.Call, results []dispatch.Result) {
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() { results[i] = c.answer(ctx, &calls[i]) })
	}
	wg.Wait()
	if h != nil && h.Observe != nil {
		for i := range calls {
			h.Observe(ctx, &calls[i], &results[i], 0)
		}
	}
}

func (c *Echo) answer(ctx context.Context, call *dispatch.Call) dispatch.Result {
	if call.Invalid != nil {
		return dispatch.Result{Err: call.Invalid, Cache: dispatch.CacheBypass}
	}
	if c.Hold != nil {
		c.Entered.Done()
		select {
		case <-c.Hold:
		case <-ctx.Done():
		}
	}
	method, params := call.UpstreamMethod, call.UpstreamParams
	if method == "fail" {
		return dispatch.Result{Err: jsonrpc.NewError(jsonrpc.KindUpstreamUnavailable, "backend down", nil)}
	}
	m, _ := json.Marshal(method)
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	return dispatch.Result{Result: json.RawMessage(`{"m":` + string(m) + `,"p":` + string(params) + `}`)}
}

// Healthy reports true.
func (c *Echo) Healthy() bool { return true }
