package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/logval"
)

// shutdownGrace bounds how long in-flight requests may finish after SIGTERM.
const shutdownGrace = 20 * time.Second

func serveCmd(ctx context.Context, args []string, stderr io.Writer) error {
	return serveCmdWith(ctx, args, stderr, serveOptions{})
}

// serveCmdWith is `hivegate serve` with options the command line does not
// set (tests give defaultAdminListen).
func serveCmdWith(ctx context.Context, args []string, stderr io.Writer, o serveOptions) error {
	fs := newFlagSet("serve", "serve [flags]", stderr)
	file := fs.String("config", "", "config file (.yaml modern or .json legacy); default: the file "+configEnv+" names if it exists (the container image: /config.yaml), else the embedded default")
	nodeURL := fs.String("node-url", "", "node backend URL for the embedded default (or "+config.NodeURLEnv+")")
	listen := fs.String("listen", "", "HOST:PORT to listen on; overrides the config's hostname and port")
	adminListen := fs.String("admin-listen", config.DefaultAdminListen, `HOST:PORT of the admin listener (metrics, /admin/*), "" for none; overrides hivegate.admin_listen. Unless given here or in the config, a busy default address only warns`)
	logFormat := fs.String("log-format", "text", "log format: text or json")
	ui := fs.Bool("ui", false, "serve the browser API explorer (every typed RPC over Connect or gRPC-Web) at /ui/")
	if err := fs.Parse(args); err != nil {
		return err
	}
	adminSet := false
	fs.Visit(func(f *flag.Flag) { adminSet = adminSet || f.Name == "admin-listen" })
	logger, err := newLogger(stderr, *logFormat)
	if err != nil {
		return err
	}
	// load reads the config, now and on every reload, with the command
	// line's overrides.
	load := func() (*config.Config, error) {
		cfg, err := loadConfig(*file, *nodeURL)
		if err != nil {
			return nil, err
		}
		if *listen != "" {
			if err := applyListen(cfg, *listen); err != nil {
				return nil, err
			}
		}
		if adminSet {
			if err := cfg.Ops.SetAdminListen(*adminListen); err != nil {
				return nil, fmt.Errorf("--admin-listen: %w", err)
			}
		}
		return cfg, nil
	}
	cfg, err := load()
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		logger.Warn("config", "warning", w)
	}
	if limit, gcPercent := cache.ApplyMemoryLimit(cfg.Settings.CacheMaxCapacity); limit > 0 {
		logger.Info("soft memory limit set from cache_max_capacity (GOMEMLIMIT overrides it)", "bytes", limit)
		if gcPercent > 0 {
			logger.Info("garbage collector percentage set for the memory limit (GOGC overrides it)", "gc_percent", gcPercent)
		}
	}
	// SIGHUP reloads the config.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reload := make(chan struct{}, 1)
	go forwardSignals(ctx, hup, reload)
	o.load, o.reload, o.ui = load, reload, *ui
	return serveWith(ctx, cfg, logger, o)
}

// forwardSignals turns each signal into a reload request until ctx ends.
// Requests that arrive while one is pending are merged into it.
func forwardSignals(ctx context.Context, sig <-chan os.Signal, reload chan<- struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sig:
			select {
			case reload <- struct{}{}:
			default:
			}
		}
	}
}

// applyListen overrides the config's hostname and port with HOST:PORT.
func applyListen(cfg *config.Config, listen string) error {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT", listen)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("--listen %q: bad port", listen)
	}
	cfg.Settings.Hostname, cfg.Settings.Port = host, p
	return nil
}

// newLogger returns the process's logger. It also becomes slog's default,
// so that what libraries write with the standard log package (net/http's
// "Unsolicited response received on idle HTTP channel" about a backend
// that wrote more than it was asked) comes out in the same format.
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	levels := rustLogLevels(os.Getenv(rustLogEnv)) // Drone's RUST_LOG: loglevel.go
	var logger *slog.Logger
	switch format {
	case "text":
		logger = slog.New(levels.wrap(slog.NewTextHandler(w, levels.options())))
	case "json":
		logger = slog.New(levels.wrap(slog.NewJSONHandler(w, levels.options())))
	default:
		return nil, fmt.Errorf("--log-format %q: want text or json", format)
	}
	levels.warnIgnored(logger)        // before logval wraps the level filter it looks through
	logger = logval.NewLogger(logger) // net/http's and every library's lines are bounded too
	slog.SetDefault(logger)
	return logger, nil
}

// serveOptions are what serveWith needs beyond the config.
type serveOptions struct {
	// ready, when not nil, receives the main listener's address once it
	// accepts; adminReady the admin listener's (hivegate.admin_listen).
	ready, adminReady func(addr string)
	// load reads the config again on reload; nil reloads cfg.Source.
	load func() (*config.Config, error)
	// reload asks for a config reload (SIGHUP); nil: none.
	reload <-chan struct{}
	// ui serves the browser page at /ui/ (--ui).
	ui bool
	// defaultAdminListen, when set, replaces config.DefaultAdminListen as
	// the admin address of a config that gives none (tests: an address
	// they hold, not 9090, which may or may not be free).
	defaultAdminListen string
	// demoAuthority is auth.Options.DemoAuthority: set by demoCmd only.
	demoAuthority func(ctx context.Context, user, account string) error
}

// serveWith runs the gateway, its admin listener when configured and its
// config reloads until ctx ends, then drains in-flight requests.
func serveWith(ctx context.Context, cfg *config.Config, logger *slog.Logger, o serveOptions) error {
	warnOldToolchain(logger, runtimeVersion())
	gw, err := gateway.New(cfg, gateway.Options{Version: version, Logger: logger, ConfigLoader: o.load, UI: o.ui,
		AuthDemoAuthority: o.demoAuthority})
	if err != nil {
		return err
	}
	defer gw.Close()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	gw.Start(runCtx)

	timeouts := gateway.TimeoutsFromLimits(cfg.Limits)
	var servers []*http.Server
	errc := make(chan error, 2)
	start := func(addr string, h http.Handler, what string, ready func(string)) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		srv := gateway.NewHTTPServer(addr, h, timeouts, logger.With("listener", what))
		servers = append(servers, srv)
		logger.Info("hivegate listening", "listener", what, "addr", ln.Addr().String(), "config", cfg.Source, "version", version)
		if ready != nil {
			ready(ln.Addr().String())
		}
		go func() {
			errc <- srv.Serve(gateway.LimitClientConns(gateway.KeepAccepting(ln, logger), cfg.Limits, logger))
		}()
		return nil
	}
	if err := startAdmin(cfg.Ops, o.defaultAdminListen, logger, func(addr string) error {
		return start(addr, gw.AdminHandler(), "admin", o.adminReady)
	}); err != nil {
		return err
	}
	if err := start(cfg.Listen(), gw.Handler(), "main", o.ready); err != nil {
		return errors.Join(err, shutdownAll(servers))
	}
	for done := false; !done; {
		select {
		case err := <-errc:
			return errors.Join(err, shutdownAll(servers))
		case <-o.reload:
			// The result is logged by the gateway; the running config stays
			// in use when the new one is rejected.
			_, _ = gw.ReloadFromSource()
		case <-ctx.Done():
			done = true
		}
	}
	logger.Info("shutting down: draining in-flight requests", "grace", shutdownGrace)
	if err := shutdownAll(servers); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	for range servers {
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	logger.Info("stopped")
	return nil
}

// startAdmin starts the admin listener with start, at ops.AdminListen (or
// at defaultAddr when set and the config gave no address). An address
// given explicitly (hivegate.admin_listen, --admin-listen) that cannot be
// bound is an error; the default one (127.0.0.1:9090, Prometheus' own
// port) only warns and leaves the admin listener off, so that a Drone or
// jussi config starts wherever Drone or jussi would.
func startAdmin(ops config.Ops, defaultAddr string, logger *slog.Logger, start func(addr string) error) error {
	addr := ops.AdminListen
	if !ops.AdminListenSet && defaultAddr != "" && addr != "" {
		addr = defaultAddr
	}
	if addr == "" {
		return nil
	}
	err := start(addr)
	if err == nil {
		return nil
	}
	if ops.AdminListenSet {
		return fmt.Errorf("%w (the address of hivegate.admin_listen or --admin-listen)", err)
	}
	logger.Warn("admin listener off: its default address cannot be bound; metrics and /admin/* are not served. "+
		`Choose another address with hivegate.admin_listen or serve --admin-listen HOST:PORT, or turn it off with --admin-listen ""`,
		"addr", addr, "err", err)
	return nil
}

// shutdownAll stops the servers, letting in-flight requests finish within
// shutdownGrace.
func shutdownAll(servers []*http.Server) error {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	var errs []error
	for _, srv := range servers {
		errs = append(errs, srv.Shutdown(sctx))
	}
	return errors.Join(errs...)
}
