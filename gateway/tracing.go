package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"connectrpc.com/connect"
	"connectrpc.com/otelconnect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/config"
)

// tracerName names hivegate's own spans' instrumentation scope.
const tracerName = "github.com/hivegate/hivegate/server"

// tracing is the gateway's OpenTelemetry tracing (hivegate.tracing): its
// own tracer provider (never the global one) exporting to an OTLP/HTTP
// collector. Spans: one per JSON-RPC HTTP request, one per Connect, gRPC or
// gRPC-Web call (otelconnect), and one per upstream call under either. A
// client's trace context is not trusted: the server span starts a new
// trace linked to the client's (as otelconnect does by default).
type tracing struct {
	tp          *sdktrace.TracerProvider
	tracer      trace.Tracer
	propagator  propagation.TextMapPropagator
	interceptor *otelconnect.Interceptor
}

// newTracing starts a tracer provider exporting to t.OTLPEndpoint. It does
// not connect: spans are sent in batches in the background.
func newTracing(t config.Tracing, version string) (*tracing, error) {
	u, err := url.Parse(t.OTLPEndpoint)
	if err != nil {
		return nil, fmt.Errorf("%s: hivegate.tracing.otlp_endpoint: %w", t.Pos, err)
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpoint(u.Host), otlptracehttp.WithURLPath("/v1/traces")}
	if u.Path != "" && u.Path != "/" {
		opts[1] = otlptracehttp.WithURLPath(u.Path)
	}
	if u.Scheme == "http" {
		opts = append(opts, otlptracehttp.WithInsecure())
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: hivegate.tracing: %w", t.Pos, err)
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", t.ServiceName),
		attribute.String("service.version", version),
	)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(t.SampleRatio))),
	)
	prop := propagation.TraceContext{}
	ic, err := otelconnect.NewInterceptor(
		otelconnect.WithTracerProvider(tp),
		otelconnect.WithPropagator(prop),
		otelconnect.WithoutMetrics(),
	)
	if err != nil {
		_ = tp.Shutdown(context.Background())
		return nil, fmt.Errorf("hivegate.tracing: %w", err)
	}
	return &tracing{tp: tp, tracer: tp.Tracer(tracerName), propagator: prop, interceptor: ic}, nil
}

// shutdown flushes the spans not yet exported and stops the provider.
func (t *tracing) shutdown(ctx context.Context) error { return t.tp.Shutdown(ctx) }

// handlerOption adds the Connect span interceptor to a handler.
func (t *tracing) handlerOption() connect.HandlerOption {
	return connect.WithInterceptors(t.interceptor)
}

// startJSONRPC starts the server span of a JSON-RPC HTTP request.
func (t *tracing) startJSONRPC(ctx context.Context, r *http.Request) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("http.request.method", r.Method),
			attribute.String("url.path", r.URL.Path),
			attribute.String("rpc.system", "jsonrpc"),
		),
	}
	if remote := trace.SpanContextFromContext(t.propagator.Extract(ctx, propagation.HeaderCarrier(r.Header))); remote.IsValid() {
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: remote}))
	}
	return t.tracer.Start(ctx, r.Method+" /", opts...)
}

// endJSONRPC ends a JSON-RPC server span with what the request became.
func (t *tracing) endJSONRPC(span trace.Span, info *callInfo, status int) {
	s := info.snapshot()
	attrs := []attribute.KeyValue{attribute.Int("http.response.status_code", status)}
	if s.batch >= 0 {
		attrs = append(attrs, attribute.Int("hivegate.batch_size", s.batch))
	} else {
		attrs = append(attrs,
			attribute.String("rpc.method", s.method),
			attribute.String("hivegate.route", s.route),
			attribute.String("hivegate.cache", s.cache),
			attribute.String("hivegate.outcome", s.outcome),
		)
	}
	span.SetAttributes(attrs...)
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}

// startUpstream starts the client span of an upstream call when ctx is
// part of a trace (background calls such as LIB polling are not traced),
// and puts its traceparent in the call's headers. end records the error
// kind ("" for success) and the attempts made.
func (t *tracing) startUpstream(ctx context.Context, backendName, method string) (context.Context, func(kind string, attempts int)) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, nil
	}
	ctx, span := t.tracer.Start(ctx, "upstream "+backendName,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("rpc.system", "jsonrpc"),
			attribute.String("rpc.method", method),
			attribute.String("hivegate.backend", backendName),
		))
	carrier := propagation.HeaderCarrier{}
	t.propagator.Inject(ctx, carrier)
	for _, k := range carrier.Keys() {
		ctx = backend.WithHeader(ctx, k, carrier.Get(k))
	}
	return ctx, func(kind string, attempts int) {
		span.SetAttributes(attribute.Int("hivegate.attempts", attempts))
		if kind != "" {
			span.SetAttributes(attribute.String("hivegate.error_kind", kind))
			span.SetStatus(codes.Error, kind)
		}
		span.End()
	}
}
