package gateway_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAdminStatsAndErrors: after calls of every kind (cache hits and a
// miss, a node's error, an unrouted method, a batch), GET /admin/stats
// counts them per method with their upstream calls, ranks the methods,
// and reports the cache's hit ratio and fill; GET /admin/errors lists the
// errors newest first with method, code, kind and backend, bounded, and
// never a node's address.
func TestAdminStatsAndErrors(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("condenser_api.get_block", `{"block_id":"0001"}`)
	o := startOps(t, opsYAML(node, ""))
	call := func(method string) {
		t.Helper()
		if status, _, body := o.post(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":[1]}`); status >= 500 && status != http.StatusBadGateway {
			t.Fatalf("%s: %d %s", method, status, body)
		}
	}
	for range 3 {
		call("condenser_api.get_block") // a miss, then 2 hits
	}
	call("test_api.nothing") // the node's own error: "Could not find API"
	call("test_api.nothing")
	call("nope_ns.api.m") // no route
	// Three batches of 40 (limits.max_batch_size is 50).
	for range 3 {
		batch := make([]string, 40)
		for i := range batch {
			batch[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"test_api.batched","params":[]}`
		}
		if status, _, body := o.post("[" + strings.Join(batch, ",") + "]"); status != http.StatusOK {
			t.Fatalf("batch: %d %s", status, body)
		}
	}

	status, body := o.adminReq("GET", "/admin/stats?top=2", "")
	type method struct {
		Method         string  `json:"method"`
		Calls          int     `json:"calls"`
		Rate           float64 `json:"rate_per_s"`
		Errors         int     `json:"errors"`
		CacheHits      int     `json:"cache_hits"`
		UpstreamCalls  int     `json:"upstream_calls"`
		UpstreamTimeMS float64 `json:"upstream_time_ms"`
	}
	var st struct {
		Cache struct {
			Hits      float64  `json:"hits"`
			Misses    float64  `json:"misses"`
			Bytes     float64  `json:"bytes"`
			Capacity  float64  `json:"capacity_bytes"`
			HitRatio  *float64 `json:"hit_ratio"`
			FillRatio float64  `json:"fill_ratio"`
		} `json:"cache"`
		WindowS float64  `json:"window_s"`
		Calls   int      `json:"calls"`
		Rate    float64  `json:"rate_per_s"`
		Errors  int      `json:"errors"`
		Served  *float64 `json:"served_from_cache"`
		ByRate  []method `json:"top_by_rate"`
		ByTime  []method `json:"top_by_upstream_time"`
	}
	if err := json.Unmarshal(body, &st); err != nil || status != http.StatusOK {
		t.Fatalf("/admin/stats: %d %s", status, body)
	}
	if st.Calls != 126 || st.Errors != 123 || st.WindowS <= 0 || st.Rate <= 0 || st.Served == nil || *st.Served != 0.016 {
		t.Errorf("totals: %d calls, %d errors over %v s, from cache %v:\n%s", st.Calls, st.Errors, st.WindowS, st.Served, body)
	}
	if len(st.ByRate) != 2 || st.ByRate[0].Method != "appbase.test_api.batched" || st.ByRate[0].Calls != 120 || st.ByRate[0].UpstreamCalls != 120 ||
		st.ByRate[1].Method != "appbase.condenser_api.get_block" || st.ByRate[1].Calls != 3 || st.ByRate[1].CacheHits != 2 || st.ByRate[1].UpstreamCalls != 1 {
		t.Errorf("top 2 by rate: %+v", st.ByRate)
	}
	if len(st.ByTime) != 2 || st.ByTime[0].UpstreamTimeMS < st.ByTime[1].UpstreamTimeMS || st.ByTime[1].UpstreamTimeMS <= 0 {
		t.Errorf("top 2 by upstream time: %+v", st.ByTime)
	}
	if c := st.Cache; c.Hits != 2 || c.HitRatio == nil || *c.HitRatio != float64(int(1000*c.Hits/(c.Hits+c.Misses)+0.5))/1000 ||
		c.Capacity != 16777216 || c.Bytes <= 0 || c.FillRatio != float64(int(1000*c.Bytes/c.Capacity+0.5))/1000 {
		t.Errorf("cache: %+v", c)
	}
	if status, body := o.adminReq("GET", "/admin/stats?top=0", ""); status != http.StatusBadRequest {
		t.Errorf("top=0: %d %s", status, body)
	}

	status, body = o.adminReq("GET", "/admin/errors", "")
	var errs struct {
		Capacity int `json:"capacity"`
		Total    int `json:"total"`
		Errors   []struct {
			Method  string `json:"method"`
			Code    int    `json:"code"`
			Kind    string `json:"kind"`
			Message string `json:"message"`
			Backend string `json:"backend"`
			Time    string `json:"time"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(body, &errs); err != nil || status != http.StatusOK {
		t.Fatalf("/admin/errors: %d %s", status, body)
	}
	if errs.Capacity != 100 || errs.Total != 123 || len(errs.Errors) != 100 {
		t.Fatalf("ring: capacity %d, total %d, %d kept", errs.Capacity, errs.Total, len(errs.Errors))
	}
	for i, e := range errs.Errors {
		if e.Method != "appbase.test_api.batched" || e.Kind != "backend_error" || e.Code != -32601 || e.Backend != "hived" || e.Time == "" {
			t.Fatalf("error %d (the newest are the batch's): %+v", i, e)
		}
		// Compared as times: RFC 3339 drops trailing zeros of the
		// fraction, so "…05.12Z" sorts after "…05.123Z" as text.
		if i > 0 && parseTime(t, e.Time).After(parseTime(t, errs.Errors[i-1].Time)) {
			t.Fatalf("error %d is newer than error %d", i, i-1)
		}
	}
	if strings.Contains(string(body), "127.0.0.1") {
		t.Errorf("/admin/errors shows a node address:\n%s", body)
	}
}

// TestAdminUnroutedErrorHasNoBackend: an unrouted call's error names its
// kind and no backend.
func TestAdminUnroutedErrorHasNoBackend(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, strings.Replace(opsYAML(node, ""), "urls:\n  appbase: hived\n", "urls:\n  appbase.condenser_api: hived\n", 1))
	o.post(`{"jsonrpc":"2.0","id":1,"method":"database_api.get_config","params":{}}`)
	_, body := o.adminReq("GET", "/admin/errors", "")
	var errs struct {
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(body, &errs); err != nil || len(errs.Errors) != 1 {
		t.Fatalf("/admin/errors: %s", body)
	}
	if e := errs.Errors[0]; e["method"] != "appbase.database_api.get_config" || e["kind"] == "backend_error" || e["backend"] != nil {
		t.Errorf("unrouted call's error: %v", e)
	}
}

// TestOperatorPageServed: the admin listener serves the operator page
// without the token (its files hold no data) while its data needs it;
// the main listener's /ui/ does not serve it.
func TestOperatorPageServed(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, opsYAML(node, "  admin_token: s3cret-token"))
	status, body := o.adminReq("GET", "/operator/", "")
	if status != http.StatusOK || !strings.Contains(string(body), "<title>hivegate operator</title>") {
		t.Fatalf("GET /operator/: %d %s", status, body)
	}
	if status, _ := o.adminReq("GET", "/admin/stats", ""); status != http.StatusUnauthorized {
		t.Errorf("GET /admin/stats without the token: %d, want 401", status)
	}
	if status, _ := o.adminWith("GET", "/operator/", "evil.example:9090"); status != http.StatusMisdirectedRequest {
		t.Errorf("GET /operator/ for another Host: %d, want 421", status)
	}
	if status, _ := o.adminReq("POST", "/operator/", ""); status != http.StatusUnauthorized {
		t.Errorf("POST /operator/ without the token: %d, want 401 (only GETs of the page skip it)", status)
	}
}

// parseTime reads a time the admin API wrote.
func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return v
}
