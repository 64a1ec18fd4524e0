package gateway

import (
	"bufio"
	"encoding/json"
	"net/http"
	"runtime"
	"runtime/pprof"

	"github.com/hivegate/hivegate/cache"
)

// Drone's debug views (debug_endpoints_enabled), on the admin listener
// only: Drone serves its cache views on the public port, hivegate keeps
// them, like every operator's view, behind admin_listen and admin_token.
//
//	GET /cache-size          {"current_size": bytes in use, "max_size": cache_max_capacity}
//	GET /cache-entries       [{"key": ..., "size": bytes charged}, ...] (every entry: can be large)
//	GET /debug/memory_stats  the Go heap's figures (Drone's /debug/jemalloc_stats)
//	GET /debug/heap_profile  a heap profile in pprof's format (Drone's jemalloc dump)
//
// With debug_endpoints_enabled false (the default) they answer 404.

// mountDebug adds the debug views to the admin mux.
func (g *Gateway) mountDebug(mux *http.ServeMux) {
	mux.HandleFunc("GET /cache-size", g.debugOnly(g.cacheSize))
	mux.HandleFunc("GET /cache-entries", g.debugOnly(g.cacheEntries))
	mux.HandleFunc("GET /debug/memory_stats", g.debugOnly(memoryStats))
	mux.HandleFunc("GET /debug/heap_profile", g.debugOnly(heapProfile))
}

// debugOnly answers 404 unless the config in use enables the debug views,
// so that a reload turns them on or off at once.
func (g *Gateway) debugOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !g.Config().Ops.DebugEndpoints {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}
}

// cacheSize answers Drone's /cache-size.
func (g *Gateway) cacheSize(w http.ResponseWriter, _ *http.Request) {
	var st cache.Stats
	if g.cache != nil {
		st = g.cache.Stats()
	}
	writeJSON(w, http.StatusOK, map[string]int64{"current_size": st.Bytes, "max_size": st.Capacity})
}

// cacheEntries answers Drone's /cache-entries, streamed: the list can hold
// millions of entries.
func (g *Gateway) cacheEntries(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 32<<10)
	_ = bw.WriteByte('[')
	first := true
	if g.cache != nil {
		g.cache.Walk(func(e cache.EntryInfo) bool {
			if !first {
				_ = bw.WriteByte(',')
			}
			first = false
			b, _ := json.Marshal(struct {
				Key  string `json:"key"`
				Size int64  `json:"size"`
			}{e.Key, e.Size})
			_, err := bw.Write(b)
			return err == nil
		})
	}
	_, _ = bw.WriteString("]\n")
	_ = bw.Flush()
}

// memoryStats answers the Go heap's figures, as Drone's jemalloc stats
// answer its allocator's.
func memoryStats(w http.ResponseWriter, _ *http.Request) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	writeJSON(w, http.StatusOK, map[string]uint64{
		"heap_alloc_bytes":    m.HeapAlloc,
		"heap_inuse_bytes":    m.HeapInuse,
		"heap_idle_bytes":     m.HeapIdle,
		"heap_released_bytes": m.HeapReleased,
		"heap_sys_bytes":      m.HeapSys,
		"sys_bytes":           m.Sys,
		"heap_objects":        m.HeapObjects,
		"gc_cycles":           uint64(m.NumGC),
		"next_gc_bytes":       m.NextGC,
	})
}

// heapProfile answers a heap profile (go tool pprof reads it).
func heapProfile(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="heap.prof"`)
	_ = pprof.Lookup("heap").WriteTo(w, 0)
}
