package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
)

// TestResultForms: a result the cache holds (the miss that stored it, every
// hit after) comes with its entry's Forms, where a front end keeps what it
// makes of the result (charged to the cache budget); a result not cached
// has none. Whether a form is worth keeping is the front end's choice
// (jsonrpchttp keeps compressed forms of hits only).
func TestResultForms(t *testing.T) {
	t.Parallel()
	d := newTestDispatcher(t, newCountingNode(t))
	ctx := context.Background()
	for _, want := range []struct {
		method string // cache_api.other is cached for 60 s (sharedConfig)
		cache  dispatch.CacheStatus
		forms  bool
	}{
		{"cache_api.other", dispatch.CacheMiss, true},
		{"cache_api.other", dispatch.CacheHit, true},
		{"cache_api.no_cache", dispatch.CacheBypass, false},
	} {
		res := serveOne(d, ctx, want.method, json.RawMessage(`["forms"]`))
		if res.Err != nil || res.Cache != want.cache {
			t.Fatalf("cache %s, error %v; want %s", res.Cache, res.Err, want.cache)
		}
		if got := res.Forms != nil; got != want.forms {
			t.Errorf("%s: result has forms %v, want %v", res.Cache, got, want.forms)
		}
	}
	res := serveOne(d, ctx, "cache_api.other", json.RawMessage(`["forms"]`))
	type form struct{}
	if !res.Forms.SetDerived(form{}, "kept", 10) {
		t.Fatal("a small form was not kept")
	}
	if again := serveOne(d, ctx, "cache_api.other", json.RawMessage(`["forms"]`)); again.Forms.Derived(form{}) != "kept" {
		t.Error("the next hit does not see the kept form")
	}
}
