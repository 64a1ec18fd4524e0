package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// seriesCache keeps the resolved children of the labelled metrics that are
// updated on every request. Resolving a label set in a Vec hashes every
// label value and takes the Vec's lock; on a cache hit that was a fifth of
// hivegate's own work per call, and fifty times that per batch of 50. The
// label values are bounded (front ends, configured routes, outcome kinds,
// backend names, status codes), so the cache is bounded too; like the Vecs
// themselves, it keeps a series once it has been used.
type seriesCache struct {
	calls     sync.Map // callKey -> *callSeries
	https     sync.Map // front end -> *httpSeries
	upstreams sync.Map // backend name -> *upstreamSeries
}

type callKey struct{ frontend, route, outcome string }

// loadOrResolve returns the value kept in m under k, resolving it with
// resolve (and keeping it) on first use.
func loadOrResolve[K comparable, V any](m *sync.Map, k K, resolve func() V) V {
	if v, ok := m.Load(k); ok {
		return v.(V)
	}
	v, _ := m.LoadOrStore(k, resolve())
	return v.(V)
}

// callSeries is one (front end, route, outcome) of the call metrics.
type callSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// call returns the series of one label set, resolving it on first use.
func (c *seriesCache) call(m *Metrics, frontend, route, outcome string) *callSeries {
	return loadOrResolve(&c.calls, callKey{frontend, route, outcome}, func() *callSeries {
		return &callSeries{
			count:    m.requests.WithLabelValues(frontend, route, outcome),
			duration: m.requestDuration.WithLabelValues(frontend, route),
		}
	})
}

// httpSeries is one front end's HTTP metrics.
type httpSeries struct {
	m        *Metrics
	frontend string
	inFlight prometheus.Gauge
	duration prometheus.Observer
	statuses sync.Map // int -> prometheus.Counter
}

// http returns the series of a front end, resolving it on first use.
func (c *seriesCache) http(m *Metrics, frontend string) *httpSeries {
	return loadOrResolve(&c.https, frontend, func() *httpSeries {
		return &httpSeries{
			m:        m,
			frontend: frontend,
			inFlight: m.httpInFlight.WithLabelValues(frontend),
			duration: m.httpDuration.WithLabelValues(frontend),
		}
	})
}

// status returns the response counter of an HTTP status code.
func (s *httpSeries) status(code int) prometheus.Counter {
	if code < 100 || code > 599 {
		code = 0 // one "other" series
	}
	return loadOrResolve(&s.statuses, code, func() prometheus.Counter {
		return s.m.httpResponses.WithLabelValues(s.frontend, statusLabel(code))
	})
}

// upstreamSeries is one backend's upstream metrics (errors, rarer and
// labelled by kind too, are resolved when they happen).
type upstreamSeries struct {
	m        *Metrics
	backend  string
	inFlight prometheus.Gauge
	duration prometheus.Observer
	retries  prometheus.Counter
}

// upstream returns the series of a backend, resolving it on first use.
func (c *seriesCache) upstream(m *Metrics, backend string) *upstreamSeries {
	return loadOrResolve(&c.upstreams, backend, func() *upstreamSeries {
		return &upstreamSeries{
			m:        m,
			backend:  backend,
			inFlight: m.upstreamInFlight.WithLabelValues(backend),
			duration: m.upstreamDuration.WithLabelValues(backend),
			retries:  m.upstreamRetries.WithLabelValues(backend),
		}
	})
}
