package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
)

// TestAnswerFormsOnHitsOnly: the JSON-RPC answer of a miss carries no
// place to keep a compressed form (the result was read once: it is
// compressed with the answer, not kept beside the entry), the answer of a
// hit does (the entry), so that only results asked for again pay for a
// kept form, which the cache charges to its budget.
func TestAnswerFormsOnHitsOnly(t *testing.T) {
	t.Parallel()
	const method = "cache_api.other" // cached for 60 s (sharedConfig)
	d := newTestDispatcher(t, newCountingNode(t))
	ctx := context.Background()
	for _, want := range []struct {
		cache dispatch.CacheStatus
		forms bool
	}{{dispatch.CacheMiss, false}, {dispatch.CacheHit, true}, {dispatch.CacheHit, true}} {
		res := d.Call(ctx, method, json.RawMessage(`["forms"]`))
		if res.Err != nil || res.Cache != want.cache {
			t.Fatalf("cache %s, error %v; want %s", res.Cache, res.Err, want.cache)
		}
		if got := res.Answer().Forms != nil; got != want.forms {
			t.Errorf("%s: answer keeps forms %v, want %v", res.Cache, got, want.forms)
		}
	}
}
