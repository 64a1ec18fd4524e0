package quota

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// The outcome label values.
const (
	OutcomeAdmitted = "admitted"
	OutcomeRefused  = "refused"
)

// instruments are the quota metrics. Labels are bounded: the subject kind,
// the key's configured name or the app's client id (never the key, never
// an address), and the outcome.
type instruments struct {
	calls       *prometheus.CounterVec
	weight      *prometheus.CounterVec
	unknownKeys prometheus.Counter
	redisErrors prometheus.Counter

	mu     sync.RWMutex
	series map[seriesKey]series
}

type seriesKey struct{ kind, name, outcome string }

type series struct{ calls, weight prometheus.Counter }

func newInstruments(ns string) *instruments {
	if ns == "" {
		ns = "hivegate"
	}
	return &instruments{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "quota_calls_total",
			Help: "Calls checked against a quota, by subject (address, key, app), key name (the configured name or the app's client id; empty for addresses) and outcome (admitted, refused).",
		}, []string{"subject", "key", "outcome"}),
		weight: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: ns, Name: "quota_weight_total",
			Help: "Weight units of the calls checked against a quota (quotas.weights), by subject, key name and outcome.",
		}, []string{"subject", "key", "outcome"}),
		unknownKeys: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Name: "quota_unknown_keys_total",
			Help: "Requests refused because their API key is not in quotas.keys.",
		}),
		redisErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: ns, Name: "quota_redis_errors_total",
			Help: "Quota checks Redis could not answer; they were counted in this process instead (checks skipped while the breaker is open are not counted).",
		}),
		series: map[seriesKey]series{},
	}
}

func (m *instruments) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.calls, m.weight, m.unknownKeys, m.redisErrors} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// observe counts one call.
func (m *instruments) observe(s Subject, weight int, admitted bool) {
	outcome := OutcomeRefused
	if admitted {
		outcome = OutcomeAdmitted
	}
	k := seriesKey{s.Kind, s.Name, outcome}
	m.mu.RLock()
	se, ok := m.series[k]
	m.mu.RUnlock()
	if !ok {
		se = series{calls: m.calls.WithLabelValues(k.kind, k.name, k.outcome), weight: m.weight.WithLabelValues(k.kind, k.name, k.outcome)}
		m.mu.Lock()
		m.series[k] = se
		m.mu.Unlock()
	}
	se.calls.Inc()
	se.weight.Add(float64(max(0, weight)))
}
