package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hivegate/hivegate/auth"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/callpolicy"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/logval"
	"github.com/hivegate/hivegate/metrics"
	"github.com/hivegate/hivegate/quota"
	"github.com/hivegate/hivegate/server"
)

// Options configure a Gateway.
type Options struct {
	// Version is reported by GET / and hivegate_build_info.
	Version string
	// Logger receives the gateway's logs, the access log included; nil
	// discards them.
	Logger *slog.Logger
	// CORSAllowedOrigins are the browser origins allowed to call hivegate
	// (JSON-RPC, Connect, gRPC-Web), for example "https://app.example.com";
	// "*" or an empty list allows any origin. When set, it overrides
	// hivegate.cors_allowed_origins.
	CORSAllowedOrigins []string
	// ConfigLoader loads the config again for ReloadFromSource (POST
	// /admin/reload, SIGHUP). nil loads the running config's Source file
	// with config.Load.
	ConfigLoader func() (*config.Config, error)
	// UI serves the browser API explorer of web/ (every typed RPC through
	// Connect-Web) at /ui/ on the main listener.
	UI bool
	// AuthDemoAuthority is auth.Options.DemoAuthority: `hivegate demo`
	// only.
	AuthDemoAuthority func(ctx context.Context, user, account string) error
	// StreamNow is the clock the stream follower schedules its reads by
	// (stream.Options.Now); nil is time.Now. Tests whose simulated node
	// keeps its own time pass that clock.
	StreamNow func() time.Time
}

// Gateway is one running hivegate: its cache, metrics and tracing, which
// live as long as the process, and its current generation — router,
// backend pool, last-irreversible-block tracker, dispatcher and handler
// tree — which a config reload replaces atomically (see Reload).
type Gateway struct {
	opts    Options
	log     *slog.Logger
	cache   *cache.Cache   // nil when cache_max_capacity is 0
	shared  *cache.Redis   // the shared tier; nil without one
	auth    *auth.Service  // the app authorization service; nil when auth is off (auth_wiring.go)
	quota   *quota.Limiter // quota counters, for every generation (quota_wiring.go)
	metrics *metrics.Metrics
	tracing *tracing // nil when tracing is off
	// api is the typed API (the schema never changes on reload).
	api *server.API
	// policy is the call policy (auth.require_token) checking the auth
	// service's tokens; nil when auth is off (auth_wiring.go).
	policy *callpolicy.Service
	// startCfg is the config the process started with: settings that
	// cannot change live are compared with it on reload.
	startCfg *config.Config
	gen      atomic.Pointer[generation]
	handler  http.Handler
	admin    http.Handler
	// ops is the operator page's state: cordons, call figures, recent
	// errors (admin_nodes.go, admin_stats.go).
	ops *operatorState
	// checkOnly is set for Check: the generation reads nothing from Redis.
	checkOnly bool
	// streams are the block and operation streams; nil when off
	// (stream_wiring.go).
	streams *streams
	// blockWaits counts the calls the block wait held, over every
	// generation (blockwait_wiring.go).
	blockWaits dispatch.BlockWaitCounts

	mu      sync.Mutex      // serializes Start, reloads and Close
	runCtx  context.Context // set by Start
	closed  chan struct{}   // closed by Close
	retired sync.WaitGroup  // generations being retired
}

// libProbeMethod is the call whose route names the node backend the last
// irreversible block is polled from.
const libProbeMethod = "database_api.get_dynamic_global_properties"

// New builds a gateway from a config.
func New(cfg *config.Config, opts Options) (*Gateway, error) { return newGateway(cfg, opts, false) }

// newGateway is New; checkOnly builds a gateway for Check, which contacts
// nothing.
func newGateway(cfg *config.Config, opts Options, checkOnly bool) (*Gateway, error) {
	// Every value logged is bounded (logval): many come from clients and
	// nodes. A nil Logger discards.
	logger := logval.NewLogger(opts.Logger)
	g := &Gateway{opts: opts, log: logger, startCfg: cfg, closed: make(chan struct{}), ops: newOperatorState(time.Now), checkOnly: checkOnly}
	if cfg.Settings.CacheMaxCapacity > 0 {
		g.cache = cache.New(cfg.Settings.CacheMaxCapacity)
	}
	api, err := server.NewAPI()
	if err != nil {
		return nil, fmt.Errorf("building handlers: %w", err)
	}
	g.api = api
	if cfg.Ops.Tracing.Enabled() {
		if g.tracing, err = newTracing(cfg.Ops.Tracing, opts.Version); err != nil {
			return nil, err
		}
	}
	// The optional shared Redis tier (cache.redis_url): nil without it.
	if g.shared, err = cache.OpenShared(cfg.Cache, logger); err != nil {
		g.shutdownTracing()
		return nil, err
	}
	g.metrics = metrics.NewIn(cfg.Ops.Namespace(), opts.Version, g.metricSources())
	if g.auth, err = g.newAuth(cfg); err != nil {
		g.closeShared()
		g.shutdownTracing()
		return nil, err
	}
	if err = g.newQuotaLimiter(cfg); err != nil { // quota_wiring.go
		g.closeAuth()
		g.closeShared()
		g.shutdownTracing()
		return nil, err
	}
	g.streams = g.newStreams(cfg) // stream_wiring.go
	gen, err := g.newGeneration(cfg, nil)
	if err != nil {
		g.closeQuota()
		g.closeAuth()
		g.closeShared()
		g.shutdownTracing()
		return nil, err
	}
	g.gen.Store(gen)
	g.handler = http.HandlerFunc(g.serveHTTP)
	g.admin = g.adminHandler()
	return g, nil
}

// TypedCall returns the JSON-RPC call a typed request becomes, as
// server.API.TypedCall does.
func (g *Gateway) TypedCall(procedure string, req proto.Message) (method string, params json.RawMessage, err error) {
	return g.api.TypedCall(procedure, req)
}

// Start starts the background work (health probes, LIB polling) until ctx
// ends; generations loaded by later reloads run under ctx too.
func (g *Gateway) Start(ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.runCtx != nil {
		return
	}
	g.runCtx = ctx
	g.gen.Load().start(ctx)
	g.startStreams(ctx) // stream_wiring.go
}

// Handler is the gateway's HTTP handler tree for the main listener:
// JSON-RPC, Connect/gRPC/gRPC-Web, health and (unless
// hivegate.metrics.enabled is false) Prometheus metrics.
func (g *Gateway) Handler() http.Handler { return g.handler }

// Dispatcher is the current generation's dispatcher.
func (g *Gateway) Dispatcher() *dispatch.Dispatcher { return g.gen.Load().dispatcher }

// Config is the config in use (the last one loaded).
func (g *Gateway) Config() *config.Config { return g.gen.Load().cfg }

// Metrics are the gateway's instruments and registry.
func (g *Gateway) Metrics() *metrics.Metrics { return g.metrics }

// Close stops the background work, releases idle upstream connections,
// closes the shared cache tier and flushes pending trace spans (waiting at
// most a few seconds for the collector). Requests still in flight finish.
func (g *Gateway) Close() {
	g.mu.Lock()
	select {
	case <-g.closed:
		g.mu.Unlock()
		return
	default:
	}
	close(g.closed)
	g.mu.Unlock()
	g.retired.Wait()
	g.closeStreams() // stream_wiring.go
	g.gen.Load().stop()
	g.closeQuota()
	g.closeAuth()
	g.closeShared()
	g.shutdownTracing()
}

func (g *Gateway) closeShared() {
	if g.shared != nil {
		_ = g.shared.Close()
	}
}

// shutdownTracing flushes and stops the tracer provider.
func (g *Gateway) shutdownTracing() {
	if g.tracing == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := g.tracing.shutdown(ctx); err != nil {
		g.log.Warn("flushing trace spans", "err", err)
	}
}

// metricSources are the scrape-time metrics: they read the current
// generation, so they follow reloads.
func (g *Gateway) metricSources() metrics.Sources {
	return metrics.Sources{
		Cache: func() (cache.Stats, bool) {
			if g.cache == nil {
				return cache.Stats{}, false
			}
			return g.cache.Stats(), true
		},
		Flights: func() (int, int) {
			st := g.Dispatcher().Flights()
			return st.Calls, st.Waiters
		},
		BlockWait: func() (held, arrived, timedOut, gone int64) {
			st := g.blockWaits.Stats()
			return st.Waiting, st.Arrived, st.TimedOut, st.Gone
		},
		Chain: func() (uint64, uint64) {
			if lib := g.gen.Load().lib; lib != nil {
				return lib.LastIrreversible(), lib.Head()
			}
			return 0, 0
		},
		Backends: func() []metrics.BackendState {
			p := g.gen.Load().pool
			names := p.Names()
			out := make([]metrics.BackendState, len(names))
			for i, n := range names {
				out[i] = metrics.BackendState{Name: n, Up: p.Healthy(n)}
			}
			return out
		},
		Nodes: func() []metrics.NodeState {
			nodes := g.gen.Load().pool.Nodes()
			out := make([]metrics.NodeState, len(nodes))
			for i, n := range nodes {
				out[i] = metrics.NodeState{
					Backend: n.Backend, Node: strconv.Itoa(n.Node), Up: n.Up, InService: n.InService(),
					Head: n.Head, InFlight: n.InFlight, Cordoned: n.Cordoned,
				}
			}
			return out
		},
	}
}
