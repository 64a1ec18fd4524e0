package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/guard"
	"github.com/hivegate/hivegate/quota"
	"github.com/hivegate/hivegate/server"
	"github.com/hivegate/hivegate/web"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpchttp"
	"github.com/hivegate/hivegate/router"
)

// generation is everything one config builds: a config reload builds a new
// generation and swaps it in atomically. A request runs entirely on the
// generation it started on (its handler tree holds that generation's
// dispatcher), so a reload never fails or mixes configs mid-request. The
// cache, the shared Redis tier, metrics and tracing belong to the Gateway
// and are shared by every generation.
type generation struct {
	cfg        *config.Config
	router     *router.Router
	pool       *backend.Pool
	lib        *backend.LIBTracker // nil when no route polls the LIB
	dispatcher *dispatch.Dispatcher
	handler    http.Handler  // JSON-RPC and Connect behind CORS
	quota      *quota.Policy // nil when quotas are off (quota_wiring.go)
	// streamHooks are the hooks of the calls a stream client makes itself
	// (a broadcast): the token policy and the quotas, as a typed call's.
	streamHooks *dispatch.Hooks
	upstream    *upstreamObserver
	loaded      time.Time
	cancel      context.CancelFunc // stops the prober and LIB polling; nil until started
}

// newGeneration builds the generation of cfg. prev, when not nil, is the
// generation it replaces: the new LIB tracker starts from what prev knew.
func (g *Gateway) newGeneration(cfg *config.Config, prev *generation) (*generation, error) {
	r, err := router.New(cfg)
	if err != nil {
		return nil, err
	}
	gen := &generation{cfg: cfg, router: r, loaded: time.Now(), upstream: g.newUpstreamObserver()}
	limits := cfg.Limits.WithDefaults()
	popts := backend.DefaultOptions()
	popts.MaxConnsPerBackend = cfg.Settings.MiddlewareConnectionThreads
	popts.MaxResponseBytes = limits.MaxResponseBytes
	popts.FailThreshold = cfg.Settings.NodeFailThreshold
	popts.MaxLagBlocks = cfg.Settings.NodeMaxLagBlocks
	popts.MaxHeadAge = cfg.Settings.NodeMaxHeadAge
	popts.MaxSyncAge = cfg.Settings.NodeMaxSyncAge
	popts.WSConnsPerNode = cfg.Settings.WSConnsPerNode
	popts.Observer = gen.upstream
	if gen.pool, err = backend.NewNodes(cfg.BackendNodes(), popts, g.log); err != nil {
		return nil, fmt.Errorf("backend pool: %w", err)
	}
	g.ops.cordons.apply(cfg, gen.pool, g.log) // admin_nodes.go: before the pool takes a call
	if call, err := r.Parse(libProbeMethod, nil); err == nil {
		if rt, err := r.Resolve(call); err == nil {
			gen.lib = backend.NewLIBTracker(gen.pool, rt.Backend, cfg.Settings.LIBPollInterval, g.log)
		}
	}
	if gen.lib == nil {
		g.log.Warn("no route for " + libProbeMethod + ": every block counts as reversible")
	} else if prev != nil && prev.lib != nil {
		carryLIB(prev.lib, gen.lib)
	}
	if !g.checkOnly { // Check reads nothing from Redis
		if _, err := dispatch.ShareLIB(context.Background(), g.shared, gen.lib); err != nil {
			g.log.Warn("could not read the shared last irreversible block from Redis", "err", err)
		}
	}
	gen.dispatcher = dispatch.New(r, g.cache, gen.pool, gen.lib, g.log, dispatch.WithSharedCache(g.shared),
		dispatch.WithUpstreamBatching(limits.MaxUpstreamBatchSize, limits.NoUpstreamBatch),
		dispatch.WithBlockWait(blockWaiter{g}, &g.blockWaits)) // blockwait_wiring.go
	if gen.quota, err = g.newQuotaPolicy(gen); err != nil { // quota_wiring.go
		gen.pool.Close()
		return nil, err
	}
	gen.handler = g.buildHandler(gen)
	return gen, nil
}

// carryLIB offers a new tracker the LIB an old one knew; it counts once the
// new generation's nodes agree on a head at least as high (Seed).
func carryLIB(from, to *backend.LIBTracker) {
	to.Seed(from.LastIrreversible())
}

// buildHandler assembles the handler tree of one generation: JSON-RPC at
// POST / and health at GET /, the Protobuf services (Connect, gRPC and
// gRPC-Web, with gRPC health and reflection) under their service paths, all
// behind CORS for browsers.
func (g *Gateway) buildHandler(gen *generation) http.Handler {
	cfg := gen.cfg
	limits := cfg.Limits.WithDefaults()
	obs := &callObserver{metrics: g.metrics, ops: g.ops.forConfig(cfg)}
	jsonrpcHooks, connectHooks := g.hooks(gen, obs) // observe_calls.go
	gen.streamHooks = connectHooks
	mux := http.NewServeMux()
	// The call policy's token check (auth_wiring.go) outside the quotas'
	// (quota_wiring.go), which reuse the token it verified.
	jsonrpcHandler := g.authHandler(quotaHTTP(gen.quota, jsonrpchttp.NewHandler(gen.dispatcher, jsonrpchttp.HandlerOptions{
		Hooks:            jsonrpcHooks,
		Version:          g.opts.Version,
		OperatorMessage:  cfg.Settings.OperatorMessage,
		MaxBatch:         limits.MaxBatchSize,
		MaxBodyBytes:     limits.MaxBodyBytes,
		MaxDepth:         limits.MaxJSONDepth,
		Logger:           g.log,
		BatchStarted:     batchStarted,
		Nodes:            nodeHealth(gen.pool),
		CompressMinBytes: cfg.Settings.CompressMinBytes,
	})))
	mux.Handle("/", jsonrpcHandler)
	if g.opts.UI {
		mux.Handle("GET /ui/", http.StripPrefix("/ui", web.Handler()))
	}
	if path, on := cfg.Ops.Metrics(); on {
		// Asked for on the public port: behind the guard, like any call.
		mux.Handle("GET "+path, g.metrics.Handler())
	}
	interceptors, services := g.mountAuth(mux)                     // auth_wiring.go: nothing when auth is off
	services = append(services, g.mountStreams(mux, gen.quota)...) // stream_wiring.go: nothing when off
	connectOpts := []connect.HandlerOption{}
	if g.tracing != nil {
		connectOpts = append(connectOpts, g.tracing.handlerOption())
	}
	if qi := quotaInterceptor(gen.quota); qi != nil { // quota_wiring.go: after the call policy's
		interceptors = append(interceptors, qi)
	}
	if len(interceptors) > 0 {
		connectOpts = append(connectOpts, connect.WithInterceptors(interceptors...))
	}
	g.api.Mount(mux, gen.dispatcher, server.Options{
		Logger: g.log, ReadMaxBytes: limits.MaxBodyBytes, Hooks: connectHooks,
		HandlerOptions: connectOpts, Services: services, Drift: obs,
	})
	// The guard refuses at once what is over max_in_flight, a client's
	// share of it or a client's rate, before any work, and reads a body in
	// full (within body_timeout) before it takes a place; CORS stays
	// outside it so that browsers can read the refusals.
	guarded := guard.New(newJSONRPCFirst(jsonrpcHandler, mux), guard.Options{
		MaxInFlight:          limits.MaxInFlight,
		MaxInFlightPerClient: limits.MaxInFlightPerClient,
		MaxBodyBytes:         limits.MaxBodyBytes,
		BodyTimeout:          limits.BodyTimeout,
		StreamPaths:          streamPaths,
		RatePerSecond:        limits.RateLimitPerSecond,
		Burst:                limits.RateLimitBurst,
		ClientIP: clientip.Options{
			TrustedProxyHeader: limits.TrustedProxyHeader,
			TrustedProxies:     limits.TrustedProxies,
		},
		Logger: g.log,
	})
	origins := g.opts.CORSAllowedOrigins
	if len(origins) == 0 {
		if cfg.Settings.CORSOff {
			// Drone's add_cors_headers: false: a proxy in front adds them.
			return guarded
		}
		origins = cfg.Settings.CORSAllowedOrigins
	}
	return withCORS(guarded, origins)
}

// jsonrpcFirst serves POST / (JSON-RPC, the hot path) with jsonrpc
// directly, and every other request through mux: the mux's pattern matching
// is skipped on the requests that matter most. newJSONRPCFirst builds it only
// while mux itself sends POST / to its "/" pattern (jsonrpc's own), so the
// answer is the mux's.
type jsonrpcFirst struct {
	jsonrpc http.Handler
	mux     *http.ServeMux
}

// newJSONRPCFirst is jsonrpcFirst, or mux alone when a pattern of mux
// other than "/" would take POST / (a later "POST /{$}", say).
func newJSONRPCFirst(jsonrpc http.Handler, mux *http.ServeMux) http.Handler {
	if _, pattern := mux.Handler(&http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/"}}); pattern != "/" {
		return mux
	}
	return jsonrpcFirst{jsonrpc: jsonrpc, mux: mux}
}

func (h jsonrpcFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/" {
		h.jsonrpc.ServeHTTP(w, r)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// streamPaths are the streaming procedures of the main listener, whose
// request bodies the Guard cannot read ahead: gRPC server reflection is a
// bidirectional stream. Every other procedure is unary (health's Watch,
// a server stream, sends its one request message before any answer).
var streamPaths = []string{
	"/" + grpcreflect.ReflectV1ServiceName + "/",
	"/" + grpcreflect.ReflectV1AlphaServiceName + "/",
}

// nodeHealth returns the node list GET / shows: every node of every
// backend, by name and position (never by address).
func nodeHealth(p *backend.Pool) func() []jsonrpchttp.NodeHealth {
	return func() []jsonrpchttp.NodeHealth {
		nodes := p.Nodes()
		now := time.Now()
		out := make([]jsonrpchttp.NodeHealth, len(nodes))
		for i, n := range nodes {
			out[i] = jsonrpchttp.NodeHealth{
				Backend: n.Backend, Node: n.Node, Up: n.Up, InService: n.InService(), Kind: string(n.Kind),
				Lagging: n.Lagging, Head: n.Head, LIB: n.LIB, Reason: n.Reason,
			}
			if !n.HeadTime.IsZero() {
				t, age := n.HeadTime, now.Sub(n.HeadTime).Round(time.Second).Seconds()
				out[i].HeadTime, out[i].HeadAge = &t, &age
			}
		}
		return out
	}
}

// start runs the generation's background work until ctx ends or the
// generation is stopped.
func (gen *generation) start(ctx context.Context) {
	ctx, gen.cancel = context.WithCancel(ctx)
	gen.pool.Start(ctx)
	if gen.lib != nil {
		go gen.lib.Run(ctx)
	}
}

// stop ends the background work and closes idle upstream connections.
// Calls in flight finish.
func (gen *generation) stop() {
	if gen.cancel != nil {
		gen.cancel()
	}
	gen.pool.Close()
}

// retire stops a generation that a reload replaced, and closes its
// upstream connections once the calls in flight on them are done (or the
// gateway closes).
func (g *Gateway) retire(gen *generation) {
	gen.stop()
	g.retired.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for gen.upstream.inFlight.Load() > 0 {
			select {
			case <-g.closed:
				gen.pool.Close()
				return
			case <-tick.C:
			}
		}
		gen.pool.Close()
	})
}
