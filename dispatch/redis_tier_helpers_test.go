package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonrpchttp"
	"github.com/hivegate/hivegate/router"
)

// sharedConfig is the config the shared-cache tests start from: {{node}}
// becomes the test node's URL and {{cache}} the `cache:` section's keys.
// The methods of the made-up cache_api stand for each TTL kind.
const sharedConfig = `
hivegate:
  cache_max_capacity: 16777216
backends:
  hived: {{node}}
urls:
  appbase: hived
ttls:
  appbase: 60
  appbase.cache_api.short: 1
  appbase.cache_api.no_cache: NO_CACHE
  appbase.cache_api.no_expire: NO_EXPIRE
  appbase.condenser_api.get_block: EXPIRE_IF_REVERSIBLE
  appbase.condenser_api.get_dynamic_global_properties: 1
timeouts:
  appbase: 5
retries:
  appbase: 0
cache:
{{cache}}
`

// countingNode is a Hive node stand-in that counts the calls it gets.
type countingNode struct {
	url string
	lib atomic.Uint64 // what get_dynamic_global_properties reports
	// lie, when set, is the node's get_dynamic_global_properties answer.
	lie   atomic.Pointer[string]
	mu    sync.Mutex
	calls map[string]int // method + params → calls
	total atomic.Int64
}

// newCountingNode starts a node whose answers are a function of the call:
// get_block answers a block with the right block_id, get_dynamic_global_
// properties the node's LIB, cache_api.big a large JSON document, every
// other method {"method":…,"params":…}.
func newCountingNode(t testing.TB) *countingNode {
	t.Helper()
	n := &countingNode{calls: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n.mu.Lock()
		n.calls[req.Method+string(req.Params)]++
		n.mu.Unlock()
		n.total.Add(1)
		w.Header().Set("Content-Type", "application/json")
		result := nodeResult(req.Method, req.Params, n.lib.Load())
		if lie := n.lie.Load(); lie != nil && strings.HasSuffix(req.Method, ".get_dynamic_global_properties") {
			result = *lie
		}
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	t.Cleanup(srv.Close)
	n.url = srv.URL
	return n
}

// nodeResult is the node's answer to method with params.
func nodeResult(method string, params json.RawMessage, lib uint64) string {
	switch method {
	case "condenser_api.get_dynamic_global_properties", "database_api.get_dynamic_global_properties":
		return fmt.Sprintf(`{"head_block_number":%d,"time":%q,"last_irreversible_block_num":%d}`, lib+20, blockTime(lib+20), lib)
	case "condenser_api.get_block":
		var p []uint64
		if json.Unmarshal(params, &p) != nil || len(p) != 1 || p[0] == 0 {
			return "null"
		}
		return fmt.Sprintf(`{"previous":"%08x00000000000000000000000000000000","block_id":"%08x00000000000000000000000000000000","transactions":[]}`, p[0]-1, p[0])
	case "cache_api.big":
		var b strings.Builder
		b.WriteString(`{"ops":[`)
		for i := range 1000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"type":"vote_operation","value":{"voter":"alice%d","author":"bob","permlink":"post-%d","weight":10000}}`, i%97, i%13)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	return fmt.Sprintf(`{"method":%q,"params":%s}`, method, params)
}

// blockTime is the time of block h on the nodes' chain: 3 s per block,
// block 10,000,000 now, so that a node whose LIB moves on is plausible.
func blockTime(h uint64) string {
	return time.Now().Add(-time.Duration(10_000_000-int64(h)) * 3 * time.Second).UTC().Format("2006-01-02T15:04:05")
}

// count is how many times the node was called with method and params.
func (n *countingNode) count(method, params string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[method+params]
}

// parseShared parses sharedConfig for node with the given cache keys
// (indented by two spaces), failing the test on an error.
func parseShared(t testing.TB, node *countingNode, cacheKeys ...string) *config.Config {
	t.Helper()
	var section strings.Builder
	for _, k := range cacheKeys {
		section.WriteString("  " + k + "\n")
	}
	text := strings.NewReplacer("{{node}}", node.url, "{{cache}}", section.String()).Replace(sharedConfig)
	cfg, err := config.Parse("shared.yaml", []byte(text))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

// replica is one hivegate replica: its own router, in-process cache,
// backend pool, LIB tracker and dispatcher, wired the way server/gateway.go
// wires them, behind the JSON-RPC handler.
type replica struct {
	name   string
	pool   *backend.Pool
	d      *dispatch.Dispatcher
	shared *cache.Redis
	lib    *backend.LIBTracker
	url    string
}

// newReplica builds a replica from cfg. Its LIB tracker never polls: it
// learns the LIB from the shared tier and from the calls it serves.
func newReplica(t testing.TB, name string, cfg *config.Config, opts ...dispatch.Option) *replica {
	t.Helper()
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bopts := backend.DefaultOptions()
	bopts.HealthInterval = 0
	pool, err := backend.NewNodes(cfg.BackendNodes(), bopts, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	shared, err := cache.OpenShared(cfg.Cache, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if shared != nil {
		t.Cleanup(func() { _ = shared.Close() })
	}
	lib := backend.NewLIBTracker(pool, "hived", time.Hour, nil)
	if _, err := dispatch.ShareLIB(context.Background(), shared, lib); err != nil {
		t.Logf("%s: reading the shared LIB: %v", name, err)
	}
	d := dispatch.New(r, cache.New(cfg.Settings.CacheMaxCapacity), pool, lib, nil, append([]dispatch.Option{dispatch.WithSharedCache(shared)}, opts...)...)
	srv := httptest.NewServer(jsonrpchttp.NewHandler(d, jsonrpchttp.HandlerOptions{}))
	t.Cleanup(srv.Close)
	return &replica{name: name, pool: pool, d: d, shared: shared, lib: lib, url: srv.URL}
}

// learn makes the replica learn the chain's LIB as it can: a
// get_dynamic_global_properties call through it, a probe of its nodes and
// a poll of its tracker.
func (r *replica) learn(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	if _, err := r.post(ctx, "condenser_api.get_dynamic_global_properties", `["learn"]`); err != nil {
		t.Fatal(err)
	}
	r.pool.Probe(ctx)
	if p, ok := any(r.lib).(interface{ Poll(context.Context) }); ok {
		p.Poll(ctx)
	}
}

// answer is a JSON-RPC answer as the client sees it.
type answer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	cache string // x-hivegate-cache
}

// post sends one JSON-RPC call over HTTP.
func (r *replica) post(ctx context.Context, method, params string) (answer, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	var a answer
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return answer{}, fmt.Errorf("answer %q: %w", data, err)
	}
	a.cache = resp.Header.Get(jsonrpc.HeaderCache)
	return a, nil
}

// call is post that fails the test on any error, and checks the result.
func (r *replica) call(t testing.TB, method, params string) answer {
	t.Helper()
	a, err := r.post(context.Background(), method, params)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", r.name, method, params, err)
	}
	if a.Error != nil {
		t.Fatalf("%s: %s %s: error %d %s", r.name, method, params, a.Error.Code, a.Error.Message)
	}
	if want := nodeResult(method, json.RawMessage(params), 0); method != "condenser_api.get_dynamic_global_properties" && !jsonEqual(a.Result, want) {
		t.Fatalf("%s: %s %s: result %.200s, want %.200s", r.name, method, params, a.Result, want)
	}
	return a
}

// flush waits until the replica's queued Redis writes are sent.
func (r *replica) flush(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.shared.Flush(ctx); err != nil {
		t.Fatalf("%s: flush: %v", r.name, err)
	}
}

// key is the cache key of a call.
func (r *replica) key(t testing.TB, method, params string) string {
	t.Helper()
	c, err := r.d.Router().Parse(method, json.RawMessage(params))
	if err != nil {
		t.Fatal(err)
	}
	return c.Key
}

// redisKey is the Redis key a call is stored under.
func (r *replica) redisKey(t testing.TB, method, params string) string {
	return r.shared.Prefix() + "c:" + r.key(t, method, params)
}

// jsonEqual compares two JSON documents, ignoring insignificant whitespace.
func jsonEqual(a []byte, b string) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, []byte(b)) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// waitFor polls cond until it holds, failing the test after 15 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
