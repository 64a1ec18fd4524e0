package gateway

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/hivegate/hivegate/config"
)

// Timeouts bound how long a client may hold a connection.
type Timeouts struct {
	ReadHeader time.Duration // default 10s
	Read       time.Duration // whole request, default 60s
	Write      time.Duration // whole response, default 120s
	Idle       time.Duration // keep-alive idle, default 120s
	// MaxHeaderBytes bounds request headers, default 64 KiB.
	MaxHeaderBytes int
	// MaxConcurrentStreams bounds the requests one HTTP/2 connection may
	// have open at once, default 100 (limits.max_concurrent_streams).
	MaxConcurrentStreams int
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
	if t.MaxConcurrentStreams <= 0 {
		t.MaxConcurrentStreams = config.DefaultMaxConcurrentStreams
	}
	return t
}

// NewHTTPServer returns an http.Server serving h over HTTP/1.1 and
// unencrypted HTTP/2 (h2c) on one port, which gRPC clients need. An HTTP/2
// connection may open at most t.MaxConcurrentStreams streams at once (the
// Guard then bounds what one client address and everybody may have in
// flight). Its own errors (a failed TLS handshake, a handler's panic) go
// to logger at level warn; nil discards them.
func NewHTTPServer(addr string, h http.Handler, t Timeouts, logger *slog.Logger) *http.Server {
	t = t.withDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
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
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: t.MaxConcurrentStreams},
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// TimeoutsFromLimits returns the server timeouts and connection limits a
// config's limits section sets (limits.read_header_timeout, read_timeout,
// write_timeout, idle_timeout, max_header_bytes, max_concurrent_streams).
func TimeoutsFromLimits(l config.Limits) Timeouts {
	l = l.WithDefaults()
	return Timeouts{
		ReadHeader:           l.ReadHeaderTimeout,
		Read:                 l.ReadTimeout,
		Write:                l.WriteTimeout,
		Idle:                 l.IdleTimeout,
		MaxHeaderBytes:       l.MaxHeaderBytes,
		MaxConcurrentStreams: l.MaxConcurrentStreams,
	}
}
