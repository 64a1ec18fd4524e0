package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"google.golang.org/protobuf/proto"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// Options configure a Gateway.
type Options struct {
	// Version is reported by GET /.
	Version string
	// Logger receives the gateway's logs; nil discards them.
	Logger *slog.Logger
	// CORSAllowedOrigins are the browser origins allowed to call hivegate
	// (JSON-RPC, Connect, gRPC-Web), for example "https://app.example.com";
	// "*" or an empty list allows any origin.
	CORSAllowedOrigins []string
}

// Gateway is one running hivegate: its router, cache, backend pool,
// last-irreversible-block tracker, dispatcher and HTTP handler tree.
type Gateway struct {
	cfg        *config.Config
	pool       *backend.Pool
	lib        *backend.LIBTracker
	dispatcher *dispatch.Dispatcher
	handler    http.Handler
	log        *slog.Logger
	// typed are the typed RPCs by procedure ("/pkg.Service/Method").
	typed map[string]*typedMethod
}

// libProbeMethod is the call whose route names the node backend the last
// irreversible block is polled from.
const libProbeMethod = "database_api.get_dynamic_global_properties"

// NewGateway builds a gateway from a config.
func NewGateway(cfg *config.Config, opts Options) (*Gateway, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	r, err := router.New(cfg)
	if err != nil {
		return nil, err
	}
	popts := backend.DefaultOptions()
	popts.MaxConnsPerBackend = cfg.Settings.MiddlewareConnectionThreads
	popts.MaxResponseBytes = cfg.Limits.WithDefaults().MaxResponseBytes
	pool, err := backend.New(cfg.BackendMap(), popts, logger)
	if err != nil {
		return nil, err
	}
	var c *cache.Cache
	if cfg.Settings.CacheMaxCapacity > 0 {
		c = cache.New(cfg.Settings.CacheMaxCapacity)
	}
	var lib *backend.LIBTracker
	if call, err := r.Parse(libProbeMethod, nil); err == nil {
		if rt, err := r.Resolve(call); err == nil {
			lib = backend.NewLIBTracker(pool, rt.Backend, cfg.Settings.LIBPollInterval, logger)
		}
	}
	if lib == nil {
		logger.Warn("no route for " + libProbeMethod + ": every block counts as reversible")
	}
	// The optional shared Redis tier (cache.redis_url): nil without it.
	shared, err := dispatch.OpenSharedCache(cfg.Cache, logger)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if _, err := dispatch.ShareLIB(context.Background(), shared, lib); err != nil {
		logger.Warn("could not read the shared last irreversible block from Redis", "err", err)
	}
	d := dispatch.New(r, c, pool, lib, logger, dispatch.WithSharedCache(shared))
	g := &Gateway{cfg: cfg, pool: pool, lib: lib, dispatcher: d, log: logger}
	g.handler, err = g.buildHandler(opts)
	if err != nil {
		if shared != nil {
			_ = shared.Close()
		}
		pool.Close()
		return nil, fmt.Errorf("building handlers: %w", err)
	}
	return g, nil
}

// buildHandler assembles the one handler tree of the JSON-RPC port: JSON-RPC
// at POST / and health at GET /, the Protobuf services (Connect, gRPC and
// gRPC-Web, with gRPC health and reflection) under their service paths, all
// behind CORS for browsers.
func (g *Gateway) buildHandler(opts Options) (http.Handler, error) {
	limits := g.cfg.Limits.WithDefaults()
	mux := http.NewServeMux()
	mux.Handle("/", jsonrpc.NewHandler(g.dispatcher, jsonrpc.HandlerOptions{
		Version:         opts.Version,
		OperatorMessage: g.cfg.Settings.OperatorMessage,
		MaxBatch:        limits.MaxBatchSize,
		MaxBodyBytes:    limits.MaxBodyBytes,
		MaxDepth:        limits.MaxJSONDepth,
		Logger:          g.log,
	}))
	methods, err := planTypedAPI()
	if err != nil {
		return nil, err
	}
	g.typed = make(map[string]*typedMethod, len(methods))
	for _, tm := range methods {
		g.typed[tm.Procedure] = tm
	}
	mountConnect(mux, g.dispatcher, methods, g.log, limits.MaxBodyBytes)
	// The guard refuses at once what is over max_in_flight or a client's
	// rate, before any work; CORS stays outside so refusals reach browsers.
	guard := jsonrpc.NewGuard(mux, jsonrpc.GuardOptions{
		MaxInFlight:   limits.MaxInFlight,
		RatePerSecond: limits.RateLimitPerSecond,
		Burst:         limits.RateLimitBurst,
		ClientIP: jsonrpc.ClientIPOptions{
			TrustedProxyHeader: limits.TrustedProxyHeader,
			TrustedProxies:     limits.TrustedProxies,
		},
		Logger: g.log,
	})
	origins := opts.CORSAllowedOrigins
	if len(origins) == 0 {
		origins = g.cfg.Settings.CORSAllowedOrigins
	}
	return withCORS(guard, origins), nil
}

// TypedCall returns the JSON-RPC call a typed request becomes: the method
// and the params hivegate sends (and keys the cache with) after validating
// req and filling its defaults, exactly as the Connect handler of procedure
// ("/hive.database_api.v1.DatabaseApiService/ListAccounts") would. req is
// modified in place (defaults filled). A request the handler would reject
// returns the same *connect.Error (invalid_argument naming the field).
func (g *Gateway) TypedCall(procedure string, req proto.Message) (method string, params json.RawMessage, err error) {
	tm, ok := g.typed[procedure]
	if !ok {
		return "", nil, fmt.Errorf("no typed RPC %s", procedure)
	}
	if req.ProtoReflect().Descriptor() != tm.Request.Descriptor() {
		return "", nil, fmt.Errorf("%s takes %s, not %s", procedure, tm.Request.Descriptor().FullName(), req.ProtoReflect().Descriptor().FullName())
	}
	params, _, err = tm.prepare(req.ProtoReflect())
	if err != nil {
		return "", nil, err
	}
	return tm.JSONRPC, params, nil
}

// Start starts the background work (health probes, LIB polling) until ctx ends.
func (g *Gateway) Start(ctx context.Context) {
	g.pool.Start(ctx)
	if g.lib != nil {
		go g.lib.Run(ctx)
	}
}

// Handler is the gateway's HTTP handler tree.
func (g *Gateway) Handler() http.Handler { return g.handler }

// Dispatcher is the gateway's dispatcher.
func (g *Gateway) Dispatcher() *dispatch.Dispatcher { return g.dispatcher }

// Close releases idle upstream connections.
func (g *Gateway) Close() {
	if s := g.dispatcher.SharedCache(); s != nil {
		_ = s.Close()
	}
	g.pool.Close()
}
