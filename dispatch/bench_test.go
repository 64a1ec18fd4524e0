package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/router"
)

// BenchmarkCallHit measures the cache-hit path of one JSON-RPC call:
// parse the method into a key, resolve the route, look the key up. The
// backend is never called.
func BenchmarkCallHit(b *testing.B) {
	cfg, err := config.Parse("bench.yaml", []byte(`
backends:
  hived: http://127.0.0.1:9
urls:
  appbase: hived
ttls:
  appbase: NO_EXPIRE
`))
	if err != nil {
		b.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	pool, err := backend.New(cfg.BackendMap(), backend.Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	c := cache.New(1 << 20)
	d := dispatch.New(r, c, pool, nil, nil)
	params := json.RawMessage(`[8675309]`)
	call, err := r.Parse("condenser_api.get_block", params)
	if err != nil {
		b.Fatal(err)
	}
	c.Set(call.Key, []byte(`{"block_id":"00845fed"}`), cache.NoExpiry)
	ctx := context.Background()
	front := &door{d: d, keys: make([]byte, 0, 256)}
	b.ReportAllocs()
	for b.Loop() {
		if res := front.call(ctx, "condenser_api.get_block", params); res.Cache != dispatch.CacheHit {
			b.Fatalf("cache %q, want hit", res.Cache)
		}
	}
}
