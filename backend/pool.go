package backend

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http/httpguts"
)

// Pool holds the nodes of every configured backend and makes JSON-RPC calls
// to them: a pool of keep-alive HTTP/1.1 connections per http(s) node
// (net/http's Transport, transport.go), a pool of WebSocket connections per
// ws(s) node (ws.go). It is safe for concurrent use.
type Pool struct {
	opts     Options
	logger   *slog.Logger
	backends map[string]*backend
	names    []string
	// ids draws the ids of outgoing requests (ids.go); 0 is reserved for
	// health probes.
	ids *idSource
	// exchanges holds the *exchange of calls (exchange.go).
	exchanges sync.Pool
	// respBufs holds the *Lease buffers of response bodies.
	respBufs sync.Pool
	// chunks holds *[]byte chunks of chunkSize for bodies of unknown length.
	chunks sync.Pool
	// gzips holds the *gzipBody decoders of gzip-encoded answers.
	gzips sync.Pool
}

// backend is one configured upstream: its name and its nodes, the servers
// that answer its calls (nodes.go says which one a call goes to).
type backend struct {
	name  string
	nodes []*node
	trust trust // what its nodes agree on (agree.go)
	// cordonMu serializes Cordon and Uncordon (cordon.go).
	cordonMu sync.Mutex
}

// node is one server of a backend: its URL, its connections and its
// health. An http(s) node has a Transport, a ws(s) node a WebSocket pool.
type node struct {
	name  string // the backend's name, in errors and logs
	index int    // 1-based position among the backend's nodes
	url   *url.URL
	// shown is shownURL(url), made once: every answer names its node
	// (Response.Node).
	shown string
	// transport and fresh are an http(s) node's clients: fresh sends a
	// request on a connection of its own (attempt). nil for ws(s) nodes.
	transport, fresh *http.Transport
	// ws is a ws(s) node's connections; nil for http(s) nodes.
	ws *wsNode
	// header is sent with every call (baseHeaders); shared, read-only.
	header http.Header
	health health
	// inFlight counts the calls being made to the node (least loaded).
	inFlight atomic.Int64
	// judged is the prober's judgement of the node (agree.go).
	judged judgement
	// cordoned keeps new calls away from the node (cordon.go).
	cordoned atomic.Bool
}

// New returns a pool of one node per backend (configured name -> base URL,
// http, https, ws or wss). Unset options take their defaults (see Options).
// An empty map is allowed; such a pool has no healthy backend.
func New(backends map[string]string, opts Options, logger *slog.Logger) (*Pool, error) {
	nodes := make(map[string][]string, len(backends))
	for name, u := range backends {
		nodes[name] = []string{u}
	}
	return NewNodes(nodes, opts, logger)
}

// NewNodes returns a pool whose backends have the given nodes (configured
// name -> base URLs, in order). Unset options take their defaults.
func NewNodes(backends map[string][]string, opts Options, logger *slog.Logger) (*Pool, error) {
	opts = opts.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p := &Pool{
		opts:     opts,
		logger:   logger,
		backends: make(map[string]*backend, len(backends)),
		ids:      newIDSource(),
	}
	if !httpguts.ValidHeaderFieldValue(opts.UserAgent) {
		return nil, fmt.Errorf("backend: user agent %q has a control character", opts.UserAgent)
	}
	p.exchanges.New = func() any { return newExchange() }
	p.respBufs.New = func() any { return &Lease{pool: p, b: make([]byte, 0, 16<<10)} }
	p.chunks.New = func() any { b := make([]byte, 0, chunkSize); return &b }
	for name, urls := range backends {
		if name == "" {
			return nil, fmt.Errorf("backend: empty backend name (urls %q)", urls)
		}
		if len(urls) == 0 {
			return nil, fmt.Errorf("backend %s: no node URL", name)
		}
		be := &backend{name: name}
		for i, raw := range urls {
			n, err := p.newNode(name, i+1, raw)
			if err != nil {
				return nil, err
			}
			be.nodes = append(be.nodes, n)
		}
		p.backends[name] = be
		p.names = append(p.names, name)
	}
	slices.Sort(p.names)
	return p, nil
}

// newNode returns node number index of backend name at raw.
func (p *Pool) newNode(name string, index int, raw string) (*node, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("backend %s: invalid url: %w", name, err)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("backend %s: url %q has no host", name, shownURL(u))
	}
	if u.Path == "" {
		u.Path = "/"
	}
	n := &node{
		name:   name,
		index:  index,
		url:    u,
		shown:  shownURL(u),
		header: baseHeaders(p.opts.UserAgent),
	}
	n.health.threshold = int64(p.opts.FailThreshold)
	switch u.Scheme {
	case "http", "https":
		n.transport = newTransport(u, p.opts)
		n.fresh = newFreshTransport(u, p.opts)
	case "ws", "wss":
		n.ws = newWSNode(n, p.opts)
	default:
		return nil, fmt.Errorf("backend %s: url %q must be http://, https://, ws:// or wss://", name, shownURL(u))
	}
	return n, nil
}

// Names returns the configured backend names, sorted.
func (p *Pool) Names() []string { return slices.Clone(p.names) }

// Close closes the idle connections of every node. Calls in flight are not
// interrupted (their WebSocket connections close when they are done); the
// pool stays usable.
func (p *Pool) Close() {
	for _, be := range p.backends {
		for _, n := range be.nodes {
			if n.ws != nil {
				n.ws.closeIdle()
				continue
			}
			n.transport.CloseIdleConnections()
			n.fresh.CloseIdleConnections()
		}
	}
}
