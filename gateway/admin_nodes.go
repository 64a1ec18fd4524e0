package gateway

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/config"
)

// The nodes view and cordoning, on the admin listener:
//
//	GET  /admin/nodes                               every node: up, in service, cordoned, head lag, latency, calls in flight
//	POST /admin/nodes/{backend}/{node}/cordon       no new calls to the node (?force=true for the last one)
//	POST /admin/nodes/{backend}/{node}/uncordon     the node takes calls again
//
// {node} is the node's 1-based position among its backend's nodes, as in
// the metrics' node label. A cordon is kept by the node's backend and URL,
// so that it survives a config reload that keeps the node (wherever it
// moves in the list); a reload that removes the node forgets it.

// cordonKey names a cordoned node across config generations.
type cordonKey struct{ backend, url string }

// cordons are the nodes an operator cordoned. Changes and reloads hold
// Gateway.mu, so that a cordon cannot slip between a reload's new pool and
// its swap.
type cordons struct {
	set map[cordonKey]struct{}
}

// apply cordons, in a generation's new pool, the nodes of the set that
// cfg still has, and forgets the others. Called before the generation
// serves anything.
func (c *cordons) apply(cfg *config.Config, pool *backend.Pool, log *slog.Logger) {
	for k := range c.set {
		found := false
		for _, b := range cfg.Backends {
			if b.Name != k.backend {
				continue
			}
			for i, u := range b.NodeURLs() {
				if u == k.url {
					found = true
					_ = pool.Cordon(k.backend, i+1, true) // the operator cordoned it, last node or not
				}
			}
		}
		if !found {
			delete(c.set, k)
			log.Warn("cordon forgotten: the node is no longer in the config", "backend", k.backend, "url", config.RedactURL(k.url))
		}
	}
}

// nodeURL returns the configured URL of node (1-based) of the named
// backend of cfg.
func nodeURL(cfg *config.Config, name string, node int) (string, bool) {
	for _, b := range cfg.Backends {
		if b.Name == name {
			if urls := b.NodeURLs(); node >= 1 && node <= len(urls) {
				return urls[node-1], true
			}
		}
	}
	return "", false
}

// setCordon cordons (on) or uncordons node of the named backend in the
// current generation and remembers it for later ones.
func (g *Gateway) setCordon(name string, node int, on, force bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	gen := g.gen.Load()
	var err error
	if on {
		err = gen.pool.Cordon(name, node, force)
	} else {
		err = gen.pool.Uncordon(name, node)
	}
	if err != nil {
		return err
	}
	u, _ := nodeURL(gen.cfg, name, node) // the pool knew the node: so does its config
	if g.ops.cordons.set == nil {
		g.ops.cordons.set = map[cordonKey]struct{}{}
	}
	if on {
		g.ops.cordons.set[cordonKey{name, u}] = struct{}{}
	} else {
		delete(g.ops.cordons.set, cordonKey{name, u})
	}
	return nil
}

// adminNodeView is one node as GET /admin/nodes shows it.
type adminNodeView struct {
	Backend   string `json:"backend"`
	Node      int    `json:"node"`
	URL       string `json:"url"` // redacted
	Kind      string `json:"kind,omitempty"`
	Up        bool   `json:"up"`
	InService bool   `json:"in_service"`
	Cordoned  bool   `json:"cordoned"`
	Lagging   bool   `json:"lagging"`
	Reason    string `json:"reason,omitempty"`
	Head      uint64 `json:"head_block"`
	// HeadLag is how many blocks the node's head is behind the head its
	// backend's nodes agree on (or, for hivemind and HAfAH nodes, the
	// chain's); nil while either is unknown.
	HeadLag *int64 `json:"head_lag_blocks"`
	// HeadAge is the age of the node's head block in seconds; nil when
	// unknown.
	HeadAge *float64 `json:"head_age_s"`
	// LatencyMS is the moving average of the node's single-attempt calls;
	// nil before its first.
	LatencyMS *float64 `json:"latency_ms"`
	InFlight  int64    `json:"in_flight"`
}

// adminBackendView is one backend and its nodes.
type adminBackendView struct {
	Name      string          `json:"name"`
	InService bool            `json:"in_service"`
	Nodes     []adminNodeView `json:"nodes"`
}

// nodesView returns every backend with its nodes.
func (g *Gateway) nodesView() []adminBackendView {
	gen := g.gen.Load()
	nodes := gen.pool.Nodes()
	var chain uint64
	if gen.lib != nil {
		chain = gen.lib.Head()
	}
	for _, name := range gen.pool.Names() {
		if a, ok := gen.pool.Agreement(name); ok {
			chain = max(chain, a.Head)
		}
	}
	now := g.ops.now()
	out := make([]adminBackendView, 0, len(gen.cfg.Backends))
	for _, b := range gen.cfg.Backends {
		bv := adminBackendView{Name: b.Name, InService: gen.pool.Serving(b.Name), Nodes: []adminNodeView{}}
		ref := chain
		if a, ok := gen.pool.Agreement(b.Name); ok {
			ref = a.Head
		}
		for _, n := range nodes {
			if n.Backend != b.Name {
				continue
			}
			v := adminNodeView{
				Backend: n.Backend, Node: n.Node, URL: config.RedactURL(n.URL), Kind: string(n.Kind),
				Up: n.Up, InService: n.InService(), Cordoned: n.Cordoned, Lagging: n.Lagging, Reason: n.Reason,
				Head: n.Head, InFlight: n.InFlight, LatencyMS: g.ops.latencyMS(n.Backend, n.URL),
			}
			if n.Head > 0 && ref > 0 {
				lag := int64(ref) - int64(n.Head)
				v.HeadLag = &lag
			}
			if !n.HeadTime.IsZero() {
				age := now.Sub(n.HeadTime).Round(time.Second).Seconds()
				v.HeadAge = &age
			}
			bv.Nodes = append(bv.Nodes, v)
		}
		out = append(out, bv)
	}
	return out
}

// adminNodes answers GET /admin/nodes.
func (g *Gateway) adminNodes(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Backends []adminBackendView `json:"backends"`
	}{g.nodesView()})
}

// adminCordon answers POST /admin/nodes/{backend}/{node}/cordon and
// /uncordon: 200 with the node's state, 400 for a bad node number or force
// value, 404 for an unknown node, 409 when cordoning the last node that
// takes calls without ?force=true.
func (g *Gateway) adminCordon(on bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("backend")
		node, err := strconv.Atoi(r.PathValue("node"))
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the node is its 1-based position among its backend's nodes, a number"})
			return
		}
		force := false
		if f := r.URL.Query().Get("force"); f != "" {
			if force, err = strconv.ParseBool(f); err != nil || !on {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "force is true or false, and only for cordon"})
				return
			}
		}
		err = g.setCordon(name, node, on, force)
		switch {
		case errors.Is(err, backend.ErrUnknownNode):
			writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
			return
		case errors.Is(err, backend.ErrLastNode):
			writeJSON(w, http.StatusConflict, map[string]string{
				"error": err.Error() + ". Refused: the backend's calls would fail. To cordon it anyway, POST again with ?force=true.",
			})
			return
		case err != nil:
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		for _, b := range g.nodesView() {
			for _, n := range b.Nodes {
				if b.Name == name && n.Node == node {
					writeJSON(w, http.StatusOK, struct {
						Backend          string        `json:"backend"`
						BackendInService bool          `json:"backend_in_service"`
						Node             adminNodeView `json:"node"`
					}{b.Name, b.InService, n})
					return
				}
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"backend": name, "node": node, "cordoned": on})
	}
}

// operatorState is what the operator page shows beyond the pool's own
// state: cordons, call statistics, recent errors and node latencies. It
// lives as long as the Gateway, across reloads.
type operatorState struct {
	// now is the clock (time.Now; tests inject another).
	now     func() time.Time
	cordons cordons // guarded by Gateway.mu
	stats   callStats
	errors  errorRing
	latency latencies
}

// newOperatorState returns the operator state, reading time from now.
func newOperatorState(now func() time.Time) *operatorState {
	o := &operatorState{now: now}
	o.stats.started = now()
	return o
}
