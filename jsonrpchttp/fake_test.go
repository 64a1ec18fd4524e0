package jsonrpchttp_test

import (
	"context"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/internal/calltest"
)

// fakeDispatcher stands in for the dispatcher: calls are parsed with
// calltest.Echo's router, a call the router refused is answered with its
// error, every other call by answer.
type fakeDispatcher struct {
	calltest.Echo
	answer func(c *dispatch.Call) dispatch.Result
}

// Serve implements jsonrpchttp.Dispatcher.
func (f *fakeDispatcher) Serve(_ context.Context, _ *dispatch.Hooks, calls []dispatch.Call, results []dispatch.Result) {
	for i := range calls {
		if calls[i].Invalid != nil {
			results[i] = dispatch.Result{Err: calls[i].Invalid, Cache: dispatch.CacheBypass}
			continue
		}
		results[i] = f.answer(&calls[i])
	}
}
