package server

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/metrics"
)

// HeaderRequestID carries the request id: taken from the client's request
// when valid, generated otherwise, returned in the response and sent to
// the backends.
const HeaderRequestID = "X-Request-Id"

// maxRequestIDLen bounds a client's request id.
const maxRequestIDLen = 128

// serveHTTP is the main listener's root handler: metrics, then for every
// other request a request id, the in-flight gauge, a server span for
// JSON-RPC (Connect has otelconnect's) and the access log around the
// current generation's handler tree.
func (g *Gateway) serveHTTP(w http.ResponseWriter, r *http.Request) {
	gen := g.gen.Load()
	ops := gen.cfg.Ops
	if path, on := ops.Metrics(); on && r.URL.Path == path && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		g.metrics.Handler().ServeHTTP(w, r)
		return
	}
	start := time.Now()
	frontend := frontendOf(r)
	id := requestID(r.Header.Get(HeaderRequestID))
	w.Header().Set(HeaderRequestID, id)
	info := &callInfo{frontend: frontend}
	if frontend != metrics.FrontendJSONRPC {
		info.method = r.URL.Path // the Connect procedure
	}
	ctx := withCallInfo(r.Context(), info)
	ctx = backend.WithHeader(ctx, HeaderRequestID, id)
	var span trace.Span
	if g.tracing != nil && frontend == metrics.FrontendJSONRPC {
		ctx, span = g.tracing.startJSONRPC(ctx, r)
	}
	var counter *batchCounter
	if frontend == metrics.FrontendJSONRPC && r.Method == http.MethodPost && r.Body != nil {
		counter = &batchCounter{ReadCloser: r.Body}
		r.Body = counter
	}
	done := g.metrics.HTTPStarted(frontend)
	sw := &statusWriter{ResponseWriter: w}
	gen.handler.ServeHTTP(sw, r.WithContext(ctx))
	elapsed := time.Since(start)
	done(elapsed, sw.status())
	if counter != nil && counter.batch {
		info.setBatch(counter.elems)
	}
	if span != nil {
		g.tracing.endJSONRPC(span, info, sw.status())
	}
	if !ops.AccessLogOff && g.log.Enabled(ctx, slog.LevelInfo) {
		g.accessLog(r, id, info, sw, elapsed)
	}
}

// frontendOf tells which front end a request is for: JSON-RPC at /, else
// the Protobuf services by content type.
func frontendOf(r *http.Request) string {
	if r.URL.Path == "/" {
		return metrics.FrontendJSONRPC
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/grpc-web"):
		return metrics.FrontendGRPCWeb
	case strings.HasPrefix(ct, "application/grpc"):
		return metrics.FrontendGRPC
	}
	return metrics.FrontendConnect
}

// requestID returns the client's request id when it is 1 to 128 printable
// ASCII characters, otherwise a new random one (16 bytes, hex).
func requestID(client string) string {
	if validRequestID(client) {
		return client
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

func validRequestID(s string) bool {
	if len(s) == 0 || len(s) > maxRequestIDLen || strings.TrimSpace(s) == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// accessLog writes one line about a finished request.
func (g *Gateway) accessLog(r *http.Request, id string, info *callInfo, sw *statusWriter, elapsed time.Duration) {
	s := info.snapshot()
	method := s.method
	if s.batch >= 0 {
		method = "batch(" + strconv.Itoa(s.batch) + ")"
	}
	attrs := []slog.Attr{
		slog.String("request_id", id),
		slog.String("client_ip", jsonrpc.ClientAddr(r, g.clientIPOptions()).String()),
		slog.String("frontend", info.frontend),
		slog.String("http_method", r.Method),
		slog.String("method", method),
		slog.String("route", s.route),
		slog.String("cache", s.cache),
		slog.String("outcome", s.outcome),
		slog.String("backend", strings.Join(s.backends, ",")),
		slog.Int("upstream_calls", s.upstreamCalls),
		slog.Float64("upstream_ms", ms(s.upstream)),
		slog.Float64("duration_ms", ms(elapsed)),
		slog.Int("status", sw.status()),
		slog.Int64("bytes", sw.bytes),
	}
	g.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
}

// clientIPOptions tell how the access log finds a client's address: as the
// rate limiter does (limits.trusted_proxy_header, limits.trusted_proxies).
func (g *Gateway) clientIPOptions() jsonrpc.ClientIPOptions {
	l := g.Config().Limits
	return jsonrpc.ClientIPOptions{TrustedProxyHeader: l.TrustedProxyHeader, TrustedProxies: l.TrustedProxies}
}

// ms renders a duration in milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// statusWriter records the status and size of a response. It keeps the
// wrapped writer's Flush (gRPC and streaming need it) and lets
// http.ResponseController reach the rest through Unwrap.
type statusWriter struct {
	http.ResponseWriter
	code  int
	bytes int64
}

// WriteHeader records the status.
func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write counts the body bytes.
func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush sends buffered data to the client.
func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status is the response's status (200 when the handler wrote nothing).
func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// batchCounter counts the top-level elements of a JSON-RPC batch body as
// the handler reads it, for the access log's "batch(n)", without parsing
// it twice: it tracks strings and nesting and stops looking at the bytes
// once it knows the body is not a batch or the batch has ended.
type batchCounter struct {
	io.ReadCloser
	started, batch, done bool
	inString, escaped    bool
	pending              bool // an element started since the last comma
	depth                int
	elems                int
}

// Read reads from the body and counts.
func (c *batchCounter) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if !c.done {
		c.scan(p[:n])
	}
	return n, err
}

func (c *batchCounter) scan(b []byte) {
	for _, ch := range b {
		if c.inString {
			switch {
			case c.escaped:
				c.escaped = false
			case ch == '\\':
				c.escaped = true
			case ch == '"':
				c.inString = false
			}
			continue
		}
		if ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' {
			continue
		}
		if !c.started {
			c.started = true
			if ch != '[' {
				c.done = true
				return
			}
			c.batch, c.depth = true, 1
			continue
		}
		if c.depth == 1 && ch != ',' && ch != ']' && !c.pending {
			c.pending = true
			c.elems++
		}
		switch ch {
		case '"':
			c.inString = true
		case '[', '{':
			c.depth++
		case ']', '}':
			c.depth--
			if c.depth == 0 {
				c.done = true
				return
			}
		case ',':
			if c.depth == 1 {
				c.pending = false
			}
		}
	}
}
