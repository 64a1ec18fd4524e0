package faults

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/guard"
	"github.com/hivegate/hivegate/jsonrpchttp"
	"github.com/hivegate/hivegate/router"
)

// GatewayOptions tune a Gateway beyond its config.
type GatewayOptions struct {
	// HealthInterval is the backend prober's period; 0 turns it off.
	HealthInterval time.Duration
	// FailThreshold is the number of consecutive failures that mark a
	// backend down; 0 means the backend package's default.
	FailThreshold int
	// Logger receives the gateway's logs; nil discards them.
	Logger *slog.Logger
}

// Gateway is hivegate's JSON-RPC path assembled in-process from a config:
// router, cache, backend pool, dispatcher, JSON-RPC handler and Guard,
// wired the way the server package wires them (without the Protobuf
// services). Limits come from cfg.Limits (with defaults).
type Gateway struct {
	Config     *config.Config
	Pool       *backend.Pool
	Cache      *cache.Cache // nil when cache_max_capacity is 0
	Dispatcher *dispatch.Dispatcher
	Guard      *guard.Guard
	// Handler serves POST / and GET /: the Guard around the JSON-RPC handler.
	Handler http.Handler
}

// NewGateway assembles a Gateway. Call Start to run its prober and Close to
// release its connections.
func NewGateway(cfg *config.Config, opts GatewayOptions) (*Gateway, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	r, err := router.New(cfg)
	if err != nil {
		return nil, err
	}
	limits := cfg.Limits.WithDefaults()
	popts := backend.DefaultOptions()
	popts.MaxConnsPerBackend = cfg.Settings.MiddlewareConnectionThreads
	popts.MaxResponseBytes = limits.MaxResponseBytes
	popts.HealthInterval = opts.HealthInterval
	popts.FailThreshold = opts.FailThreshold
	pool, err := backend.New(cfg.BackendMap(), popts, logger)
	if err != nil {
		return nil, fmt.Errorf("backend pool: %w", err)
	}
	var c *cache.Cache
	if cfg.Settings.CacheMaxCapacity > 0 {
		c = cache.New(cfg.Settings.CacheMaxCapacity)
	}
	d := dispatch.New(r, c, pool, nil, logger, dispatch.WithUpstreamBatching(limits.MaxUpstreamBatchSize, limits.NoUpstreamBatch))
	h := jsonrpchttp.NewHandler(d, HandlerOptions(cfg, "faults", logger))
	g := guard.New(h, GuardOptions(limits, logger))
	return &Gateway{Config: cfg, Pool: pool, Cache: c, Dispatcher: d, Guard: g, Handler: g}, nil
}

// Start runs the backend prober until ctx ends.
func (g *Gateway) Start(ctx context.Context) { g.Pool.Start(ctx) }

// Close releases idle upstream connections.
func (g *Gateway) Close() { g.Pool.Close() }

// HandlerOptions maps a config to the JSON-RPC handler's options (the
// lines gateway.Gateway needs).
func HandlerOptions(cfg *config.Config, version string, logger *slog.Logger) jsonrpchttp.HandlerOptions {
	l := cfg.Limits.WithDefaults()
	return jsonrpchttp.HandlerOptions{
		Version:         version,
		OperatorMessage: cfg.Settings.OperatorMessage,
		MaxBatch:        l.MaxBatchSize,
		MaxBodyBytes:    l.MaxBodyBytes,
		MaxDepth:        l.MaxJSONDepth,
		Logger:          logger,
	}
}

// GuardOptions maps limits to the Guard's options.
func GuardOptions(l config.Limits, logger *slog.Logger) guard.Options {
	l = l.WithDefaults()
	return guard.Options{
		MaxInFlight:          l.MaxInFlight,
		MaxInFlightPerClient: l.MaxInFlightPerClient,
		MaxBodyBytes:         l.MaxBodyBytes,
		BodyTimeout:          l.BodyTimeout,
		RatePerSecond:        l.RateLimitPerSecond,
		Burst:                l.RateLimitBurst,
		ClientIP: clientip.Options{
			TrustedProxyHeader: l.TrustedProxyHeader,
			TrustedProxies:     l.TrustedProxies,
		},
		Logger: logger,
	}
}

// MainServer returns the http.Server cmd/hivegate runs on its main
// listener for h, with the connection limits of l.
func MainServer(h http.Handler, l config.Limits) *http.Server {
	return gateway.NewHTTPServer("", h, gateway.TimeoutsFromLimits(l), nil)
}
