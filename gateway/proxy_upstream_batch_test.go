package gateway_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
)

// batchConfig is proxyConfig with a second backend and a route with its
// own timeout: the calls of a client batch are grouped per backend and
// route settings.
const batchConfig = `
hivegate:
  cache_max_capacity: 16777216
backends:
  hived: {{hived}}
  hivemind: {{hivemind}}
urls:
  appbase: hived
  bridge: hivemind
ttls:
  appbase: 60
  bridge: 60
  appbase.test_api: NO_CACHE
timeouts:
  appbase: 5
  bridge: 5
  appbase.slow_api: 9
`

// echoing registers methods on n that answer their params.
func echoing(n *fakeNode, methods ...string) {
	for _, m := range methods {
		n.on(m, func(w http.ResponseWriter, _ *http.Request, req nodeRequest) { replyResult(w, req, string(req.Params)) })
	}
}

// TestUpstreamBatching shows the elements of a client batch that miss the
// cache going to their backend in one JSON-RPC batch: answers matched to
// their elements, a JSON-RPC error kept to its element, every answer cached
// on its own, identical elements coalesced, one batch per backend and per
// timeout, broadcasts sent alone.
func TestUpstreamBatching(t *testing.T) {
	t.Parallel()
	hived, hivemind := newFakeNode(t), newFakeNode(t)
	echoing(hived, "cache_api.get", "test_api.nocache", "slow_api.get", "condenser_api.broadcast_transaction")
	hived.on("cache_api.fail", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		replyError(w, req, `{"code":-32003,"message":"Assert Exception: no"}`)
	})
	echoing(hivemind, "bridge.get_post")
	p := startProxy(t, batchConfig, map[string]*fakeNode{"hived": hived, "hivemind": hivemind}, false)

	calls := []string{
		call(`1`, "cache_api.get", `[1]`),
		call(`2`, "cache_api.get", `[2]`),
		call(`3`, "cache_api.fail", `[3]`),
		call(`4`, "test_api.nocache", `[4]`),
		call(`"five"`, "bridge.get_post", `{"author":"a"}`),
		call(`6`, "bridge.get_post", `{"author":"b"}`),
		call(`7`, "cache_api.get", `[1]`), // the same call as element 1
		call(`8`, "slow_api.get", `[8]`),  // another timeout: a batch of its own
		call(`9`, "condenser_api.broadcast_transaction", `[{"ops":[]}]`),
	}
	got := p.post(batchOf(calls...)).batch(t)
	want := []struct{ id, result string }{
		{`1`, `[1]`}, {`2`, `[2]`}, {`3`, ``}, {`4`, `[4]`}, {`"five"`, `{"author":"a"}`},
		{`6`, `{"author":"b"}`}, {`7`, `[1]`}, {`8`, `[8]`}, {`9`, `[{"ops":[]}]`},
	}
	if len(got) != len(want) {
		t.Fatalf("%d answers, want %d", len(got), len(want))
	}
	for i, w := range want {
		if string(got[i].ID) != w.id || string(got[i].Result) != w.result {
			t.Errorf("element %d: id %s result %s error %s, want id %s result %s", i, got[i].ID, got[i].Result, got[i].Error, w.id, w.result)
		}
	}
	if e := got[2].err(t); e.Code != -32003 {
		t.Errorf("element 3: error %+v, want the node's -32003", e)
	}
	// hived: cache_api.get [1] and [2], cache_api.fail and test_api.nocache
	// in one batch; slow_api.get alone (another timeout); the broadcast
	// alone. hivemind: one batch of two.
	if b := hived.batchSizes(); !slices.Equal(b, []int{4}) {
		t.Errorf("hived got batches %v, want one of 4", b)
	}
	if b := hivemind.batchSizes(); !slices.Equal(b, []int{2}) {
		t.Errorf("hivemind got batches %v, want one of 2", b)
	}
	if c := hived.count("cache_api.get"); c != 2 {
		t.Errorf("cache_api.get reached hived %d times, want 2 (element 7 coalesced onto element 1)", c)
	}
	for _, m := range []string{"slow_api.get", "condenser_api.broadcast_transaction"} {
		if c := hived.count(m); c != 1 {
			t.Errorf("%s reached hived %d times, want 1", m, c)
		}
	}
	// Each answer was cached on its own: the same batch again sends only
	// what is never cached (the error, the NO_CACHE call, the broadcast).
	again := p.post(batchOf(calls...)).batch(t)
	for i, w := range want {
		if string(again[i].Result) != w.result {
			t.Errorf("again, element %d: result %s, want %s", i, again[i].Result, w.result)
		}
	}
	if b := hived.batchSizes(); !slices.Equal(b, []int{4, 2}) {
		t.Errorf("hived got batches %v, want [4 2]: the cached answers served from the cache", b)
	}
	if b := hivemind.batchSizes(); !slices.Equal(b, []int{2}) {
		t.Errorf("hivemind got batches %v after the second batch, want only the first", b)
	}
}

// TestUpstreamBatchingSettings shows limits.max_upstream_batch_size and
// limits.no_upstream_batch, and a node that refuses batches getting the
// calls one by one.
func TestUpstreamBatchingSettings(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, limits string
		refuse       bool
		batches      []int
	}{
		{"default", "", false, []int{5}},
		{"max_upstream_batch_size: 2", "limits:\n  max_upstream_batch_size: 2\n", false, []int{2, 2}}, // and the fifth call alone
		{"max_upstream_batch_size: 1", "limits:\n  max_upstream_batch_size: 1\n", false, nil},
		{"no_upstream_batch: [hived]", "limits:\n  no_upstream_batch: [hived]\n", false, nil},
		{"a node that refuses batches", "", true, nil},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hived, hivemind := newFakeNode(t), newFakeNode(t)
			hived.noBatch.Store(tc.refuse)
			echoing(hived, "test_api.nocache")
			p := startProxy(t, batchConfig+tc.limits, map[string]*fakeNode{"hived": hived, "hivemind": hivemind}, false)
			var calls []string
			for i := range 5 {
				calls = append(calls, call(strconv.Itoa(i), "test_api.nocache", fmt.Sprintf("[%d]", i)))
			}
			got := p.post(batchOf(calls...)).batch(t)
			for i, g := range got {
				if string(g.Result) != fmt.Sprintf("[%d]", i) {
					t.Errorf("element %d: result %s error %s", i, g.Result, g.Error)
				}
			}
			b := hived.batchSizes()
			slices.Sort(b)
			if !slices.Equal(b, tc.batches) {
				t.Errorf("batches %v, want %v", b, tc.batches)
			}
			if c := hived.count("test_api.nocache"); c != 5 {
				t.Errorf("the node answered %d calls, want 5", c)
			}
		})
	}
}
