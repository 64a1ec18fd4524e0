package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/hivegate/hivegate/bench/fakenode"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
)

// gatewayConfig routes every appbase and hived call to one backend.
// condenser_api.get_dynamic_global_properties gets the TTL the scenario
// asks for (a long one for cache hits, NO_CACHE for the miss path); blocks
// and account lists never expire, so cache-filling traffic stays until it
// is evicted for space.
const gatewayConfig = `hivegate:
  hostname: 127.0.0.1
  port: 0
  cache_max_capacity: %[2]d
  middleware_connection_threads: %[4]d
backends:
  hived: %[1]s
urls:
  appbase: hived
  hived: hived
ttls:
  appbase: 3600
  hived: 3600
  appbase.condenser_api.get_dynamic_global_properties: %[3]s
  appbase.database_api.get_dynamic_global_properties: 1
  appbase.condenser_api.get_block: NO_EXPIRE
  appbase.block_api.get_block: NO_EXPIRE
  appbase.database_api.list_accounts: NO_EXPIRE
timeouts:
  appbase: 5
  hived: 5
retries:
  appbase: 0
  hived: 0
`

// statsFunc reports the server's own figures for the control endpoint.
type statsFunc func() map[string]any

// benchServer is what main needs of a server.
type benchServer interface {
	Serve(net.Listener) error
	Close() error
}

// newServer builds the server for f.mode. cleanup releases what the server
// holds.
func newServer(ctx context.Context, f flags, logger *slog.Logger) (benchServer, statsFunc, func(), error) {
	nop := func() {}
	switch f.mode {
	case "minimal", "backend":
		accounts := f.accounts
		if f.mode == "minimal" {
			accounts = hivesim.DefaultAccounts // only the DGPO answer is served
		}
		a, err := fakenode.NewAnswers(fakenode.Options{Accounts: accounts})
		if err != nil {
			return nil, nil, nop, err
		}
		// The simulated chain is garbage now: start with a lean heap.
		runtime.GC()
		debug.FreeOSMemory()
		var h http.Handler = fakenode.NewBackend(a)
		if f.mode == "minimal" {
			h = fakenode.NewMinimal(a.CondenserDGPO, f.batch)
		}
		if f.gatewayServer {
			// hivegate's own http.Server, configured as cmd/hivegate
			// configures it.
			return gateway.NewHTTPServer("", fakenode.WithGatewayHeaders(h), gateway.Timeouts{}, logger),
				func() map[string]any { return nil }, nop, nil
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
		return srv, func() map[string]any { return nil }, nop, nil
	case "gateway":
		yaml := fmt.Appendf(nil, gatewayConfig, f.backendURL, f.cacheCapacity, f.dgpoTTL, f.upstreamConns)
		cfg, err := config.Parse("bench.yaml", yaml)
		if err != nil {
			return nil, nil, nop, fmt.Errorf("gateway config: %w", err)
		}
		gcPercent := 0
		if f.memoryLimit {
			// What a production gateway does (cmd/hivegate): a soft
			// memory limit derived from the cache's capacity and the
			// collector's percentage for it, unless the operator set
			// GOMEMLIMIT or GOGC.
			_, gcPercent = cache.ApplyMemoryLimit(cfg.Settings.CacheMaxCapacity)
		}
		gw, err := gateway.New(cfg, gateway.Options{Version: "bench", Logger: logger})
		if err != nil {
			return nil, nil, nop, err
		}
		gctx, cancel := context.WithCancel(ctx)
		gw.Start(gctx)
		srv := gateway.NewHTTPServer(cfg.Listen(), gw.Handler(), gateway.Timeouts{}, logger)
		stats := func() map[string]any {
			var cs cache.Stats
			if c := gw.Dispatcher().Cache(); c != nil {
				cs = c.Stats()
			}
			return map[string]any{"cache": cs, "gc_percent": gcPercent}
		}
		return srv, stats, func() { cancel(); gw.Close() }, nil
	}
	return nil, nil, nop, fmt.Errorf("--mode %q: want minimal, backend or gateway", f.mode)
}

// memStats is the part of runtime.MemStats the harness reports.
type memStats struct {
	HeapAlloc    uint64 `json:"heap_alloc"`
	HeapInuse    uint64 `json:"heap_inuse"`
	HeapIdle     uint64 `json:"heap_idle"`
	HeapReleased uint64 `json:"heap_released"`
	HeapSys      uint64 `json:"heap_sys"`
	Sys          uint64 `json:"sys"`
	NumGC        uint32 `json:"num_gc"`
	GOMAXPROCS   int    `json:"gomaxprocs"`
	GOGC         string `json:"gogc"`
	MemoryLimit  int64  `json:"memory_limit"`
}

// controlHandler serves GET /stats and POST /gc.
func controlHandler(stats statsFunc) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		out := map[string]any{"mem": memStats{
			HeapAlloc: ms.HeapAlloc, HeapInuse: ms.HeapInuse, HeapIdle: ms.HeapIdle,
			HeapReleased: ms.HeapReleased, HeapSys: ms.HeapSys, Sys: ms.Sys, NumGC: ms.NumGC,
			GOMAXPROCS: runtime.GOMAXPROCS(0), GOGC: os.Getenv("GOGC"), MemoryLimit: debug.SetMemoryLimit(-1),
		}}
		for k, v := range stats() {
			out[k] = v
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	mux.HandleFunc("POST /gc", func(w http.ResponseWriter, _ *http.Request) {
		runtime.GC()
		debug.FreeOSMemory()
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}
