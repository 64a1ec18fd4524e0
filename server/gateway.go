package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// Options configure a Gateway.
type Options struct {
	Version string
	Logger  *slog.Logger
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
	d := dispatch.New(r, c, pool, lib, logger)
	g := &Gateway{cfg: cfg, pool: pool, lib: lib, dispatcher: d, log: logger}
	g.handler, err = g.buildHandler(opts)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("building handlers: %w", err)
	}
	return g, nil
}

func (g *Gateway) buildHandler(opts Options) (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle("/", jsonrpc.NewHandler(g.dispatcher, jsonrpc.HandlerOptions{
		Version:         opts.Version,
		OperatorMessage: g.cfg.Settings.OperatorMessage,
		MaxBatch:        g.cfg.Limits.MaxBatchSize,
		Logger:          g.log,
	}))
	return mux, nil
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
func (g *Gateway) Close() { g.pool.Close() }
