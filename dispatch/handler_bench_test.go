package dispatch_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/bench/fakenode"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpchttp"
	"github.com/hivegate/hivegate/router"
)

// The handler benchmarks serve the load harness's scenarios (bench/README.md)
// through the real JSON-RPC handler, dispatcher, router, cache and backend
// pool, with the harness's fake hived as the backend. Only net/http's
// connection handling is left out: requests are handed to ServeHTTP and
// answers written to a discarding ResponseWriter, so allocs/op counts what
// hivegate itself allocates per request.

// handlerBenchConfig is the harness's gateway config (bench/cmd/benchserver)
// (the TTL of condenser_api.get_dynamic_global_properties is the
// benchmark's: 3600 for hits, NO_CACHE for the miss path).
const handlerBenchConfig = `
hivegate:
  cache_max_capacity: 268435456
backends:
  hived: %s
urls:
  appbase: hived
ttls:
  appbase: 3600
  appbase.condenser_api.get_dynamic_global_properties: %s
  appbase.database_api.list_accounts: NO_EXPIRE
timeouts:
  appbase: 5
retries:
  appbase: 0
`

var (
	benchAnswersOnce sync.Once
	benchAnswers     *fakenode.Answers
	benchAnswersErr  error
)

// handlerBench is one gateway's handler in front of the fake hived.
type handlerBench struct {
	h     http.Handler
	cache *cache.Cache
}

func newHandlerBench(b *testing.B, dgpoTTL string) *handlerBench {
	b.Helper()
	benchAnswersOnce.Do(func() { benchAnswers, benchAnswersErr = fakenode.NewAnswers(fakenode.Options{}) })
	if benchAnswersErr != nil {
		b.Fatal(benchAnswersErr)
	}
	node := httptest.NewServer(fakenode.NewBackend(benchAnswers))
	b.Cleanup(node.Close)
	cfg, err := config.Parse("bench.yaml", fmt.Appendf(nil, handlerBenchConfig, node.URL, dgpoTTL))
	if err != nil {
		b.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	opts := backend.DefaultOptions()
	opts.HealthInterval = 0
	opts.MaxConnsPerBackend = 32
	pool, err := backend.New(cfg.BackendMap(), opts, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	c := cache.New(256 << 20)
	lib := backend.NewLIBTracker(pool, "hived", 0, nil)
	d := dispatch.New(r, c, pool, lib, slog.New(slog.DiscardHandler))
	return &handlerBench{h: jsonrpchttp.NewHandler(d, jsonrpchttp.HandlerOptions{}), cache: c}
}

// discardWriter is an http.ResponseWriter that keeps the status and the
// body length and drops the bytes, as cheap as a ResponseWriter can be.
type discardWriter struct {
	header http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

func (w *discardWriter) reset() {
	clear(w.header)
	w.status, w.n = 0, 0
}

// bodyReader is a resettable request body.
type bodyReader struct{ bytes.Reader }

func (*bodyReader) Close() error { return nil }

// serve posts body to the handler b.N times, checking the status.
func (hb *handlerBench) serve(b *testing.B, body string) {
	b.Helper()
	rb, data := &bodyReader{}, []byte(body)
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Header.Set("Content-Type", "application/json")
	w := &discardWriter{header: http.Header{}}
	once := func() {
		rb.Reset(data)
		req.Body, req.ContentLength = rb, int64(len(data))
		w.reset()
		hb.h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
	once() // fills the cache
	once()
	b.SetBytes(int64(w.n))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		once()
	}
}

// BenchmarkHandler measures whole JSON-RPC requests: a cache hit (scenario
// 2a), a batch of 50 hits (2b), a cached 2.8 MB list_accounts answer (4b), a
// miss to the fake hived over loopback (3a) and a batch of 10 misses (sent
// upstream as one JSON-RPC batch).
func BenchmarkHandler(b *testing.B) {
	dgpo := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_dynamic_global_properties","params":[]}`
	elems := make([]string, 50)
	for i := range elems {
		elems[i] = strings.Replace(dgpo, `"id":1`, fmt.Sprintf(`"id":%d`, i+1), 1)
	}
	cases := []struct{ name, ttl, body string }{
		{"hit", "3600", dgpo},
		{"batch50", "3600", "[" + strings.Join(elems, ",") + "]"},
		{"list_accounts", "3600", `{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start":"","limit":1000,"order":"by_name"}}`},
		{"miss", "NO_CACHE", dgpo},
		{"batch10_miss", "NO_CACHE", "[" + strings.Join(elems[:10], ",") + "]"},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			newHandlerBench(b, tc.ttl).serve(b, tc.body)
		})
	}
}
