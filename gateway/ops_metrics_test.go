package gateway_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hivegate/hivegate/metrics"
)

// scrape GETs url and returns every sample of the text exposition, keyed
// by its series as written (`name{labels}`).
func scrape(t *testing.T, o *opsGateway, url string) map[string]float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	status, h, body := o.do(req)
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s: %d %s, want 200 text/plain", url, status, h.Get("Content-Type"))
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample line %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetricsMove scrapes /metrics on the main listener and shows the
// counters move as calls are made: JSON-RPC miss then hit, Connect and
// gRPC-Web calls, an upstream failure, a backend error, an unrouted method.
func TestMetricsMove(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.lib.Store(5000)
	node.result("condenser_api.get_accounts", `[{"name":"alice"}]`)
	node.on("test_api.fail", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		http.Error(w, "down", http.StatusInternalServerError)
	})
	o := startOps(t, opsYAML(node, "  metrics: {enabled: true}\n"))
	url := o.srv.URL + "/metrics"
	series := func(name, labels string) string { return name + "{" + labels + "}" }
	okAccounts := series("hivegate_requests_total", `frontend="jsonrpc",outcome="ok",route="appbase"`)
	upstreamCount := series("hivegate_upstream_request_duration_seconds_count", `backend="hived"`)

	before := scrape(t, o, url)
	if before[okAccounts] != 0 {
		t.Fatalf("%s = %v before any call", okAccounts, before[okAccounts])
	}
	waitFor(t, "the LIB poll", func() bool { return o.metric("hivegate_last_irreversible_block", "") == 5000 })

	get := rpc(1, "condenser_api.get_accounts", `[["alice"]]`)
	if status, h, _ := o.post(get); status != 200 || h.Get("X-Hivegate-Cache") != "miss" {
		t.Fatalf("first call: %d, cache %q", status, h.Get("X-Hivegate-Cache"))
	}
	miss := scrape(t, o, url)
	asked := node.count("condenser_api.get_accounts")
	if _, h, _ := o.post(get); h.Get("X-Hivegate-Cache") != "hit" {
		t.Fatalf("second call: cache %q, want hit", h.Get("X-Hivegate-Cache"))
	}
	hit := scrape(t, o, url)
	// The node itself says whether the hit went upstream: the upstream
	// metrics also count the LIB poll and the chain follower, whose
	// rounds may fall between two scrapes on a slow machine.
	if n := node.count("condenser_api.get_accounts"); asked != 1 || n != asked {
		t.Errorf("the node was asked get_accounts %d times by the miss and %d by the hit, want 1 and 0", asked, n-asked)
	}
	if _, err := o.jsonRPCService("condenser_api.get_accounts"); err != nil {
		t.Fatalf("JsonRpcService call: %v", err)
	}
	if _, err := o.typedDGPO(); err != nil {
		t.Fatalf("typed call: %v", err)
	}
	o.post(rpc(2, "test_api.fail", `{}`))
	o.post(rpc(3, "condenser_api.nosuch", `[]`))
	o.post(rpc(4, "unrouted_ns.api.method", `[]`))
	after := scrape(t, o, url)

	checks := []struct {
		what    string
		series  string
		from    map[string]float64
		to      map[string]float64
		atLeast float64
	}{
		{"a miss counts a call", okAccounts, before, miss, 1},
		{"a miss counts a cache miss", "hivegate_cache_misses_total", before, miss, 1},
		{"a miss goes upstream", upstreamCount, before, miss, 1},
		{"a hit counts a call", okAccounts, miss, hit, 1},
		{"a hit counts a cache hit", "hivegate_cache_hits_total", miss, hit, 1},
		{"the Connect call is counted", series("hivegate_requests_total", `frontend="connect",outcome="ok",route="appbase"`), hit, after, 1},
		{"the gRPC-Web call is counted", series("hivegate_requests_total", `frontend="grpcweb",outcome="ok",route="appbase"`), hit, after, 1},
		{"the upstream failure is counted", series("hivegate_requests_total", `frontend="jsonrpc",outcome="upstream_unavailable",route="appbase"`), hit, after, 1},
		{"by backend and kind", series("hivegate_upstream_errors_total", `backend="hived",kind="upstream_unavailable"`), hit, after, 1},
		{"the backend error is counted", series("hivegate_requests_total", `frontend="jsonrpc",outcome="backend_error",route="appbase"`), hit, after, 1},
		{"as an upstream error too", series("hivegate_upstream_errors_total", `backend="hived",kind="backend_error"`), hit, after, 1},
		{"the unrouted call has route none", series("hivegate_requests_total", `frontend="jsonrpc",outcome="method_not_found",route="none"`), hit, after, 1},
		{"the JSON-RPC HTTP requests are timed", series("hivegate_http_request_duration_seconds_count", `frontend="jsonrpc"`), before, after, 5},
		{"by status", series("hivegate_http_responses_total", `frontend="jsonrpc",status="502"`), hit, after, 1},
	}
	for _, c := range checks {
		got := c.to[c.series] - c.from[c.series]
		if got < c.atLeast {
			t.Errorf("%s: %s moved by %v, want %v", c.what, c.series, got, c.atLeast)
		}
	}
	for s, want := range map[string]float64{
		series("hivegate_backend_up", `backend="hived"`):                 1,
		"hivegate_last_irreversible_block":                               5000,
		"hivegate_head_block":                                            5020,
		"hivegate_cache_capacity_bytes":                                  16777216,
		series("hivegate_http_requests_in_flight", `frontend="jsonrpc"`): 0,
		series("hivegate_build_info", `version="9.9.9-test"`):            1,
	} {
		if after[s] != want {
			t.Errorf("%s = %v, want %v", s, after[s], want)
		}
	}
}

// TestMetricsCardinality sends 10,000 distinct bogus method names (routed
// to a node that does not know them, unrouted, and unparsable), in batches
// of 50, and shows that the number of hivegate_* series does not grow:
// labels hold the matched config key, never the client's method.
func TestMetricsCardinality(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	// Streams off: the chain follower's own reads (get_block, which this
	// fake node does not serve) would add an upstream error series at a
	// moment of the clock's choosing; this test counts the series clients'
	// methods could add.
	o := startOps(t, opsYAML(node, "  access_log: false\n")+"streams:\n  enabled: false\n")
	reg := o.gw.Metrics().Registry()
	batch := func(from int) string {
		calls := make([]string, 0, 50)
		for i := from; i < from+50; i++ {
			var method string
			switch i % 3 {
			case 0:
				method = fmt.Sprintf("bogus_api.method_%d", i) // routed by appbase, unknown upstream
			case 1:
				method = fmt.Sprintf("ns%d.some_api.method", i) // no urls key
			default:
				method = fmt.Sprintf("a%d.b.c.d.e", i) // not a method name
			}
			calls = append(calls, rpc(i, method, `[]`))
		}
		return "[" + strings.Join(calls, ",") + "]"
	}
	// Warm up: one batch creates every label combination the bogus calls
	// produce.
	if status, _, _ := o.post(batch(0)); status != 200 {
		t.Fatalf("warm-up batch: status %d", status)
	}
	seriesBefore, err := metrics.SeriesCount(reg, "hivegate_")
	if err != nil {
		t.Fatal(err)
	}
	callsBefore := sumSeries(t, reg, "hivegate_requests_total")
	for from := 50; from < 50+10000; from += 50 {
		if status, _, body := o.post(batch(from)); status != 200 {
			t.Fatalf("batch at %d: status %d: %s", from, status, body)
		}
	}
	seriesAfter, err := metrics.SeriesCount(reg, "hivegate_")
	if err != nil {
		t.Fatal(err)
	}
	if seriesAfter != seriesBefore {
		t.Errorf("%d hivegate series after 10,000 distinct methods, %d before: labels must stay bounded", seriesAfter, seriesBefore)
	}
	if got := sumSeries(t, reg, "hivegate_requests_total") - callsBefore; got != 10000 {
		t.Errorf("hivegate_requests_total grew by %v, want 10000 (every call counted)", got)
	}
}

// sumSeries adds every series of one counter family.
func sumSeries(t *testing.T, reg prometheus.Gatherer, name string) float64 {
	t.Helper()
	v, err := metrics.Sum(reg, name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
