package gateway_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestCordonedBackendIsNotUp: a backend whose every node is cordoned
// (forced) takes no call, so hivegate_backend_up and /admin/health's "up"
// say 0 and false, and /admin/health answers 503 when it was the only
// backend, as GET / does; uncordoning a node brings them back.
func TestCordonedBackendIsNotUp(t *testing.T) {
	t.Parallel()
	a, b := newFakeNode(t), newFakeNode(t)
	o := startOps(t, twoNodeYAML(a, b))
	waitFor(t, "both nodes in service", func() bool {
		v := o.nodes()
		return len(v.Backends[0].Nodes) == 2 && v.Backends[0].Nodes[0].InService && v.Backends[0].Nodes[1].InService
	})
	type view struct {
		status, code int
		up, body     string
		backendUp    float64
	}
	read := func() view {
		t.Helper()
		code, body := o.adminReq("GET", "/admin/health", "")
		var h struct {
			Status   string `json:"status"`
			Backends []struct {
				Up bool `json:"up"`
			} `json:"backends"`
		}
		if err := json.Unmarshal(body, &h); err != nil || len(h.Backends) != 1 {
			t.Fatalf("/admin/health: %d %s (%v)", code, body, err)
		}
		up := "false"
		if h.Backends[0].Up {
			up = "true"
		}
		req, _ := http.NewRequest(http.MethodGet, o.srv.URL+"/", nil)
		status, _, _ := o.do(req)
		return view{status: status, code: code, up: up, body: h.Status, backendUp: o.metric("hivegate_backend_up", `backend="hived"`)}
	}
	for _, step := range []struct {
		name, path string
		want       view
	}{
		{"no cordon", "", view{http.StatusOK, http.StatusOK, "true", "OK", 1}},
		{"node 1 cordoned", "/admin/nodes/hived/1/cordon", view{http.StatusOK, http.StatusOK, "true", "OK", 1}},
		{"every node cordoned", "/admin/nodes/hived/2/cordon?force=true",
			view{http.StatusServiceUnavailable, http.StatusServiceUnavailable, "false", "no backend reachable", 0}},
		{"node 2 uncordoned", "/admin/nodes/hived/2/uncordon", view{http.StatusOK, http.StatusOK, "true", "OK", 1}},
	} {
		if step.path != "" {
			if code, body := o.adminReq("POST", step.path, ""); code != http.StatusOK {
				t.Fatalf("%s: POST %s: %d %s", step.name, step.path, code, body)
			}
		}
		if got := read(); got != step.want {
			t.Errorf("%s: GET / %d, /admin/health %d status %q up %s, hivegate_backend_up %v; want GET / %d, /admin/health %d status %q up %s, hivegate_backend_up %v",
				step.name, got.status, got.code, got.body, got.up, got.backendUp,
				step.want.status, step.want.code, step.want.body, step.want.up, step.want.backendUp)
		}
	}
}
