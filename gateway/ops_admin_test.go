package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAdminAuth shows hivegate.admin_token: without it every admin
// endpoint is open; with it a request without the bearer token, or with
// another, gets the JSON-RPC Unauthorized error (-32016) and HTTP 401.
func TestAdminAuth(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	open := startOps(t, opsYAML(node, ""))
	locked := startOps(t, opsYAML(node, "  admin_token: s3cret\n"))
	endpoints := []struct{ method, path string }{
		{"GET", "/metrics"},
		{"GET", "/admin/health"},
		{"GET", "/admin/routes"},
		{"GET", "/admin/route?method=condenser_api.get_block&params=[1]"},
		{"POST", "/admin/reload"},
	}
	for _, ep := range endpoints {
		t.Run(ep.method+" "+ep.path, func(t *testing.T) {
			if status, body := open.adminReq(ep.method, ep.path, ""); status != http.StatusOK {
				t.Errorf("no admin_token: %d %s, want 200", status, body)
			}
			for _, token := range []string{"", "wrong", "s3cret "} {
				status, body := locked.adminReq(ep.method, ep.path, token)
				var resp struct {
					Error struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if token == "s3cret " {
					// Surrounding spaces are not part of the token.
					if status != http.StatusOK {
						t.Errorf("right token with a trailing space: %d %s", status, body)
					}
					continue
				}
				if err := json.Unmarshal(body, &resp); err != nil || status != http.StatusUnauthorized || resp.Error.Code != -32016 {
					t.Errorf("token %q: %d %s, want 401 with error -32016", token, status, body)
				}
			}
			if status, body := locked.adminReq(ep.method, ep.path, "s3cret"); status != http.StatusOK {
				t.Errorf("right token: %d %s, want 200", status, body)
			}
		})
	}
}

// TestAdminEndpoints checks what each admin endpoint answers.
func TestAdminEndpoints(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.lib.Store(777)
	o := startOps(t, opsYAML(node, ""))
	waitFor(t, "the LIB poll", func() bool { return o.metric("hivegate_last_irreversible_block", "") == 777 })

	t.Run("routes", func(t *testing.T) {
		status, body := o.adminReq("GET", "/admin/routes", "")
		var got struct {
			Source   string            `json:"source"`
			Backends map[string]string `json:"backends"`
			Routes   []map[string]any  `json:"routes"`
		}
		if err := json.Unmarshal(body, &got); err != nil || status != 200 {
			t.Fatalf("%d %s", status, body)
		}
		want := map[string]map[string]any{
			"appbase":          {"backend": "hived", "ttl": 60.0, "timeout_s": 5.0, "retries": 0.0, "routed": true},
			"appbase.test_api": {"backend": "hived", "ttl": "NO_CACHE", "timeout_s": 5.0, "routed": true},
		}
		if got.Source != o.file || got.Backends["hived"] != node.srv.URL || len(got.Routes) != len(want) {
			t.Fatalf("routes: %s", body)
		}
		for _, r := range got.Routes {
			for k, v := range want[r["key"].(string)] {
				if r[k] != v {
					t.Errorf("route %s: %s = %v, want %v", r["key"], k, r[k], v)
				}
			}
		}
	})
	t.Run("route", func(t *testing.T) {
		testCases := []struct {
			query  string
			status int
			want   string
		}{
			{"?method=condenser_api.get_block&params=%5B1%5D", 200, `"key": "appbase.condenser_api.get_block.params=[1]"`},
			{"?method=test_api.x", 200, `"ttl": "NO_CACHE"`},
			{"", 400, "want ?method="},
			{"?method=condenser_api.get_block&params=%5B1", 400, "not valid JSON"},
			{"?method=a.b.c.d", 400, "dotted parts"},
			{"?method=nope_ns.api.m", 404, "no route"},
		}
		for _, tc := range testCases {
			status, body := o.adminReq("GET", "/admin/route"+tc.query, "")
			if status != tc.status || !strings.Contains(string(body), tc.want) {
				t.Errorf("%s: %d %s, want %d containing %q", tc.query, status, body, tc.status, tc.want)
			}
		}
	})
	t.Run("health", func(t *testing.T) {
		status, body := o.adminReq("GET", "/admin/health", "")
		var got struct {
			Status   string `json:"status"`
			Version  string `json:"version"`
			Backends []struct {
				Name string `json:"name"`
				Up   bool   `json:"up"`
			} `json:"backends"`
			LIB   uint64         `json:"last_irreversible_block"`
			Head  uint64         `json:"head_block"`
			Cache map[string]any `json:"cache"`
		}
		if err := json.Unmarshal(body, &got); err != nil || status != 200 {
			t.Fatalf("%d %s", status, body)
		}
		if got.Status != "OK" || got.Version != "9.9.9-test" || len(got.Backends) != 1 || !got.Backends[0].Up ||
			got.LIB != 777 || got.Head != 797 || got.Cache["capacity_bytes"] != 16777216.0 {
			t.Errorf("health: %s", body)
		}
	})
	t.Run("method not allowed", func(t *testing.T) {
		if status, _ := o.adminReq("GET", "/admin/reload", ""); status != http.StatusMethodNotAllowed {
			t.Errorf("GET /admin/reload: %d, want 405", status)
		}
		if status, _ := o.adminReq("GET", "/", ""); status != http.StatusNotFound {
			t.Errorf("GET / on the admin listener: %d, want 404", status)
		}
	})
}

// TestMainListenerMetricsConfig shows hivegate.metrics: enabled and path
// decide whether and where the main listener serves metrics (not by
// default); the admin listener always does.
func TestMainListenerMetricsConfig(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, settings string
		served         map[string]bool // path on the main listener → metrics served
	}{
		{"default", "", map[string]bool{"/metrics": false, "/prom": false}},
		{"on", "  metrics: {enabled: true}\n", map[string]bool{"/metrics": true, "/prom": false}},
		{"other path", "  metrics: {enabled: true, path: /prom}\n", map[string]bool{"/metrics": false, "/prom": true}},
		{"off", "  metrics: {enabled: false}\n", map[string]bool{"/metrics": false, "/prom": false}},
		// Drone's spelling of the same keys.
		{"drone metrics_enabled", "  metrics_enabled: true\n", map[string]bool{"/metrics": true, "/prom": false}},
		{"drone metrics_path", "  metrics_enabled: true\n  metrics_path: /prom\n", map[string]bool{"/metrics": false, "/prom": true}},
		{"drone metrics_enabled false", "  metrics_enabled: false\n  metrics_path: /prom\n", map[string]bool{"/metrics": false, "/prom": false}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := startOps(t, opsYAML(newFakeNode(t), tc.settings))
			for path, want := range tc.served {
				req, _ := http.NewRequest(http.MethodGet, o.srv.URL+path, nil)
				_, _, body := o.do(req)
				if got := strings.Contains(string(body), "# TYPE hivegate_build_info gauge"); got != want {
					t.Errorf("GET %s on the main listener serves metrics: %v, want %v", path, got, want)
				}
			}
			if status, body := o.adminReq("GET", "/metrics", ""); status != 200 || !strings.Contains(string(body), "hivegate_build_info") {
				t.Errorf("admin /metrics: %d", status)
			}
		})
	}
}

// TestAdminTokenRotates shows admin_token is read from the config in use:
// a reload changes it without a restart.
func TestAdminTokenRotates(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, opsYAML(node, "  admin_token: old-token\n"))
	o.write(opsYAML(node, "  admin_token: new-token\n"))
	if status, body := o.adminReq("POST", "/admin/reload", "old-token"); status != http.StatusOK {
		t.Fatalf("reload: %d %s", status, body)
	}
	if status, _ := o.adminReq("GET", "/admin/health", "old-token"); status != http.StatusUnauthorized {
		t.Errorf("old token after the reload: %d, want 401", status)
	}
	if status, _ := o.adminReq("GET", "/admin/health", "new-token"); status != http.StatusOK {
		t.Errorf("new token after the reload: %d, want 200", status)
	}
}

// TestPublicMetricsRateLimited shows that metrics scraped on the public
// port count against the client's rate like any call, while GET / health
// checks are never refused.
func TestPublicMetricsRateLimited(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.nowHead.Store(20) // a fresh head block: GET / answers 200
	yaml := opsYAML(node, "  metrics: {enabled: true}\n") + "limits:\n  rate_limit_per_second: 0.01\n  rate_limit_burst: 2\n"
	o := startOps(t, yaml)
	statuses := func(path string, n int) []int {
		var out []int
		for range n {
			req, _ := http.NewRequest(http.MethodGet, o.srv.URL+path, nil)
			status, _, _ := o.do(req)
			out = append(out, status)
		}
		return out
	}
	if got := statuses("/metrics", 3); got[0] != 200 || got[1] != 200 || got[2] != http.StatusTooManyRequests {
		t.Errorf("three scrapes with a burst of 2: %v, want 200 200 429", got)
	}
	for i, st := range statuses("/", 5) {
		if st != 200 {
			t.Errorf("health check %d after the limit: HTTP %d", i, st)
		}
	}
	if status, _ := o.adminReq("GET", "/metrics", ""); status != 200 {
		t.Errorf("admin /metrics: %d: the admin listener is not rate-limited", status)
	}
}
