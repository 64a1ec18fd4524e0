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

// TestServeAdmit: Admit is asked once about all of a batch's calls, before
// Authorize and the cache; the calls it refuses are answered with its
// result (RetryAfter kept, Cache bypass, their key, and the route they
// would have taken, which the metrics count them on), reach neither
// Authorize nor the node, and are observed like any other call.
func TestServeAdmit(t *testing.T) {
	t.Parallel()
	node := newCountingNode(t)
	d := newTestDispatcher(t, node)
	ctx := context.Background()
	if res := serveOne(d, ctx, "cache_api.other", json.RawMessage(`["cached"]`)); res.Err != nil {
		t.Fatalf("priming: %+v", res)
	}
	over := jsonrpc.NewError(jsonrpc.KindRateLimited, "quota exceeded", nil)
	var admitted [][]string
	var authorized []string
	observed := 0
	hooks := &dispatch.Hooks{
		Admit: func(_ context.Context, calls []dispatch.Call, results []dispatch.Result) {
			var seen []string
			for i := range calls {
				seen = append(seen, string(calls[i].Params))
				if r := results[i]; r.Err != nil || r.Result != nil || r.Cache != "" {
					t.Errorf("call %d: Admit got a result that was not cleared: %+v", i, results[i])
				}
				if bytes.Contains(calls[i].Params, []byte("heavy")) || bytes.Contains(calls[i].Params, []byte("cached")) {
					results[i] = dispatch.Result{Err: over, RetryAfter: 90 * time.Second}
				}
			}
			admitted = append(admitted, seen)
		},
		Authorize: func(_ context.Context, c *router.Call) *jsonrpc.Error {
			authorized = append(authorized, string(c.Params))
			return nil
		},
		Observe: func(context.Context, *dispatch.Call, *dispatch.Result, time.Duration) { observed++ },
	}
	parse := func(params string) dispatch.Call {
		var c dispatch.Call
		if _, err := d.Router().ParseKey(&c.Call, nil, "cache_api.no_cache", json.RawMessage(params)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	cached := dispatch.Call{}
	if _, err := d.Router().ParseKey(&cached.Call, nil, "cache_api.other", json.RawMessage(`["cached"]`)); err != nil {
		t.Fatal(err)
	}
	calls := []dispatch.Call{parse(`["light"]`), parse(`["heavy"]`), cached}
	// Stale results, as a pooled exchange might hand over: Serve clears them.
	results := []dispatch.Result{{Err: over}, {Result: json.RawMessage(`1`)}, {Cache: dispatch.CacheHit}}
	d.Serve(ctx, hooks, calls, results)
	if len(admitted) != 1 || len(admitted[0]) != 3 {
		t.Fatalf("Admit asked %v, want once about the three calls", admitted)
	}
	if results[0].Err != nil || results[0].Cache != dispatch.CacheBypass || len(results[0].Result) == 0 {
		t.Errorf("admitted call: %+v", results[0])
	}
	for _, i := range []int{1, 2} {
		r := results[i]
		if r.Err != over || r.RetryAfter != 90*time.Second || r.Cache != dispatch.CacheBypass || r.Result != nil || r.Key == "" {
			t.Errorf("refused call %d: %+v", i, r)
		}
	}
	if results[0].Route == "" || results[1].Route != results[0].Route || results[2].Route == "" {
		t.Errorf("routes: admitted %q, refused %q and %q; want the route each would have taken", results[0].Route, results[1].Route, results[2].Route)
	}
	if len(authorized) != 1 || authorized[0] != `["light"]` {
		t.Errorf("Authorize asked about %v, want the admitted call only", authorized)
	}
	if n := node.count("cache_api.no_cache", `["heavy"]`); n != 0 {
		t.Errorf("the refused call reached the node %d times", n)
	}
	if observed != 3 {
		t.Errorf("%d calls observed, want 3", observed)
	}

	// A single call takes the same way.
	one := []dispatch.Call{parse(`["heavy"]`)}
	res := make([]dispatch.Result, 1)
	d.Serve(ctx, hooks, one, res)
	if res[0].Err != over || res[0].RetryAfter != 90*time.Second || node.count("cache_api.no_cache", `["heavy"]`) != 0 {
		t.Errorf("refused single call: %+v", res[0])
	}
}
