package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// healthOf is GET / decoded.
type healthOf struct {
	Status   string   `json:"status"`
	Problems []string `json:"problems"`
	Nodes    []struct {
		Backend   string `json:"backend"`
		Node      int    `json:"node"`
		Up        bool   `json:"up"`
		InService *bool  `json:"in_service"`
		Reason    string `json:"reason"`
	} `json:"nodes"`
}

// getHealthOf fetches GET / from a running gateway.
func getHealthOf(t *testing.T, p *proxy) (int, healthOf, string) {
	t.Helper()
	resp, err := p.srv.Client().Get(p.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h healthOf
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, h, string(raw)
}

// TestHealthTellsTheTruth: GET / as a load balancer sees it, with the
// prober running: 503 with the reason while a backend has no node in
// service (every node unreachable, or the only node's head block a minute
// old), 200 when every backend has one.
func TestHealthTellsTheTruth(t *testing.T) {
	t.Parallel()
	const yaml = "hivegate:\n  port: 0\n{{settings}}backends:\n  hived: {{hived}}\n  hivemind: {{hivemind}}\nurls:\n  appbase: hived\n  appbase.condenser_api.get_followers: hivemind\n"
	fresh := func(t *testing.T) string {
		n := newFakeNode(t)
		n.lib.Store(1000)
		n.nowHead.Store(1020)
		return n.srv.URL
	}
	stale := func(t *testing.T) string {
		n := newFakeNode(t)
		n.lib.Store(1000)
		n.nowHead.Store(1040) // head 1020 is 60 s old
		return n.srv.URL
	}
	hivemind := func(t *testing.T) string {
		n := newFakeNode(t)
		at := time.Now().Add(-2 * time.Minute).UTC().Format(time.DateTime)
		// hivemind does not serve hived's methods.
		n.on("database_api.get_dynamic_global_properties", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
			replyError(w, req, `{"code":-32602,"message":"Assert Exception:unknown method"}`)
		})
		n.result("hive.db_head_state", `{"db_head_block":5000,"db_head_time":"`+at+`","db_head_age":120}`)
		return n.srv.URL
	}
	for _, tc := range []struct {
		name          string
		hived, hmind  func(*testing.T) string
		want          int
		problemSubstr string
		unreachable   string // the backends whose nodes must not be up
		settings      string
	}{
		{"every node unreachable", closedURL, closedURL, http.StatusServiceUnavailable, "backend hived: no node in service", "hived hivemind", ""},
		{"one backend unreachable", fresh, closedURL, http.StatusServiceUnavailable, "backend hivemind: no node in service", "hivemind", ""},
		{"one-node backend with a stale head", stale, fresh, http.StatusServiceUnavailable, "old (max 15s)", "", ""},
		{"node_max_head_age: 90 allows it", stale, fresh, http.StatusOK, "", "", "  node_max_head_age: 90\n"},
		{"node_max_head_age: 0 turns the check off", stale, fresh, http.StatusOK, "", "", "  node_max_head_age: 0\n"},
		{"hivemind two minutes behind", fresh, hivemind, http.StatusServiceUnavailable, "hivemind head block 5000 is 2m", "", ""},
		{"node_max_sync_age: 300 allows it", fresh, hivemind, http.StatusOK, "", "", "  node_max_sync_age: 300\n"},
		{"every backend in service", fresh, fresh, http.StatusOK, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			y := strings.NewReplacer("{{hived}}", tc.hived(t), "{{hivemind}}", tc.hmind(t), "{{settings}}", tc.settings).Replace(yaml)
			p := &proxy{t: t}
			p.start(y, true)
			var status int
			var h healthOf
			var raw string
			waitFor(t, "every node probed", func() bool {
				status, h, raw = getHealthOf(t, p)
				for _, n := range h.Nodes {
					if n.Reason == "not probed yet" {
						return false
					}
				}
				return true
			})
			if status != tc.want {
				t.Errorf("GET / HTTP %d, want %d: %s", status, tc.want, raw)
			}
			if (tc.want == http.StatusOK) != (h.Status == "OK") || !strings.Contains(strings.Join(h.Problems, "\n"), tc.problemSubstr) {
				t.Errorf("GET / %s; want a problem with %q", raw, tc.problemSubstr)
			}
			for _, n := range h.Nodes {
				if n.InService == nil {
					t.Fatalf("GET / does not say whether a node is in service: %s", raw)
				}
				if strings.Contains(tc.unreachable, n.Backend) && (n.Up || *n.InService) {
					t.Errorf("an unreachable node is reported up: %s", raw)
				}
			}
		})
	}
}
