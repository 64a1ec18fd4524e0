package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/internal/redistest"
)

// TestReplicasShareRedisCache runs two gateways built from one config with
// cache.redis_url, as two replicas behind a load balancer would be: a miss on
// A is a hit on B, with one upstream call in total. redis_timeout is long:
// with the 50 ms default, B's first Redis read (a new connection) could
// time out on a loaded machine and count as a miss.
func TestReplicasShareRedisCache(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	var calls atomic.Int64
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		id := body[strings.LastIndex(string(body), `"id":`)+5 : strings.Index(string(body), `,"method"`)]
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":{"answer":42},"id":%s}`, id)
	}))
	t.Cleanup(node.Close)
	yaml := fmt.Sprintf("hivegate:\n  port: 0\nbackends:\n  hived: %s\nurls:\n  appbase: hived\nttls:\n  appbase: 60\ncache:\n  redis_url: %s\n  redis_timeout: 5s\n", node.URL, rs.URL())
	replica := func() *httptest.Server {
		cfg, err := config.Parse("replica.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		gw, err := gateway.New(cfg, gateway.Options{})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gw.Handler())
		t.Cleanup(func() { srv.Close(); gw.Close() })
		return srv
	}
	a, b := replica(), replica()
	call := func(srv *httptest.Server) string {
		t.Helper()
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"condenser_api.get_accounts","params":[["alice"]]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if string(body) != `{"jsonrpc":"2.0","result":{"answer":42},"id":9}` {
			t.Fatalf("answer %s", body)
		}
		return resp.Header.Get("X-Hivegate-Cache")
	}
	if got := call(a); got != "miss" {
		t.Fatalf("first call on A: cache %q, want miss", got)
	}
	// A writes to Redis asynchronously, off the client's path: wait (bounded)
	// until its entry is there before asking B.
	rc := rs.Client()
	waitFor(t, "A's entry in Redis", func() bool { return rc.DBSize(context.Background()).Val() > 0 })
	if got := call(b); got != "hit" {
		t.Fatalf("call on B: cache %q, want hit from the shared tier", got)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d upstream calls between the replicas, want 1", n)
	}
}
