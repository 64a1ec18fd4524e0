package gateway

import (
	"slices"
	"strings"

	"github.com/hivegate/hivegate/router"
)

// RouteEntry is one row of the effective route table: a key written in the
// urls, ttls, timeouts or retries section, and what a call with exactly
// that key gets.
type RouteEntry struct {
	// Key is the config key, such as "appbase.condenser_api.get_block".
	Key string `json:"key"`
	// Routed is false when no urls key covers Key (such calls are refused).
	Routed  bool   `json:"routed"`
	Backend string `json:"backend,omitempty"`
	URL     string `json:"url,omitempty"`
	// TTL is seconds, or NO_CACHE, NO_EXPIRE or EXPIRE_IF_REVERSIBLE.
	TTL      any     `json:"ttl,omitempty"`
	TimeoutS float64 `json:"timeout_s"`
	Retries  int     `json:"retries"`
}

// RouteTable returns the effective route table of r's config: every key of
// its urls, ttls, timeouts and retries sections, sorted, with the backend,
// TTL, timeout and retries a call with exactly that key gets.
func RouteTable(r *router.Router) []RouteEntry {
	cfg := r.Config()
	var keys []string
	for _, e := range cfg.URLs {
		keys = append(keys, e.Key)
	}
	for _, e := range cfg.TTLs {
		keys = append(keys, e.Key)
	}
	for _, e := range cfg.Timeouts {
		keys = append(keys, e.Key)
	}
	for _, e := range cfg.Retries {
		keys = append(keys, e.Key)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	out := make([]RouteEntry, 0, len(keys))
	for _, k := range keys {
		ex, ok := explainKey(r, k)
		if !ok {
			out = append(out, RouteEntry{Key: k})
			continue
		}
		out = append(out, RouteEntry{Key: k, Routed: true, Backend: ex.Backend, URL: ex.URL, TTL: ex.TTL, TimeoutS: ex.TimeoutS, Retries: ex.Retries})
	}
	return out
}

// explainKey resolves a config key as if a call had exactly that key.
func explainKey(r *router.Router, key string) (router.Explanation, bool) {
	path, _, _ := strings.Cut(key, ".params=")
	segs := strings.Split(path, ".")
	method := path
	if len(segs) == 1 {
		method = segs[0] + ".x.x"
	}
	// params= values in jussi's Python spelling are matched by the router,
	// so they are explained with their params too.
	raw, _ := router.ConfigKeyParams(key)
	call, err := r.Parse(method, raw)
	if err != nil {
		return router.Explanation{}, false
	}
	call.Namespace = segs[0]
	ex, err := r.Explain(call)
	return ex, err == nil
}
