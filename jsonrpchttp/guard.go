package jsonrpchttp

import (
	"context"
	"github.com/hivegate/hivegate/jsonrpc"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hivegate/hivegate/jsonwire"
)

// Defaults of GuardOptions.
const (
	// DefaultMaxInFlight is the number of requests served at once before
	// new ones are refused with KindOverloaded.
	DefaultMaxInFlight = 2048
	// DefaultRateLimitClients bounds the client addresses whose rate is
	// tracked; the least recently seen is forgotten first.
	DefaultRateLimitClients = 65536
)

// GuardOptions configure a Guard.
type GuardOptions struct {
	// MaxInFlight is the number of requests served at once. One more is
	// refused at once (no queue) with KindOverloaded and HTTP 503. A batch
	// is one request: its elements share one slot. 0 means
	// DefaultMaxInFlight; negative means no limit.
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
	// ClientIP tells how a request's client address is found.
	ClientIP ClientIPOptions
	// Logger receives a debug line per refused request; nil discards.
	Logger *slog.Logger
}

// Guard is the http.Handler middleware that protects the gateway from
// overload: a limit on concurrent requests and an optional per-client rate
// limit. Its refusals are immediate and cheap: nothing is read from the
// body. GET and HEAD on / and /metrics (health checks, scrapes) pass
// unguarded. Safe for concurrent use.
type Guard struct {
	next     http.Handler
	max      int64
	inFlight atomic.Int64
	limiter  *limiter
	ip       clientIP
	log      *slog.Logger
}

// NewGuard wraps next in a Guard.
func NewGuard(next http.Handler, opts GuardOptions) *Guard {
	if opts.MaxInFlight == 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Guard{next: next, max: int64(opts.MaxInFlight), ip: newClientIP(opts.ClientIP), log: opts.Logger}
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

// rateKey is the context key under which the Guard leaves a request's
// rate-limit account, so that the JSON-RPC handler can charge a batch for
// its further elements.
type rateKey struct{}

// account is one request's client and the limiter it is charged to.
type account struct {
	l    *limiter
	addr netip.Addr
}

// ServeHTTP implements http.Handler.
func (g *Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if exempt(r) {
		g.next.ServeHTTP(w, r)
		return
	}
	if g.max > 0 {
		if n := g.inFlight.Add(1); n > g.max {
			g.inFlight.Add(-1)
			g.refuse(w, r, jsonrpc.Errorf(jsonrpc.KindOverloaded, "%d requests in flight; retry later", g.max), time.Second)
			return
		}
		defer g.inFlight.Add(-1)
	}
	if g.limiter != nil {
		addr := g.ip.of(r)
		if ok, wait := g.limiter.take(addr, 1, time.Now()); !ok {
			g.refuse(w, r, g.limiter.refusal(), wait)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), rateKey{}, account{l: g.limiter, addr: addr}))
	}
	g.next.ServeHTTP(w, r)
}

// exempt reports the requests that are never refused: health checks
// (GET / and HEAD /), which must keep answering when the gateway is busy.
// Nothing else is: metrics scraped on the public port are rate-limited
// like any call (the admin listener serves them without a guard).
func exempt(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/"
}

// refuse answers a request the Guard will not serve. JSON-RPC requests
// (POST /) get a JSON-RPC error with a null id; every other path is a
// Connect, gRPC or gRPC-Web service and gets a Connect error body (gRPC
// clients read the HTTP status: 429 and 503 both mean "unavailable").
func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, e *jsonrpc.Error, retryAfter time.Duration) {
	g.log.LogAttrs(r.Context(), slog.LevelDebug, "request refused",
		slog.String("kind", string(e.Kind)), slog.String("remote", r.RemoteAddr), slog.String("path", r.URL.Path))
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(retryAfter.Seconds())))))
	h.Set("Content-Type", "application/json")
	w.WriteHeader(e.HTTPStatus())
	if r.URL.Path == "/" {
		_, _ = w.Write(jsonrpc.AppendError(nil, nullID, e))
		return
	}
	code := "unavailable"
	if e.Kind == jsonrpc.KindRateLimited {
		code = "resource_exhausted"
	}
	b := append([]byte(`{"code":"`), code...)
	b = append(b, `","message":`...)
	b = jsonwire.AppendString(b, e.Message)
	_, _ = w.Write(append(b, '}'))
}

// chargeBatch charges the client of ctx for the further elements of a
// batch of n (the request itself was charged one by the Guard): min(n,
// burst)-1 more tokens. It returns the error to answer when the client has
// not got them, nil otherwise or when no rate limit applies.
func chargeBatch(ctx context.Context, n int) *jsonrpc.Error {
	a, ok := ctx.Value(rateKey{}).(account)
	if !ok || n <= 1 {
		return nil
	}
	extra := min(n, a.l.burst) - 1
	if extra <= 0 {
		return nil
	}
	if ok, _ := a.l.take(a.addr, float64(extra), time.Now()); !ok {
		return a.l.refusal()
	}
	return nil
}
