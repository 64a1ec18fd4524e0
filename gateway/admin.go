package gateway

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
)

// AdminHandler serves the admin listener (hivegate.admin_listen): GET
// /metrics, POST /admin/reload, GET /admin/routes, GET /admin/route, GET
// /admin/health, the operator page at /operator/ and its views (GET
// /admin/nodes, /admin/stats, /admin/errors; POST
// /admin/nodes/{backend}/{node}/cordon and /uncordon: admin_nodes.go,
// admin_stats.go, admin_page.go). Every request must name an allowed host (421 otherwise)
// and a request that changes state must not come from another site's web
// page (403) or carry a form body (415): admin_guard.go. With
// hivegate.admin_token set (read from the config in use, so a reload can
// rotate it) every request must carry "Authorization: Bearer <token>";
// others get a JSON-RPC Unauthorized error (-32016) with HTTP 401; the
// operator page's own files, which hold no data, are served without it
// (the page asks for the token). Node URLs are shown redacted
// (config.RedactURL).
func (g *Gateway) AdminHandler() http.Handler { return g.admin }

func (g *Gateway) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", g.metrics.Handler())
	mux.HandleFunc("POST /admin/reload", g.adminReload)
	mux.HandleFunc("GET /admin/routes", g.adminRoutes)
	mux.HandleFunc("GET /admin/route", g.adminRoute)
	mux.HandleFunc("GET /admin/health", g.adminHealth)
	mux.HandleFunc("GET /admin/nodes", g.adminNodes)
	mux.HandleFunc("POST /admin/nodes/{backend}/{node}/cordon", g.adminCordon(true))
	mux.HandleFunc("POST /admin/nodes/{backend}/{node}/uncordon", g.adminCordon(false))
	mux.HandleFunc("GET /admin/stats", g.adminStats)
	mux.HandleFunc("GET /admin/errors", g.adminErrors)
	g.mountDebug(mux) // admin_debug.go

	page := operatorPage() // admin_page.go
	return g.adminGuard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isOperatorPage(r) {
			page.ServeHTTP(w, r)
			return
		}
		if !g.adminAuthorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hivegate admin"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			e := jsonrpc.NewError(jsonrpc.KindUnauthorized, "the admin endpoints want Authorization: Bearer <hivegate.admin_token>", nil)
			_, _ = w.Write(jsonrpc.AppendError(nil, nil, e))
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// adminAuthorized checks the bearer token when one is configured.
func (g *Gateway) adminAuthorized(r *http.Request) bool {
	token := g.Config().Ops.AdminToken
	if token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// adminReload reloads the config: 200 with a ReloadResult, or 400 with the
// error when the new config is rejected (the running one stays in use).
func (g *Gateway) adminReload(w http.ResponseWriter, _ *http.Request) {
	res, err := g.ReloadFromSource()
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// adminRoutes answers the effective route table of the config in use.
func (g *Gateway) adminRoutes(w http.ResponseWriter, _ *http.Request) {
	gen := g.gen.Load()
	backends := make(map[string]any, len(gen.cfg.Backends))
	for _, b := range gen.cfg.Backends {
		if len(b.Nodes) > 1 {
			backends[b.Name] = config.RedactURLs(b.Nodes) // several nodes: the list
		} else {
			backends[b.Name] = config.RedactURL(b.URL)
		}
	}
	writeJSON(w, http.StatusOK, struct {
		Source           string       `json:"source"`
		DefaultNamespace string       `json:"default_namespace"`
		Backends         any          `json:"backends"`
		Routes           []RouteEntry `json:"routes"`
	}{gen.cfg.Source, gen.cfg.DefaultNamespace, backends, RouteTable(gen.router)})
}

// adminRoute explains how one call is routed, as `hivegate route` does:
// ?method=condenser_api.get_block&params=[1] (params optional, JSON).
func (g *Gateway) adminRoute(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	method := q.Get("method")
	if method == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want ?method=<json-rpc method>[&params=<json>]"})
		return
	}
	var params json.RawMessage
	if p := q.Get("params"); p != "" {
		if !json.Valid([]byte(p)) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "params is not valid JSON"})
			return
		}
		params = json.RawMessage(p)
	}
	rt := g.gen.Load().router
	call, err := rt.Parse(method, params)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	ex, err := rt.Explain(call)
	if err != nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, ex)
}

// adminHealth answers every backend's health, the chain position seen,
// the cache's counters and the coalesced calls in flight; 503 when no
// backend can be called (every node of every backend down or cordoned).
func (g *Gateway) adminHealth(w http.ResponseWriter, _ *http.Request) {
	gen := g.gen.Load()
	type nodeHealth struct {
		Node      int    `json:"node"`
		URL       string `json:"url"`
		Up        bool   `json:"up"`
		InService bool   `json:"in_service"`
		Kind      string `json:"kind,omitempty"`
		Reason    string `json:"reason,omitempty"`
		Head      uint64 `json:"head_block"`
		InFlight  int64  `json:"in_flight"`
		Cordoned  bool   `json:"cordoned"`
	}
	type backendHealth struct {
		Name string `json:"name"`
		URL  string `json:"url"`
		// Up: a node can be called (neither down nor cordoned), as
		// hivegate_backend_up; InService: a node is in service, the rule of
		// GET /. The status is 503 when no backend is up.
		Up        bool         `json:"up"`
		InService bool         `json:"in_service"`
		Nodes     []nodeHealth `json:"nodes"`
	}
	var h struct {
		Status   string          `json:"status"`
		Problems []string        `json:"problems,omitempty"`
		Version  string          `json:"version"`
		Source   string          `json:"config_source"`
		LoadedAt time.Time       `json:"config_loaded_at"`
		Backends []backendHealth `json:"backends"`
		LIB      uint64          `json:"last_irreversible_block"`
		Head     uint64          `json:"head_block"`
		Cache    *cacheHealth    `json:"cache"`
		Flights  struct {
			Calls   int `json:"calls"`
			Waiters int `json:"waiters"`
		} `json:"coalesced"`
	}
	h.Status, h.Version, h.Source, h.LoadedAt = "OK", g.opts.Version, gen.cfg.Source, gen.loaded.UTC()
	nodes := gen.pool.Nodes()
	for _, b := range gen.cfg.Backends {
		bh := backendHealth{Name: b.Name, URL: config.RedactURL(b.URL), Up: gen.pool.Healthy(b.Name), InService: gen.pool.Serving(b.Name)}
		for _, n := range nodes {
			if n.Backend == b.Name {
				// n.URL is redacted by the pool; redacting twice changes nothing.
				bh.Nodes = append(bh.Nodes, nodeHealth{n.Node, config.RedactURL(n.URL), n.Up, n.InService(), string(n.Kind), n.Reason, n.Head, n.InFlight, n.Cordoned})
			}
		}
		if !bh.InService {
			h.Problems = append(h.Problems, "backend "+b.Name+": no node in service")
		}
		h.Backends = append(h.Backends, bh)
	}
	if gen.lib != nil {
		h.LIB, h.Head = gen.lib.LastIrreversible(), gen.lib.Head()
	}
	if g.cache != nil {
		st := g.cache.Stats()
		h.Cache = &cacheHealth{st.Entries, st.Bytes, st.Capacity, st.Hits, st.Misses, st.Evictions, st.Expired}
	}
	fl := gen.dispatcher.Flights()
	h.Flights.Calls, h.Flights.Waiters = fl.Calls, fl.Waiters
	code := http.StatusOK
	// The admin view answers 200 while any backend can be called, so that
	// an operator's tooling can read it; GET / is the load balancers' check
	// and answers 503 as soon as a backend has no node in service. Both
	// list the same problems.
	if !gen.pool.AnyHealthy() {
		h.Status, code = "no backend reachable", http.StatusServiceUnavailable
	}
	writeJSON(w, code, h)
}

// cacheHealth is cache.Stats as /admin/health shows it.
type cacheHealth struct {
	Entries   int64  `json:"entries"`
	Bytes     int64  `json:"bytes"`
	Capacity  int64  `json:"capacity_bytes"`
	Hits      uint64 `json:"hits"`
	Misses    uint64 `json:"misses"`
	Evictions uint64 `json:"evictions"`
	Expired   uint64 `json:"expired"`
}

// writeJSON answers v as indented JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
