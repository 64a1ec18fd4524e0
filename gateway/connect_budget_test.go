package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/gen/hive/database_api/v1/database_apiv1connect"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/metrics"
)

// TestTypedHitsWithinBudget fills a 16 MiB cache with typed ListAccounts
// pages (100 keys, 43 MB of JSON in all), each asked over Connect binary
// (a miss: the result is decoded, the message and its encoding kept with
// the entry) and then again (a hit), one in five over Connect JSON (its
// JSON encoding kept too). The decoded
// messages and their encodings are charged to the budget: the cache's own
// accounting stays within cache_max_capacity, and so does what the heap
// grew by (plus a quarter for the collector's and allocator's slack). The
// messages were not charged: the heap grew by about three times the
// budget. It does not run in parallel: it measures the heap.
func TestTypedHitsWithinBudget(t *testing.T) {
	const budget = 16 << 20
	node := hivesim.New(hivesim.Options{Seed: 3, Accounts: 300})
	b := newCountingBackend(t, node)
	yaml := strings.ReplaceAll(typedConfig, "{{backend}}", b.srv.URL)
	yaml = strings.Replace(yaml, "cache_max_capacity: 67108864", "cache_max_capacity: 16777216", 1)
	cfg, err := config.Parse("typed_budget.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gw.Close)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = gateway.NewHTTPServer("", gw.Handler(), gateway.Timeouts{}, nil)
	srv.Start()
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: &http.Transport{}, Timeout: typedHangGuard}
	t.Cleanup(hc.CloseIdleConnections)
	binary := database_apiv1connect.NewDatabaseApiServiceClient(hc, srv.URL)
	jsonc := database_apiv1connect.NewDatabaseApiServiceClient(hc, srv.URL, connect.WithProtoJSON())
	list := func(c database_apiv1connect.DatabaseApiServiceClient, limit uint32) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), typedHangGuard)
		defer cancel()
		res, err := c.ListAccounts(ctx, connect.NewRequest(&dbv1.ListAccountsRequest{Limit: proto.Uint32(limit), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}))
		if err != nil {
			t.Fatalf("ListAccounts(%d): %v", limit, err)
		}
		if len(res.Msg.GetAccounts()) != int(limit) {
			t.Fatalf("ListAccounts(%d): %d accounts", limit, len(res.Msg.GetAccounts()))
		}
		return res.Header().Get("X-Hivegate-Cache")
	}
	cacheBytes := func() float64 {
		v, _ := metrics.Value(gw.Metrics().Registry(), "hivegate_cache_bytes", "")
		return v
	}

	// The codec's plans, the node's accounts and the clients' connections
	// are made before the heap is first measured.
	list(binary, 300)
	list(jsonc, 300)
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // the second frees what sync.Pools kept through the first
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc

	var hits int
	for limit := uint32(100); limit < 200; limit++ {
		list(binary, limit)
		again := binary
		if limit%5 == 0 {
			again = jsonc // the JSON encoding is kept too (protojson is slow: not every time)
		}
		if list(again, limit) == "hit" {
			hits++
		}
		if got := cacheBytes(); got > budget {
			t.Fatalf("after ListAccounts(%d): the cache counts %.0f bytes, over its budget of %d", limit, got, budget)
		}
	}
	runtime.GC()
	runtime.GC() // the second frees what sync.Pools kept through the first
	runtime.ReadMemStats(&ms)
	grew := int64(ms.HeapAlloc) - int64(before)
	t.Logf("cache %.0f bytes (budget %d), %d hits of 100; the heap grew by %d bytes", cacheBytes(), budget, hits, grew)
	if hits < 90 {
		t.Errorf("%d of 100 repeated calls were cache hits, want at least 90", hits)
	}
	if got := cacheBytes(); got < budget/2 {
		t.Errorf("the cache counts %.0f bytes: it was not filled", got)
	}
	if limit := int64(budget) * 5 / 4; grew > limit {
		t.Errorf("the heap grew by %d bytes with the cache full, want at most %d (the budget and a quarter)", grew, limit)
	}
}
