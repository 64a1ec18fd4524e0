package gateway_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The Grafana dashboard and the Prometheus rules deploy/ ships.
const (
	dashboardFile = "../deploy/grafana/hivegate.json"
	rulesFile     = "../deploy/prometheus/hivegate.rules.yml"
)

// dashboardExprs returns the PromQL of every target of the dashboard, with
// its metric prefix variable (${ns}) set to hivegate, keyed by panel title.
func dashboardExprs(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	out := map[string][]string{}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out["panel "+p.Title] = append(out["panel "+p.Title], strings.ReplaceAll(tg.Expr, "${ns}", "hivegate"))
		}
	}
	return out
}

// ruleExprs returns the PromQL of every alert rule, keyed by alert name.
func ruleExprs(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	out := map[string][]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %+v: want alert, expr, labels.severity and annotations.summary", r)
			}
			out["alert "+r.Alert] = append(out["alert "+r.Alert], r.Expr)
		}
	}
	return out
}

var (
	// promString is a PromQL string literal (a label value, a regexp).
	promString = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	// promIdent is an identifier: a metric name, a label, a function, a
	// keyword. Metric names are those with the gateway's prefixes.
	promIdent = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	// gatewayMetric is a prefix of the metrics a gateway serves.
	gatewayMetric = regexp.MustCompile(`^(hivegate|go|process)_`)
)

// metricNames returns the gateway metric names expr uses: the identifiers
// outside string literals that start with hivegate_, go_ or process_.
func metricNames(expr string) []string {
	var out []string
	for _, id := range promIdent.FindAllString(promString.ReplaceAllString(expr, `""`), -1) {
		if gatewayMetric.MatchString(id) {
			out = append(out, id)
		}
	}
	return out
}

// unknownMetrics returns "where: name" for each metric name the
// expressions use that is not among served.
func unknownMetrics(exprs map[string][]string, served map[string]bool) []string {
	var out []string
	for where, es := range exprs {
		for _, e := range es {
			for _, n := range metricNames(e) {
				if !served[n] {
					out = append(out, where+": "+n)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// servedQuotas is a quotas section for servedMetrics: the test client is
// on loopback, a trusted proxy whose own address no quota limits, so its
// calls count against an API key of one call an hour.
const servedQuotas = `quotas:
  classes:
    one: {limit: 1, period: 1h}
  per_address: one
  keys:
    metrics-test: {sha256: %x, class: one}
`

// servedMetrics returns the name of every sample a real gateway's /metrics
// serves once it has answered calls, failed one upstream, checked calls
// against a quota (one admitted, one refused) and reloaded its config (a
// histogram as its _bucket, _sum and _count).
func servedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	node := newFakeNode(t)
	node.lib.Store(5000)
	node.result("condenser_api.get_accounts", `[{"name":"alice"}]`)
	node.on("test_api.fail", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		http.Error(w, "down", http.StatusInternalServerError)
	})
	const key = "dashboards-test-key"
	o := startOps(t, opsYAML(node, "")+fmt.Sprintf(servedQuotas, sha256.Sum256([]byte(key))))
	waitFor(t, "the LIB poll", func() bool { return o.metric("hivegate_last_irreversible_block", "") == 5000 })
	get := rpc(1, "condenser_api.get_accounts", `[["alice"]]`)
	o.post(get)
	o.post(get)
	o.post(rpc(2, "test_api.fail", `{}`))
	for want, status := range []int{http.StatusOK, http.StatusTooManyRequests} {
		if got, _, body := o.post(get, "X-Api-Key", key); got != status {
			t.Fatalf("call %d with the API key: HTTP %d %s, want %d", want+1, got, body, status)
		}
	}
	if status, body := o.adminReq(http.MethodPost, "/admin/reload", ""); status != http.StatusOK {
		t.Fatalf("reload: %d %s", status, body)
	}
	status, body := o.adminReq(http.MethodGet, "/metrics", "")
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d", status)
	}
	served := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		served[promIdent.FindString(line)] = true
	}
	return served
}

// TestDashboardAndRulesMetricsExist checks that every metric the Grafana
// dashboard and the alert rules name is served by a real gateway, so that
// neither can rot when a metric is renamed; and that the checker finds a
// misspelt name (a mutation of the real files' expressions).
func TestDashboardAndRulesMetricsExist(t *testing.T) {
	t.Parallel()
	served := servedMetrics(t)
	dash, rules := dashboardExprs(t), ruleExprs(t)
	for what, exprs := range map[string]map[string][]string{dashboardFile: dash, rulesFile: rules} {
		names := map[string]bool{}
		for _, es := range exprs {
			for _, e := range es {
				for _, n := range metricNames(e) {
					names[n] = true
				}
			}
		}
		if len(names) < 8 {
			t.Errorf("%s names %d gateway metrics (%v): the parser lost them", what, len(names), names)
		}
		if bad := unknownMetrics(exprs, served); len(bad) > 0 {
			t.Errorf("%s names metrics a gateway does not serve:\n%s", what, strings.Join(bad, "\n"))
		}
	}
	// What the issue asks the dashboard and the alerts to cover.
	for _, want := range []string{
		"hivegate_requests_total", "hivegate_cache_hits_total", "hivegate_cache_misses_total",
		"hivegate_upstream_request_duration_seconds_bucket", "hivegate_backend_node_up",
		"hivegate_backend_node_head_block", "hivegate_backend_node_in_service",
		"hivegate_http_requests_in_flight", "hivegate_http_responses_total",
		"process_resident_memory_bytes", "hivegate_cache_capacity_bytes",
		"hivegate_backend_node_requests_in_flight",
		// Cordons (the operator page) and quotas.
		"hivegate_backend_node_cordoned", "hivegate_quota_calls_total", "hivegate_quota_weight_total",
		"hivegate_quota_unknown_keys_total", "hivegate_quota_redis_errors_total",
	} {
		found := false
		for _, es := range dash {
			for _, e := range es {
				found = found || slices.Contains(metricNames(e), want)
			}
		}
		if !found {
			t.Errorf("the dashboard does not show %s", want)
		}
	}
	for _, alert := range []string{
		"HivegateLowCacheHitRatio", "HivegateHighErrorRatio", "HivegateNodeDown",
		"HivegateNodeLagging", "HivegateBackendNoNodeInService",
		"HivegateNodeCordonedLong", "HivegateQuotaRedisErrors",
	} {
		if len(rules["alert "+alert]) == 0 {
			t.Errorf("no alert %s", alert)
		}
	}

	// Mutation: the checker reports a misspelt metric and a histogram
	// named without its suffix.
	mutated := map[string][]string{}
	for where, es := range rules {
		for _, e := range es {
			e = strings.ReplaceAll(e, "hivegate_cache_hits_total", "hivegate_cache_hit_total")
			e = strings.ReplaceAll(e, "hivegate_backend_node_up", "hivegate_backend_node_upp")
			mutated[where] = append(mutated[where], e)
		}
	}
	mutated["panel latency"] = []string{`histogram_quantile(0.9, rate(hivegate_upstream_request_duration_seconds[5m]))`}
	bad := unknownMetrics(mutated, served)
	for _, want := range []string{
		"alert HivegateLowCacheHitRatio: hivegate_cache_hit_total",
		"alert HivegateNodeDown: hivegate_backend_node_upp",
		"panel latency: hivegate_upstream_request_duration_seconds",
	} {
		if !slices.Contains(bad, want) {
			t.Errorf("the checker misses %q; it reports %q", want, bad)
		}
	}
}

// TestMetricNames checks the PromQL name extraction.
func TestMetricNames(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		expr string
		want []string
	}{
		{`rate(hivegate_requests_total{outcome="hivegate_x"}[5m])`, []string{"hivegate_requests_total"}},
		{`sum by (le) (rate(hivegate_request_duration_seconds_bucket[1m]))`, []string{"hivegate_request_duration_seconds_bucket"}},
		{`process_resident_memory_bytes > on (job, instance) (1.5 * hivegate_cache_capacity_bytes)`, []string{"process_resident_memory_bytes", "hivegate_cache_capacity_bytes"}},
		{`hivegate_backend_node_up == 1 and hivegate_backend_node_in_service == 0`, []string{"hivegate_backend_node_up", "hivegate_backend_node_in_service"}},
		{`up{job='hivegate_job'} == 0`, nil},
		{`max without (node) (go_goroutines)`, []string{"go_goroutines"}},
	}
	for _, tc := range testCases {
		if got := metricNames(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("metricNames(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}
