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

// Pool holds a pool of keep-alive HTTP/1.1 connections per backend
// (net/http's Transport, transport.go) and makes JSON-RPC calls to them. It
// is safe for concurrent use.
type Pool struct {
	opts     Options
	logger   *slog.Logger
	backends map[string]*backend
	names    []string
	// nextID numbers outgoing requests; 0 is reserved for health probes.
	nextID atomic.Uint64
	// exchanges holds the *exchange of calls (exchange.go).
	exchanges sync.Pool
	// respBufs holds the *Lease buffers of response bodies.
	respBufs sync.Pool
	// chunks holds *[]byte chunks of chunkSize for bodies of unknown length.
	chunks sync.Pool
	// gzips holds the *gzipBody decoders of gzip-encoded answers.
	gzips sync.Pool
}

// backend is one upstream: its configured name, URL, connections and
// health.
type backend struct {
	name      string
	url       *url.URL
	transport *http.Transport
	// fresh sends a request on a connection of its own (attempt).
	fresh *http.Transport
	// header is sent with every call, onceHeader with calls that must not
	// reach the backend twice (baseHeaders); both are shared, read-only.
	header, onceHeader http.Header
	health             health
}

// New returns a pool for the given backends (configured name -> base URL,
// http or https). Unset options take their defaults (see Options). An empty
// map is allowed; such a pool has no healthy backend.
func New(backends map[string]string, opts Options, logger *slog.Logger) (*Pool, error) {
	opts = opts.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	p := &Pool{
		opts:     opts,
		logger:   logger,
		backends: make(map[string]*backend, len(backends)),
	}
	if !httpguts.ValidHeaderFieldValue(opts.UserAgent) {
		return nil, fmt.Errorf("backend: user agent %q has a control character", opts.UserAgent)
	}
	p.exchanges.New = func() any { return newExchange() }
	p.respBufs.New = func() any { return &Lease{pool: p, b: make([]byte, 0, 16<<10)} }
	p.chunks.New = func() any { b := make([]byte, 0, chunkSize); return &b }
	for name, raw := range backends {
		if name == "" {
			return nil, fmt.Errorf("backend: empty backend name (url %q)", raw)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("backend %s: invalid url: %w", name, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("backend %s: url %q must be http:// or https:// with a host", name, raw)
		}
		if u.Path == "" {
			u.Path = "/"
		}
		be := &backend{
			name:       name,
			url:        u,
			transport:  newTransport(u, opts),
			fresh:      newFreshTransport(u, opts),
			header:     baseHeaders(opts.UserAgent, true),
			onceHeader: baseHeaders(opts.UserAgent, false),
		}
		be.health.threshold = int64(opts.FailThreshold)
		p.backends[name] = be
		p.names = append(p.names, name)
	}
	slices.Sort(p.names)
	return p, nil
}

// Names returns the configured backend names, sorted.
func (p *Pool) Names() []string { return slices.Clone(p.names) }

// Close closes the idle connections of every backend. Calls in flight are
// not interrupted; the pool stays usable.
func (p *Pool) Close() {
	for _, be := range p.backends {
		be.transport.CloseIdleConnections()
		be.fresh.CloseIdleConnections()
	}
}
