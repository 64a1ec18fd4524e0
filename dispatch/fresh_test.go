package dispatch_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/router"
)

// TestFreshBypassesTheCache: a cached answer is served to a call, while a
// fresh call (dispatch.Call.Fresh) asks the node each time and leaves the
// cache as it was.
func TestFreshBypassesTheCache(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct{ ID json.RawMessage }
		_ = json.Unmarshal(body, &req)
		v := n.Add(1)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + string(rune('0'+v)) + `}`))
	}))
	t.Cleanup(node.Close)
	cfg, err := config.Parse("f.yaml", []byte("backends:\n  h: "+node.URL+"\nurls:\n  appbase: h\nttls:\n  appbase: 60\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := router.New(cfg)
	opts := backend.DefaultOptions()
	opts.HealthInterval = 0
	pool, err := backend.New(cfg.BackendMap(), opts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	d := dispatch.New(r, cache.New(1<<20), pool, nil, nil)
	ctx := context.Background()
	params := json.RawMessage(`[["alice"]]`)
	if res := serveOne(d, ctx, "condenser_api.get_accounts", params); string(res.Result) != "1" {
		t.Fatalf("first call %s", res.Result)
	}
	for want := "2"; want <= "3"; want = string(rune(want[0] + 1)) {
		if res := serveFresh(d, ctx, "condenser_api.get_accounts", params); string(res.Result) != want || res.Cache != dispatch.CacheBypass {
			t.Errorf("fresh call %s (%s), want %s", res.Result, res.Cache, want)
		}
	}
	if res := serveOne(d, ctx, "condenser_api.get_accounts", params); string(res.Result) != "1" || res.Cache != dispatch.CacheHit {
		t.Errorf("the cached answer changed: %s (%s)", res.Result, res.Cache)
	}
	if res := serveFresh(d, ctx, "no..method", nil); res.Err == nil {
		t.Error("an invalid method is answered")
	}
}
