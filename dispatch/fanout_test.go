package dispatch_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/router"
)

// TestAllNodes: a broadcast call with Call.AllNodes reaches every node of
// its backend once (a node down does not stop it, and nothing is sent
// twice); without AllNodes it reaches one node, as before; AllNodes on a
// call that is not a broadcast changes nothing.
func TestAllNodes(t *testing.T) {
	t.Parallel()
	a, b := newCountingNode(t), newCountingNode(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "http://" + l.Addr().String()
	_ = l.Close()
	text := strings.NewReplacer("{{nodes}}", "["+a.url+", "+downURL+", "+b.url+"]").Replace(`
backends:
  hived: {{nodes}}
urls:
  appbase: hived
timeouts:
  appbase: 5
retries:
  appbase: 2
`)
	cfg, err := config.Parse("fanout.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := backend.NewNodes(cfg.BackendNodes(), backend.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	d := dispatch.New(r, cache.New(1<<20), pool, nil, slog.New(slog.DiscardHandler))
	call := func(method, params string, all bool) dispatch.Result {
		calls := []dispatch.Call{{AllNodes: all}}
		if _, err := d.Router().ParseKey(&calls[0].Call, nil, method, json.RawMessage(params)); err != nil {
			t.Fatal(err)
		}
		results := make([]dispatch.Result, 1)
		d.Serve(context.Background(), nil, calls, results)
		return results[0]
	}
	const bcast = "network_broadcast_api.broadcast_transaction"
	const trx = `{"trx":{"ref_block_num":7}}`
	hits := func() (int64, int64) { return a.total.Load(), b.total.Load() }

	if res := call(bcast, trx, true); res.Err != nil || res.Cache != dispatch.CacheBypass {
		t.Fatalf("broadcast to all nodes: %+v", res)
	}
	if ha, hb := hits(); ha != 1 || hb != 1 {
		t.Fatalf("with AllNodes the nodes got the transaction %d and %d times, want once each", ha, hb)
	}
	if res := call(bcast, trx, false); res.Err != nil {
		t.Fatalf("broadcast to one node: %+v", res)
	}
	if ha, hb := hits(); ha+hb != 3 {
		t.Fatalf("without AllNodes one node more got the transaction: %d and %d, want 3 in all", ha, hb)
	}
	if res := call("condenser_api.get_block", `[9]`, true); res.Err != nil {
		t.Fatalf("get_block with AllNodes: %+v", res)
	}
	if ha, hb := hits(); ha+hb != 4 {
		t.Fatalf("a get_block with AllNodes went to %d nodes, want 1", ha+hb-3)
	}
}
