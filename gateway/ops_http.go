package gateway

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/metrics"
)

// HeaderRequestID carries the request id: taken from the client's request
// when valid, generated otherwise, returned in the response and sent to
// the backends.
const HeaderRequestID = "X-Request-Id"

// maxRequestIDLen bounds a client's request id.
const maxRequestIDLen = 128

// serveHTTP is the main listener's root handler: for every request a
// request id, the in-flight gauge, a server span for
// JSON-RPC (Connect has otelconnect's) and the access log around the
// current generation's handler tree.
//
// It runs on every request, so it allocates little: one exchange (status
// writer, callInfo, its context, the request id's header value and the
// request passed on together) and a generated request id. The request id
// reaches the backends through the upstream observer, only when a call
// goes upstream (observe_upstream.go).
func (g *Gateway) serveHTTP(w http.ResponseWriter, r *http.Request) {
	gen := g.gen.Load()
	ops := gen.cfg.Ops
	start := time.Now()
	x := &exchange{sw: statusWriter{ResponseWriter: w}}
	info := &x.info
	info.frontend = frontendOf(r)
	info.requestID = requestID(r.Header.Get(HeaderRequestID))
	x.idValue[0] = info.requestID
	w.Header()[HeaderRequestID] = x.idValue[:]
	if info.frontend != metrics.FrontendJSONRPC {
		info.method = r.URL.Path // the Connect procedure
	}
	x.ctx.init(r.Context(), info)
	var ctx context.Context = &x.ctx
	var span trace.Span
	if g.tracing != nil && info.frontend == metrics.FrontendJSONRPC {
		ctx, span = g.tracing.startJSONRPC(ctx, r)
	}
	inFlight := g.metrics.HTTPStarted(info.frontend)
	x.req = *r.WithContext(ctx) // the copy is made on the stack, then into x
	gen.handler.ServeHTTP(&x.sw, &x.req)
	elapsed := time.Since(start)
	inFlight.Done(elapsed, x.sw.status())
	if span != nil {
		g.tracing.endJSONRPC(span, info, x.sw.status())
	}
	if !ops.AccessLogOff && g.log.Enabled(ctx, slog.LevelInfo) {
		g.accessLog(r, info, &x.sw, elapsed)
	}
}

// exchange is the operations layer's state of one HTTP request, allocated
// once: the status writer, the call's record, the context that carries
// that record, the X-Request-Id header's value and the request as passed
// on.
type exchange struct {
	sw   statusWriter
	info callInfo
	ctx  infoContext
	// idValue is the response header's value: length and capacity 1, so
	// that an Add to that header appends to a copy.
	idValue [1]string
	req     http.Request
}

// batchStarted records the size of a JSON-RPC batch in the request's
// callInfo (jsonrpchttp.HandlerOptions.BatchStarted).
func batchStarted(ctx context.Context, n int) {
	if info := callInfoFrom(ctx); info != nil {
		info.setBatch(n)
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
// ASCII characters, otherwise a new random one: 128 bits from the runtime's
// per-thread ChaCha8 generator, in hex. That is unpredictable and, for an
// id, unique enough, without crypto/rand's system call on every request.
func requestID(client string) string {
	if validRequestID(client) {
		return client
	}
	var raw [16]byte
	binary.LittleEndian.PutUint64(raw[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(raw[8:], rand.Uint64())
	var b [32]byte
	hex.Encode(b[:], raw[:])
	return string(b[:])
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
func (g *Gateway) accessLog(r *http.Request, info *callInfo, sw *statusWriter, elapsed time.Duration) {
	s := info.snapshot()
	method := s.method
	if s.batch >= 0 {
		method = "batch(" + strconv.Itoa(s.batch) + ")"
	}
	attrs := []slog.Attr{
		slog.String("request_id", info.requestID),
		slog.String("client_ip", clientip.Addr(r, g.clientIPOptions()).String()),
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
	if s.quotaSubject != "" {
		// Who the quota counted the request against: address, or key or
		// app with its configured name (never the key or an address).
		attrs = append(attrs, slog.String("quota_subject", s.quotaSubject))
		if s.quotaKey != "" {
			attrs = append(attrs, slog.String("quota_key", s.quotaKey))
		}
	}
	g.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
}

// clientIPOptions tell how the access log finds a client's address: as the
// rate limiter does (limits.trusted_proxy_header, limits.trusted_proxies).
func (g *Gateway) clientIPOptions() clientip.Options {
	l := g.Config().Limits
	return clientip.Options{TrustedProxyHeader: l.TrustedProxyHeader, TrustedProxies: l.TrustedProxies}
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
