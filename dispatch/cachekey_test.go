package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
)

// distinctStrings are params whose strings differ upstream but that a
// decoder replacing what is not valid UTF-16 or UTF-8 with U+FFFD would
// read as one: each must be its own cache entry.
var distinctStrings = []struct{ name, params string }{
	{"lone high surrogate", `["\ud800"]`},
	{"lone low surrogate", `["\udfff"]`},
	{"escaped U+FFFD", `["\ufffd"]`},
	{"invalid UTF-8 byte", "[\"\xff\"]"},
	{"another invalid byte", "[\"\xfe\"]"},
	{"UTF-8 bytes of a surrogate", "[\"\xed\xa0\x80\"]"},
	{"lone surrogate in a name", `[{"\ud800":1}]`},
	{"U+FFFD in a name", `[{"\ufffd":1}]`},
}

// TestDistinctStringsNeverShareACacheEntry goes through the dispatcher to a
// loopback node that counts calls by their exact params bytes: lone
// surrogates, U+FFFD and invalid UTF-8 each reach the node once and are
// then served from their own entry, with the node's answer to those very
// bytes. Escapes that mean the same string share one entry.
func TestDistinctStringsNeverShareACacheEntry(t *testing.T) {
	t.Parallel()
	const method = "cache_api.other" // cached for 60 s (sharedConfig)
	node := newCountingNode(t)
	d := newTestDispatcher(t, node)
	ctx := context.Background()
	for round, want := range []dispatch.CacheStatus{dispatch.CacheMiss, dispatch.CacheHit} {
		for _, tc := range distinctStrings {
			res := serveOne(d, ctx, method, json.RawMessage(tc.params))
			if res.Err != nil || res.Cache != want {
				t.Fatalf("round %d, %s: cache %s, error %v; want %s", round, tc.name, res.Cache, res.Err, want)
			}
			if want := nodeResult(method, json.RawMessage(tc.params), 0); !bytes.Equal(res.Result, []byte(want)) {
				t.Fatalf("round %d, %s: served %q, the answer to %q is %q", round, tc.name, res.Result, tc.params, want)
			}
		}
	}
	for _, tc := range distinctStrings {
		if n := node.count(method, tc.params); n != 1 {
			t.Errorf("%s: %d upstream calls, want 1", tc.name, n)
		}
	}
	// One string spelled two ways: one entry.
	if res := serveOne(d, ctx, method, json.RawMessage(`["\u0041\/"]`)); res.Cache != dispatch.CacheMiss {
		t.Fatalf(`["\u0041\/"]: %s, want miss`, res.Cache)
	}
	if res := serveOne(d, ctx, method, json.RawMessage(`["A/"]`)); res.Cache != dispatch.CacheHit {
		t.Errorf(`["A/"] after ["\u0041\/"]: %s, want hit`, res.Cache)
	}
}

// TestDistinctStringsOverHTTP is the same through the JSON-RPC handler and
// a real HTTP exchange: what a client sends is what decides its entry.
func TestDistinctStringsOverHTTP(t *testing.T) {
	t.Parallel()
	const method = "cache_api.other"
	node := newCountingNode(t)
	r := newReplica(t, "http", parseShared(t, node))
	for _, wantCache := range []string{"miss", "hit"} {
		for _, tc := range distinctStrings {
			a, err := r.post(context.Background(), method, tc.params)
			if err != nil || a.Error != nil || a.cache != wantCache {
				t.Fatalf("%s: cache %q, error %v %+v; want %s", tc.name, a.cache, err, a.Error, wantCache)
			}
			if want := nodeResult(method, json.RawMessage(tc.params), 0); !bytes.Equal(a.Result, []byte(want)) {
				t.Fatalf("%s: served %q, the answer to %q is %q", tc.name, a.Result, tc.params, want)
			}
		}
	}
	for _, tc := range distinctStrings {
		if n := node.count(method, tc.params); n != 1 {
			t.Errorf("%s: %d upstream calls, want 1", tc.name, n)
		}
	}
}
