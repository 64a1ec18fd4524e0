package router

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/hivegate/hivegate/config"
)

// Route is where and how one call is served.
type Route struct {
	Key     string // the call's canonical key
	Backend string // backend name
	URL     string // the backend's first node's base URL (never shown to clients)
	TTL     config.TTL
	Timeout time.Duration // 0 = none
	Retries int
	// Broadcast is set for broadcast methods: never cached, retried or
	// coalesced, whatever the config says.
	Broadcast bool
	Matched   Matched
}

// Matched names the config keys that decided each part of a route; empty
// when no key matched (the built-in default applies).
type Matched struct {
	URL     string `json:"url"`
	TTL     string `json:"ttl"`
	Timeout string `json:"timeout"`
	Retries string `json:"retries"`
}

// ErrNoRoute is returned by Resolve when no urls entry matches a call.
var ErrNoRoute = errors.New("no route")

// Router resolves calls against one config. It is immutable and safe for
// concurrent use; a config reload builds a new Router.
type Router struct {
	cfg      *config.Config
	parser   parser
	urls     trie[string]
	ttls     trie[config.TTL]
	timeouts trie[time.Duration]
	retries  trie[int]
	routes   routeNode // the four tries merged (routetrie.go)
	backends map[string]string
	nodes    map[string][]string
}

// New builds a Router. A malformed method key, or two keys of one section
// that mean the same (params=['x'] and params=["x"]), is a *config.Error
// naming the file, line and key. A config without a default namespace uses
// config.DefaultNamespace.
func New(cfg *config.Config) (*Router, error) {
	r := &Router{
		cfg: cfg,
		parser: parser{
			defaultNS: cmp.Or(cfg.DefaultNamespace, config.DefaultNamespace),
			translate: map[string]bool{},
		},
		backends: cfg.BackendMap(),
		nodes:    cfg.BackendNodes(),
	}
	for _, ns := range cfg.TranslateToAppbase {
		r.parser.translate[ns] = true
	}
	if err := r.parser.setEquivalents(cfg.EquivalentMethods); err != nil {
		return nil, err
	}
	if err := insertAll(&r.urls, cfg.URLs, "urls"); err != nil {
		return nil, err
	}
	if err := insertAll(&r.ttls, cfg.TTLs, "ttls"); err != nil {
		return nil, err
	}
	if err := insertAll(&r.timeouts, cfg.Timeouts, "timeouts"); err != nil {
		return nil, err
	}
	if err := insertAll(&r.retries, cfg.Retries, "retries"); err != nil {
		return nil, err
	}
	r.buildRoutes()
	return r, nil
}

func insertAll[T any](t *trie[T], entries []config.Entry[T], section string) error {
	for _, e := range entries {
		ck, err := parseConfigKey(e.Key)
		if err == nil {
			err = t.insert(ck, e.Key, e.Value)
		}
		if err != nil {
			return &config.Error{Pos: e.Pos, Key: section + "." + e.Key, Err: err}
		}
	}
	return nil
}

// Config returns the config the router was built from.
func (r *Router) Config() *config.Config { return r.cfg }

// Parse turns a JSON-RPC method and params into a Call. Errors wrap
// ErrInvalidMethod.
func (r *Router) Parse(method string, params json.RawMessage) (*Call, error) {
	return r.parser.parse(method, params)
}

// ParseKey is Parse into c, a Call the caller reuses, with the canonical key
// appended to dst (a buffer the caller reuses too) instead of allocated:
// c.Key views the appended bytes, so it is valid only while the caller
// leaves them unchanged, and a caller that keeps the Call longer gives it a
// key of its own (strings.Clone). This is how the JSON-RPC front end parses
// a request's calls into its pooled buffers: a cache hit needs no string of
// its own. It returns dst with the key appended; on error c is not a valid
// Call.
func (r *Router) ParseKey(c *Call, dst []byte, method string, params json.RawMessage) ([]byte, error) {
	if err := r.parser.parseCall(c, method, params); err != nil {
		return dst, err
	}
	var buf [3]string
	key, err := appendKey(dst, c.appendSegments(buf[:0]), c.Params)
	if err != nil {
		return dst, err
	}
	if n := len(key) - len(dst); n > 0 {
		c.Key = unsafe.String(&key[len(dst)], n)
	}
	return key, nil
}

// Resolve finds the route of a call. urls, ttls, timeouts and retries are
// matched independently, each most specific first: a params= entry that
// decides the url says nothing about the ttl. With no matching entry the
// TTL is NO_CACHE, the timeout 0 (none) and retries 0. Broadcast methods
// (config.IsBroadcastMethod) are never cached or retried, whatever the
// config says; Matched still names the keys the config would have applied.
func (r *Router) Resolve(c *Call) (Route, error) {
	var buf [3]string
	segs := c.appendSegments(buf[:0])
	params := requestParams{raw: c.Params}
	rt := Route{Key: c.Key, Broadcast: config.IsBroadcastMethod(c.API, c.Method)}
	m := r.routes.match(segs, &params)
	if !m.url.ok {
		return rt, fmt.Errorf("%w for %s", ErrNoRoute, c.Key)
	}
	rt.Backend, rt.URL, rt.Matched.URL = m.url.v, r.backends[m.url.v], m.url.key
	rt.TTL, rt.Matched.TTL = m.ttl.v, m.ttl.key
	rt.Timeout, rt.Matched.Timeout = m.timeout.v, m.timeout.key
	rt.Retries, rt.Matched.Retries = m.retries.v, m.retries.key
	if rt.Broadcast {
		rt.TTL = config.TTL{Kind: config.TTLNoCache}
		rt.Retries = 0
	}
	return rt, nil
}

// Explanation is the JSON `hivegate route` prints for one call. TTL is
// seconds (a number) or one of the words NO_CACHE, NO_EXPIRE and
// EXPIRE_IF_REVERSIBLE.
type Explanation struct {
	Key      string  `json:"key"`
	Backend  string  `json:"backend"`
	URL      string  `json:"url"` // redacted: config.RedactURL
	TTL      any     `json:"ttl"` // seconds, or NO_CACHE / NO_EXPIRE / EXPIRE_IF_REVERSIBLE
	TimeoutS float64 `json:"timeout_s"`
	Retries  int     `json:"retries"`
	Matched  Matched `json:"matched"`
	// Upstream is the method name the backend receives.
	Upstream string `json:"upstream_method"`
	// RenamedFrom is the method key the call had before equivalent_methods
	// renamed it (the key, backend, TTL and timeout are the destination's).
	RenamedFrom string `json:"renamed_from,omitempty"`
	// Nodes are the base URLs of every node of the backend, in config
	// order, redacted as URL is.
	Nodes []string `json:"nodes"`
	// Broadcast tells that the method is never cached, retried or coalesced.
	Broadcast bool `json:"broadcast,omitempty"`
}

// Explain resolves a call and describes the result for operators; node
// URLs are shown with their credentials redacted (config.RedactURL).
func (r *Router) Explain(c *Call) (Explanation, error) {
	rt, err := r.Resolve(c)
	if err != nil {
		return Explanation{}, err
	}
	var ttl any = rt.TTL.String()
	if rt.TTL.Kind == config.TTLSeconds {
		ttl = rt.TTL.Seconds
	}
	return Explanation{
		Key: rt.Key, Backend: rt.Backend, URL: config.RedactURL(rt.URL), TTL: ttl,
		TimeoutS: rt.Timeout.Seconds(), Retries: rt.Retries, Matched: rt.Matched,
		Upstream: c.UpstreamMethod, RenamedFrom: c.RenamedFrom,
		Nodes: config.RedactURLs(r.nodes[rt.Backend]), Broadcast: rt.Broadcast,
	}, nil
}
