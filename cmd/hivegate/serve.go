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
	"strconv"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/server"
)

// shutdownGrace bounds how long in-flight requests may finish after SIGTERM.
const shutdownGrace = 20 * time.Second

func serveCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	file := fs.String("config", "", "config file (.yaml modern or .json legacy); default: the embedded default")
	nodeURL := fs.String("node-url", "", "node backend URL for the embedded default (or "+config.NodeURLEnv+")")
	listen := fs.String("listen", "", "HOST:PORT to listen on; overrides the config's hostname and port")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger, err := newLogger(stderr, *logFormat)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(*file, *nodeURL)
	if err != nil {
		return err
	}
	if *listen != "" {
		if err := applyListen(cfg, *listen); err != nil {
			return err
		}
	}
	for _, w := range cfg.Warnings {
		logger.Warn("config", "warning", w)
	}
	return serve(ctx, cfg, logger, nil)
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

func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// serve runs the gateway until ctx ends, then drains in-flight requests.
// ready, when not nil, receives the bound address once the server accepts.
func serve(ctx context.Context, cfg *config.Config, logger *slog.Logger, ready func(addr string)) error {
	gw, err := server.NewGateway(cfg, server.Options{Version: version, Logger: logger})
	if err != nil {
		return err
	}
	defer gw.Close()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	gw.Start(runCtx)

	ln, err := net.Listen("tcp", cfg.Listen())
	if err != nil {
		return err
	}
	srv := server.NewHTTPServer(cfg.Listen(), gw.Handler(), server.TimeoutsFromLimits(cfg.Limits))
	logger.Info("hivegate listening", "addr", ln.Addr().String(), "config", cfg.Source, "version", version)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining in-flight requests", "grace", shutdownGrace)
	sctx, scancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}
