// Package guard is the front door of every front end (JSON-RPC over HTTP,
// Connect, gRPC, gRPC-Web): Guard refuses at once what is over
// limits.max_in_flight, a client's share of it (perclient.go) or a
// client's rate (ratelimit.go), naming the client by package clientip,
// and reads a request's body in full, within a deadline, before the
// request takes a place (readahead.go). Its refusals are JSON-RPC errors
// on POST / and Connect errors on the services' paths.
package guard

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonwire"
)

// Defaults of Options.
const (
	// DefaultMaxInFlight is the number of requests served at once before
	// new ones are refused with KindOverloaded.
	DefaultMaxInFlight = 2048
	// DefaultRateLimitClients bounds the client addresses whose rate is
	// tracked; the least recently seen is forgotten first.
	DefaultRateLimitClients = 65536
	// DefaultMaxBodyBytes is the default request body limit (the JSON-RPC
	// handler's too).
	DefaultMaxBodyBytes = 1 << 20
)

// Options configure a Guard.
type Options struct {
	// MaxInFlight is the number of requests worked on at once: a request
	// takes its place once its body is in and gives it back when its
	// answer starts. One more is refused at once (no queue) with
	// KindOverloaded and HTTP 503. A batch is one request: its elements
	// share one place. 0 means DefaultMaxInFlight; negative means no limit.
	MaxInFlight int
	// RatePerSecond is the sustained number of JSON-RPC calls one client
	// address may make per second (a token bucket). A batch of n elements
	// costs min(n, Burst) tokens; a Connect or gRPC call costs one. 0 (the
	// default) turns rate limiting off.
	RatePerSecond float64
	// Burst is the bucket size: the calls a client may make at once after
	// being idle. 0 means RatePerSecond rounded up (at least 1).
	Burst int
	// MaxClients bounds the number of client buckets kept in memory (an
	// LRU); a client that is forgotten starts again with a full bucket.
	// 0 means DefaultRateLimitClients.
	MaxClients int
	// MaxInFlightPerClient is the number of requests one client address
	// may have at once, counting those whose body is still arriving. One
	// more is refused at once with KindRateLimited and HTTP 429. Client
	// addresses in ClientIP.TrustedProxies (by default loopback and
	// private ranges) are not capped: a proxy whose header does not name
	// the client stands for many clients. 0 means MaxInFlight/8 (at least
	// 1); negative means no limit.
	MaxInFlightPerClient int
	// MaxBodyBytes bounds the body read ahead (see BodyTimeout): a larger
	// one is refused with KindRequestTooLarge and HTTP 413, as
	// jsonrpchttp.Handler does. 0 means DefaultMaxBodyBytes. The Protobuf
	// services' paths get 5 bytes more, their message envelope.
	MaxBodyBytes int64
	// BodyTimeout bounds the time to receive a request's body. The Guard
	// reads the whole body before the request takes a MaxInFlight place,
	// so that a slow client holds only its own connection; a body not in
	// after BodyTimeout is answered with HTTP 408 and the connection
	// closed. 0 means DefaultBodyTimeout; negative means none (the
	// server's ReadTimeout still applies).
	BodyTimeout time.Duration
	// StreamPaths are path prefixes of streaming procedures (gRPC server
	// reflection), whose body cannot be read ahead: a client may wait for
	// an answer before sending more. They take their place at once, and
	// BodyTimeout bounds how long their client may keep sending.
	StreamPaths []string
	// ClientIP tells how a request's client address is found.
	ClientIP clientip.Options
	// Logger receives a debug line per refused request; nil discards.
	Logger *slog.Logger
}

// Guard is the http.Handler middleware that protects the gateway from
// overload and from clients that would starve the others: a limit on
// concurrent requests, a limit on the concurrent requests of one client
// address, an optional per-client rate limit, and a body read in full,
// within a deadline, before a request takes its place among the
// concurrent ones. Its refusals are immediate and cheap. GET and HEAD on /
// (health checks) pass unguarded. Safe for concurrent use.
type Guard struct {
	next        http.Handler
	max         int64
	inFlight    atomic.Int64
	perClient   *ClientCounts // nil: no per-client cap
	limiter     *limiter
	ip          clientip.Resolver
	log         *slog.Logger
	maxBody     int64
	bodyTimeout time.Duration
	streamPaths []string
	bodies      bodyPool
}

// New wraps next in a Guard.
func New(next http.Handler, opts Options) *Guard {
	if opts.MaxInFlight == 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxInFlightPerClient == 0 && opts.MaxInFlight > 0 {
		opts.MaxInFlightPerClient = max(1, opts.MaxInFlight/8)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.BodyTimeout == 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	g := &Guard{
		next: next, max: int64(opts.MaxInFlight), ip: clientip.New(opts.ClientIP), log: opts.Logger,
		maxBody: opts.MaxBodyBytes, bodyTimeout: max(0, opts.BodyTimeout), streamPaths: opts.StreamPaths,
	}
	if opts.MaxInFlightPerClient > 0 {
		g.perClient = NewClientCounts(opts.MaxInFlightPerClient)
	}
	if opts.RatePerSecond > 0 {
		burst := opts.Burst
		if burst <= 0 {
			burst = max(1, int(math.Ceil(opts.RatePerSecond)))
		}
		clients := opts.MaxClients
		if clients <= 0 {
			clients = DefaultRateLimitClients
		}
		g.limiter = newLimiter(opts.RatePerSecond, burst, clients)
	}
	return g
}

// InFlight returns the number of guarded requests being served.
func (g *Guard) InFlight() int { return int(g.inFlight.Load()) }

// nullID is the id of the JSON-RPC refusals: the body is not read.
var nullID = json.RawMessage("null")

// rateKey is the context key under which the Guard leaves a request's
// rate-limit account, so that the JSON-RPC handler can charge a batch for
// its further elements.
type rateKey struct{}

// account is one request's client and the limiter it is charged to.
type account struct {
	l    *limiter
	addr netip.Addr
}

// ServeHTTP implements http.Handler. A request is checked in this order,
// each step cheaper than the next: its client's concurrent requests, its
// client's rate, its body (read in full, within BodyTimeout), and only
// then the gateway's concurrent requests. A request holds its place among
// those until its handler starts to answer (see placeWriter), and its
// client's share until the answer is sent.
func (g *Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if exempt(r) {
		g.next.ServeHTTP(w, r)
		return
	}
	client := g.ip.Client(r)
	addr := clientip.Key(client)
	if g.perClient != nil && !g.ip.Trusted(client) {
		if !g.perClient.Acquire(addr) {
			g.refuse(w, r, refusal{
				err:        jsonrpc.Errorf(jsonrpc.KindRateLimited, "%d requests at once from one client address; retry later", g.perClient.max),
				status:     http.StatusTooManyRequests,
				code:       "resource_exhausted",
				retryAfter: time.Second,
			})
			return
		}
		defer g.perClient.Release(addr)
	}
	if g.limiter != nil {
		if ok, wait := g.limiter.take(addr, 1, time.Now()); !ok {
			e := g.limiter.refusal()
			g.refuse(w, r, refusal{err: e, status: e.HTTPStatus(), code: "resource_exhausted", retryAfter: wait})
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), rateKey{}, account{l: g.limiter, addr: addr}))
	}
	switch {
	case g.streaming(r):
		if g.bodyTimeout > 0 {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(g.bodyTimeout))
		}
	case hasBody(r):
		b := g.readAhead(w, r)
		if b == nil {
			return // answered
		}
		defer g.bodies.put(b)
	}
	if g.max <= 0 {
		g.next.ServeHTTP(w, r)
		return
	}
	if n := g.inFlight.Add(1); n > g.max {
		g.inFlight.Add(-1)
		g.refuse(w, r, refusal{
			err:        jsonrpc.Errorf(jsonrpc.KindOverloaded, "%d requests in flight; retry later", g.max),
			status:     http.StatusServiceUnavailable,
			code:       "unavailable",
			retryAfter: time.Second,
		})
		return
	}
	pw := &placeWriter{ResponseWriter: w, g: g}
	pw.held.Store(true)
	defer pw.free()
	g.next.ServeHTTP(pw, r)
}

// exempt reports the requests that are never refused: health checks
// (GET / and HEAD /), which must keep answering when the gateway is busy.
// Nothing else is: metrics scraped on the public port are rate-limited
// like any call (the admin listener serves them without a guard).
func exempt(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/"
}

// refusal is an answer of the Guard's own.
type refusal struct {
	err    *jsonrpc.Error // what a JSON-RPC client reads
	status int            // the HTTP status
	code   string         // what a Connect client reads
	// retryAfter, when set, is sent as Retry-After (whole seconds, at
	// least 1).
	retryAfter time.Duration
}

// refuse answers a request the Guard will not serve. JSON-RPC requests
// (POST /) get a JSON-RPC error with a null id; every other path is a
// Connect, gRPC or gRPC-Web service and gets a Connect error body (gRPC
// clients read the HTTP status: 429 and 503 both mean "unavailable").
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, f refusal) {
	e := f.err
	g.log.LogAttrs(r.Context(), slog.LevelDebug, "request refused",
		slog.String("kind", string(e.Kind)), slog.String("remote", r.RemoteAddr), slog.String("path", r.URL.Path))
	h := w.Header()
	if f.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(f.retryAfter.Seconds())))))
	}
	h.Set("Content-Type", "application/json")
	if _, read := r.Body.(*aheadBody); r.ProtoMajor == 1 && hasBody(r) && !read {
		// net/http would otherwise wait for the body it was not asked to
		// read (up to read_timeout) to keep the connection.
		h.Set("Connection", "close")
	}
	w.WriteHeader(f.status)
	if r.URL.Path == "/" {
		_, _ = w.Write(jsonrpc.AppendError(nil, nullID, e))
		return
	}
	b := append([]byte(`{"code":"`), f.code...)
	b = append(b, `","message":`...)
	b = jsonwire.AppendString(b, e.Message)
	_, _ = w.Write(append(b, '}'))
}

// ChargeBatch charges the client of ctx for the further elements of a
// batch of n (the request itself was charged one by the Guard): min(n,
// burst)-1 more tokens. It returns the error to answer when the client has
// not got them, nil otherwise or when no rate limit applies.
func ChargeBatch(ctx context.Context, n int) *jsonrpc.Error {
	a, ok := ctx.Value(rateKey{}).(account)
	if !ok || n <= 1 {
		return nil
	}
	extra := min(n, a.l.burst) - 1
	if extra <= 0 {
		return nil
	}
	if ok, _ := a.l.take(a.addr, extra, time.Now()); !ok {
		return a.l.refusal()
	}
	return nil
}
