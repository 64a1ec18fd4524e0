package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// TestServeHooks: Serve asks Authorize about every parsed call before the
// cache (a cached answer is refused too) and sends nothing upstream for a
// refusal; it tells Observe of every call once, refusals and the front
// end's own invalid calls included, with the result the caller gets.
func TestServeHooks(t *testing.T) {
	t.Parallel()
	node := newCountingNode(t)
	d := newTestDispatcher(t, node)
	ctx := context.Background()
	// Cached beforehand, through the door without hooks (the auth
	// service's own reads).
	if res := serveOne(d, ctx, "cache_api.other", json.RawMessage(`["secret"]`)); res.Err != nil || res.Cache != dispatch.CacheMiss {
		t.Fatalf("priming: %+v", res)
	}
	refusal := jsonrpc.NewError(jsonrpc.KindForbidden, "no", nil)
	var mu sync.Mutex
	observed := map[*dispatch.Result]int{}
	hooks := &dispatch.Hooks{
		Authorize: func(_ context.Context, c *router.Call) *jsonrpc.Error {
			if bytes.Contains(c.Params, []byte("secret")) {
				return refusal
			}
			return nil
		},
		Observe: func(_ context.Context, _ *dispatch.Call, res *dispatch.Result, _ time.Duration) {
			mu.Lock()
			observed[res]++
			mu.Unlock()
		},
	}
	parse := func(method, params string) dispatch.Call {
		var c dispatch.Call
		if _, err := d.Router().ParseKey(&c.Call, nil, method, json.RawMessage(params)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	invalid := jsonrpc.NewError(jsonrpc.KindInvalidParams, "bad", nil)
	calls := []dispatch.Call{
		parse("cache_api.other", `["secret"]`),    // cached, refused
		parse("cache_api.other", `["open"]`),      // goes upstream
		parse("cache_api.no_cache", `["secret"]`), // refused before the node
		{Call: router.Call{UpstreamMethod: "x"}, Invalid: invalid},
	}
	results := make([]dispatch.Result, len(calls))
	d.Serve(ctx, hooks, calls, results)
	for _, i := range []int{0, 2} {
		if results[i].Err != refusal || results[i].Cache != dispatch.CacheBypass || results[i].Result != nil {
			t.Errorf("call %d: %+v, want the refusal", i, results[i])
		}
	}
	if results[1].Err != nil || results[1].Cache != dispatch.CacheMiss {
		t.Errorf("allowed call: %+v", results[1])
	}
	if results[3].Err != invalid || results[3].Cache != dispatch.CacheBypass {
		t.Errorf("invalid call: %+v", results[3])
	}
	if n := node.count("cache_api.no_cache", `["secret"]`); n != 0 {
		t.Errorf("a refused call reached the node %d times", n)
	}
	for i := range results {
		if observed[&results[i]] != 1 {
			t.Errorf("call %d observed %d times, want once", i, observed[&results[i]])
		}
	}
	if len(observed) != len(results) {
		t.Errorf("%d results observed, want %d", len(observed), len(results))
	}
}
