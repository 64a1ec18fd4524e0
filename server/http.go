// Package server assembles hivegate's HTTP handler tree (JSON-RPC, health,
// Connect/gRPC/gRPC-Web) and its http.Server.
package server

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/h1serve"
)

// Timeouts bound how long a client may hold a connection.
type Timeouts struct {
	ReadHeader time.Duration // default 10s
	Read       time.Duration // whole request, default 60s
	Write      time.Duration // whole response, default 120s
	Idle       time.Duration // keep-alive idle, default 120s
	// MaxHeaderBytes bounds request headers, default 64 KiB.
	MaxHeaderBytes int
}

func (t Timeouts) withDefaults() Timeouts {
	if t.ReadHeader <= 0 {
		t.ReadHeader = 10 * time.Second
	}
	if t.Read <= 0 {
		t.Read = 60 * time.Second
	}
	if t.Write <= 0 {
		t.Write = 120 * time.Second
	}
	if t.Idle <= 0 {
		t.Idle = 120 * time.Second
	}
	if t.MaxHeaderBytes <= 0 {
		t.MaxHeaderBytes = 64 << 10
	}
	return t
}

// NewHTTPServer returns an http.Server serving h over HTTP/1.1 and
// unencrypted HTTP/2 (h2c) on one port, which gRPC clients need.
func NewHTTPServer(addr string, h http.Handler, t Timeouts) *http.Server {
	t = t.withDefaults()
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		Protocols:         &p,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    t.MaxHeaderBytes,
	}
}

// TimeoutsFromLimits returns the server timeouts and header limit a config's
// limits section sets (limits.read_header_timeout, read_timeout,
// write_timeout, idle_timeout, max_header_bytes).
func TimeoutsFromLimits(l config.Limits) Timeouts {
	l = l.WithDefaults()
	return Timeouts{
		ReadHeader:     l.ReadHeaderTimeout,
		Read:           l.ReadTimeout,
		Write:          l.WriteTimeout,
		Idle:           l.IdleTimeout,
		MaxHeaderBytes: l.MaxHeaderBytes,
	}
}

// MainServer serves the main listener: hivegate's HTTP/1.1 fast path for
// JSON-RPC posts (internal/h1serve) in front of the http.Server of
// NewHTTPServer, which serves everything else (Connect, gRPC and gRPC-Web,
// h2c, health, metrics, and any request the fast path does not take).
type MainServer struct {
	fast *h1serve.Server // nil: the http.Server alone (hivegate.http1_fast_path: false)
	srv  interface {     // fast, or the http.Server
		Serve(net.Listener) error
		Shutdown(context.Context) error
		Close() error
	}
}

// NewMainServer returns the main listener's server for h; fast turns the
// HTTP/1.1 fast path on (hivegate.http1_fast_path).
func NewMainServer(addr string, h http.Handler, t Timeouts, fast bool, logger *slog.Logger) *MainServer {
	hs := NewHTTPServer(addr, h, t)
	if !fast {
		return &MainServer{srv: hs}
	}
	t = t.withDefaults()
	f := h1serve.New(h, hs, h1serve.Options{
		Path:              "/",
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    t.MaxHeaderBytes,
		Logger:            logger,
	})
	return &MainServer{fast: f, srv: f}
}

// Serve accepts connections on ln until Shutdown or Close; it returns
// http.ErrServerClosed after them.
func (m *MainServer) Serve(ln net.Listener) error { return m.srv.Serve(ln) }

// Shutdown stops accepting and lets the requests being served finish
// within ctx.
func (m *MainServer) Shutdown(ctx context.Context) error { return m.srv.Shutdown(ctx) }

// Close closes the listener and every connection at once.
func (m *MainServer) Close() error { return m.srv.Close() }

// FastPathStats returns what the fast path served and handed over (zero
// when it is off).
func (m *MainServer) FastPathStats() h1serve.Stats {
	if m.fast == nil {
		return h1serve.Stats{}
	}
	return m.fast.Stats()
}
