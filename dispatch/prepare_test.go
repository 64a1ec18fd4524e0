package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/router"
)

// newTestDispatcher returns a dispatcher for sharedConfig (without a shared
// tier) in front of node.
func newTestDispatcher(t *testing.T, node *countingNode) *dispatch.Dispatcher {
	t.Helper()
	cfg := parseShared(t, node)
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := backend.New(cfg.BackendMap(), backend.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return dispatch.New(r, cache.New(16<<20), pool, nil, slog.New(slog.DiscardHandler))
}

// TestResultKeysAreStable checks that every Result's Key is a string of its
// own: front ends build keys in a reused buffer (router.Router.ParseKey),
// and a Key that viewed it would change under the next call (the access log
// reads Key after the call).
func TestResultKeysAreStable(t *testing.T) {
	t.Parallel()
	node := newCountingNode(t)
	d := newTestDispatcher(t, node)
	ctx := context.Background()
	front := &door{d: d}
	type call struct {
		method, params, key, cache string
	}
	calls := []call{
		{"condenser_api.get_block", `[1]`, "appbase.condenser_api.get_block.params=[1]", "miss"},
		{"condenser_api.get_block", `[1]`, "appbase.condenser_api.get_block.params=[1]", "hit"},
		{"cache_api.no_cache", `{"b":1,"a":2}`, `appbase.cache_api.no_cache.params={"a":2,"b":1}`, "bypass"},
		{"cache_api.other", `["x"]`, `appbase.cache_api.other.params=["x"]`, "miss"},
		{"cache_api.other", `["x"]`, `appbase.cache_api.other.params=["x"]`, "hit"},
		{"nowhere.method", `[]`, "nowhere.method.params=[]", "bypass"}, // no route
	}
	var results []dispatch.Result
	for _, c := range calls {
		res := front.call(ctx, c.method, json.RawMessage(c.params))
		if res.Key != c.key || string(res.Cache) != c.cache {
			t.Fatalf("%s %s: key %q cache %s; want %q %s", c.method, c.params, res.Key, res.Cache, c.key, c.cache)
		}
		results = append(results, res)
		// Longer keys through the same buffers.
		for i := range 3 {
			front.call(ctx, "cache_api.filler", json.RawMessage(fmt.Sprintf(`[%q]`, fmt.Sprint(i, "-", c.key, c.key))))
		}
	}
	for i, res := range results {
		if res.Key != calls[i].key {
			t.Errorf("call %d: Key changed to %q after later calls; want %q", i, res.Key, calls[i].key)
		}
	}
	hit := results[1]
	if hit.Forms == nil || string(hit.Result) != nodeResult("condenser_api.get_block", json.RawMessage(`[1]`), 0) {
		t.Errorf("hit: forms %v, result %s", hit.Forms, hit.Result)
	}
}

// TestServeHitDoesNotAllocate checks the cache-hit path of Serve, with the
// call parsed into reused buffers as the JSON-RPC front end does.
func TestServeHitDoesNotAllocate(t *testing.T) {
	// Not parallel: AllocsPerRun counts allocations process-wide.
	node := newCountingNode(t)
	d := newTestDispatcher(t, node)
	params := json.RawMessage(`[8675309]`)
	if res := serveOne(d, context.Background(), "condenser_api.get_block", params); res.Err != nil {
		t.Fatal(res.Err)
	}
	front := &door{d: d, keys: make([]byte, 0, 256)}
	ctx := context.Background()
	n := testing.AllocsPerRun(1000, func() {
		if res := front.call(ctx, "condenser_api.get_block", params); res.Cache != dispatch.CacheHit {
			t.Fatalf("Serve: %+v", res)
		}
	})
	if n != 0 {
		t.Errorf("a cache hit allocates %v times, want 0", n)
	}
}

// TestLeaseOnlyForUnsharedResults: a result read for one caller alone (a
// NO_CACHE route) comes in the backend's lent buffer, which the caller may
// give back; a result the cache keeps or coalesced callers share never
// does. Results stay right when leases are given back and reused.
func TestLeaseOnlyForUnsharedResults(t *testing.T) {
	t.Parallel()
	node := newCountingNode(t)
	d := newTestDispatcher(t, node)
	ctx := context.Background()
	for i := range 3 {
		for _, c := range []struct {
			method, params, cache string
			lent                  bool
		}{
			{"cache_api.no_cache", fmt.Sprintf(`[%d]`, i), "bypass", true},
			{"cache_api.other", fmt.Sprintf(`[%d]`, i), "miss", false},
			{"cache_api.other", fmt.Sprintf(`[%d]`, i), "hit", false},
		} {
			res := serveOne(d, ctx, c.method, json.RawMessage(c.params))
			if string(res.Cache) != c.cache || (res.Lease != nil) != c.lent {
				t.Fatalf("%s %s: cache %s, lease %v; want %s, lent %v", c.method, c.params, res.Cache, res.Lease != nil, c.cache, c.lent)
			}
			if want := nodeResult(c.method, json.RawMessage(c.params), 0); string(res.Result) != want {
				t.Fatalf("%s %s: result %s, want %s", c.method, c.params, res.Result, want)
			}
			res.Release() // a result without a lease is left as it is
		}
	}
}
