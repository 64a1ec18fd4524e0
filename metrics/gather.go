package metrics

import (
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Value returns the value of one series of g, for tests and tools. name is
// a metric name as exposed: a counter or gauge, or a histogram's _count or
// _sum. labels are the series' labels rendered as in the text format,
// sorted by name, without braces (`backend="hived",kind="x"`; "" for
// none). ok is false when there is no such series.
func Value(g prometheus.Gatherer, name, labels string) (v float64, ok bool) {
	families, err := g.Gather()
	if err != nil {
		return 0, false
	}
	family, suffix := name, ""
	for _, s := range []string{"_count", "_sum"} {
		if base, found := strings.CutSuffix(name, s); found && !hasFamily(families, name) {
			family, suffix = base, s
		}
	}
	for _, mf := range families {
		if mf.GetName() != family {
			continue
		}
		for _, m := range mf.GetMetric() {
			if renderLabels(m.GetLabel()) != labels {
				continue
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil && suffix == "_count":
				return float64(m.Histogram.GetSampleCount()), true
			case m.Histogram != nil && suffix == "_sum":
				return m.Histogram.GetSampleSum(), true
			case m.Untyped != nil:
				return m.Untyped.GetValue(), true
			}
		}
	}
	return 0, false
}

// SeriesCount returns the number of series of g whose metric name starts
// with prefix (a histogram counts as one series per label set), for tests
// that check cardinality.
func SeriesCount(g prometheus.Gatherer, prefix string) (int, error) {
	families, err := g.Gather()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, mf := range families {
		if strings.HasPrefix(mf.GetName(), prefix) {
			n += len(mf.GetMetric())
		}
	}
	return n, nil
}

// Sum returns the sum of every series of the counter or gauge family
// name, for tests and tools.
func Sum(g prometheus.Gatherer, name string) (float64, error) {
	families, err := g.Gather()
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum, nil
}

func hasFamily(families []*dto.MetricFamily, name string) bool {
	return slices.ContainsFunc(families, func(mf *dto.MetricFamily) bool { return mf.GetName() == name })
}

// renderLabels renders label pairs sorted by name as name="value",...
func renderLabels(pairs []*dto.LabelPair) string {
	parts := make([]string, 0, len(pairs))
	for _, p := range pairs {
		parts = append(parts, p.GetName()+"="+strconv.Quote(p.GetValue()))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}
