// Package metrics holds one gateway's Prometheus registry and instruments.
// Every label has a bounded set of values: front end names, urls config keys
// (never a client's raw method), backend names from the config, and the
// fixed outcome and error kind sets. Each Gateway has its own registry; no
// metric is registered globally.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every hivegate metric unless the config names another
// prefix (hivegate.metrics.namespace, Drone's metrics_namespace; NewIn).
const Namespace = "hivegate"

// The front end label values.
const (
	FrontendJSONRPC = "jsonrpc" // POST / (single and batch)
	FrontendConnect = "connect" // Connect protocol (JSON or binary)
	FrontendGRPC    = "grpc"    // gRPC over HTTP/2
	FrontendGRPCWeb = "grpcweb" // gRPC-Web
	FrontendOther   = "other"   // anything else on the main listener
)

// RouteNone is the route label of a call no urls key routed.
const RouteNone = "none"

// latencyBuckets span a cache hit (tens of microseconds) to a slow
// account history call (tens of seconds).
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// Metrics are one gateway's instruments and the registry that holds them.
// Safe for concurrent use.
type Metrics struct {
	reg              *prometheus.Registry
	requests         *prometheus.CounterVec
	requestDuration  *prometheus.HistogramVec
	httpInFlight     *prometheus.GaugeVec
	httpDuration     *prometheus.HistogramVec
	httpResponses    *prometheus.CounterVec
	upstreamDuration *prometheus.HistogramVec
	upstreamErrors   *prometheus.CounterVec
	upstreamRetries  *prometheus.CounterVec
	upstreamInFlight *prometheus.GaugeVec
	reloads          *prometheus.CounterVec
	lastReload       prometheus.Gauge
	unknownKeys      *prometheus.CounterVec
	series           seriesCache
}

// New returns the instruments of one gateway, registered with a new
// registry together with src (read at scrape time), the Go runtime and
// process collectors and hivegate_build_info{version}.
func New(version string, src Sources) *Metrics { return NewIn(Namespace, version, src) }

// NewIn is New with the metric names prefixed by ns instead of Namespace
// (the Go runtime's go_* and process_* metrics keep their names).
func NewIn(ns, version string, src Sources) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "requests_total",
			Help: "Calls served, by front end, matched urls config key (route) and outcome; each element of a JSON-RPC batch counts as one.",
		}, []string{"frontend", "route", "outcome"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Name: "request_duration_seconds",
			Help:    "Time to serve one call (cache, coalescing and upstream call included), by front end and route.",
			Buckets: latencyBuckets,
		}, []string{"frontend", "route"}),
		httpInFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Name: "http_requests_in_flight",
			Help: "HTTP requests being served on the main listener, by front end.",
		}, []string{"frontend"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Name: "http_request_duration_seconds",
			Help:    "Time from an HTTP request's arrival to the end of its response, by front end.",
			Buckets: latencyBuckets,
		}, []string{"frontend"}),
		httpResponses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "http_responses_total",
			Help: "HTTP responses of the main listener, by front end and status code (refusals before any call included: 413, 429, 503...).",
		}, []string{"frontend", "status"}),
		upstreamDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: ns, Name: "upstream_request_duration_seconds",
			Help:    "Time of one upstream call (all attempts and back-off), by backend.",
			Buckets: latencyBuckets,
		}, []string{"backend"}),
		upstreamErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "upstream_errors_total",
			Help: "Upstream calls that failed, by backend and error kind (backend_error: the backend answered a JSON-RPC error).",
		}, []string{"backend", "kind"}),
		upstreamRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "upstream_retries_total",
			Help: "Extra attempts made after a retryable failure, by backend.",
		}, []string{"backend"}),
		upstreamInFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: ns, Name: "upstream_requests_in_flight",
			Help: "Upstream calls in progress, by backend.",
		}, []string{"backend"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "config_reloads_total",
			Help: "Config reloads, by result (ok or error).",
		}, []string{"result"}),
		unknownKeys: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "typed_unknown_keys_total",
			Help: "Keys of a node's answer that the typed (Connect/gRPC) message does not know, by JSON-RPC method: the node's API changed. The first of each method and key is logged.",
		}, []string{"method"}),
		lastReload: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: ns, Name: "config_last_reload_success_timestamp_seconds",
			Help: "Unix time of the last successful config load (start or reload).",
		}),
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: ns, Name: "build_info",
		Help:        "Always 1; the version label is hivegate's version.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	build.Set(1)
	m.lastReload.SetToCurrentTime()
	m.reg.MustRegister(
		m.requests, m.requestDuration, m.httpInFlight, m.httpDuration, m.httpResponses,
		m.upstreamDuration, m.upstreamErrors, m.upstreamRetries, m.upstreamInFlight,
		m.reloads, m.lastReload, m.unknownKeys, build,
		newSourceCollector(ns, src),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// Registry returns the registry holding every metric of the gateway.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text (or OpenMetrics)
// format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveCall records one served call. route is the matched urls key (""
// for none) and outcome one of the Outcome values. The label sets are
// resolved once and kept (series.go), so a call costs a map lookup and two
// atomic updates.
func (m *Metrics) ObserveCall(frontend, route, outcome string, d time.Duration) {
	if route == "" {
		route = RouteNone
	}
	s := m.series.call(m, frontend, route, outcome)
	s.count.Inc()
	s.duration.Observe(d.Seconds())
}

// ObserveUnknownKey counts one key of a node's answer to method that the
// typed message does not know.
func (m *Metrics) ObserveUnknownKey(method string) {
	m.unknownKeys.WithLabelValues(method).Inc()
}

// HTTPStarted counts an HTTP request in flight; the returned HTTPRequest's
// Done, called when the response is complete, uncounts it and records its
// duration and status code.
func (m *Metrics) HTTPStarted(frontend string) HTTPRequest {
	s := m.series.http(m, frontend)
	s.inFlight.Inc()
	return HTTPRequest{s: s}
}

// HTTPRequest is an HTTP request counted in flight (Metrics.HTTPStarted).
type HTTPRequest struct{ s *httpSeries }

// Done uncounts the request and records its duration and status code.
func (r HTTPRequest) Done(d time.Duration, status int) {
	r.s.inFlight.Dec()
	r.s.duration.Observe(d.Seconds())
	r.s.status(status).Inc()
}

// statusLabel is the status label of an HTTP status: its number, or
// "other" outside 100..599.
func statusLabel(code int) string {
	if code < 100 || code > 599 {
		return "other"
	}
	return strconv.Itoa(code)
}

// UpstreamStarted counts an upstream call in flight; the returned
// UpstreamCall's Done, called with the call's outcome, uncounts it and
// records its duration, retries (attempts - 1) and error kind ("" for
// success).
func (m *Metrics) UpstreamStarted(backend string) UpstreamCall {
	s := m.series.upstream(m, backend)
	s.inFlight.Inc()
	return UpstreamCall{s: s}
}

// UpstreamCall is an upstream call counted in flight (Metrics.UpstreamStarted).
type UpstreamCall struct{ s *upstreamSeries }

// Done uncounts the call and records its duration, retries and error kind.
func (c UpstreamCall) Done(d time.Duration, attempts int, errKind string) {
	c.s.inFlight.Dec()
	c.s.duration.Observe(d.Seconds())
	if attempts > 1 {
		c.s.retries.Add(float64(attempts - 1))
	}
	if errKind != "" {
		c.s.m.upstreamErrors.WithLabelValues(c.s.backend, errKind).Inc()
	}
}

// ObserveReload records a config reload attempt.
func (m *Metrics) ObserveReload(ok bool) {
	if ok {
		m.reloads.WithLabelValues("ok").Inc()
		m.lastReload.SetToCurrentTime()
		return
	}
	m.reloads.WithLabelValues("error").Inc()
}
