package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// twoNodeYAML is opsConfig with a hived backend of the given nodes, in
// order, each with a fresh head.
func twoNodeYAML(nodes ...*fakeNode) string {
	list := ""
	for _, n := range nodes {
		n.lib.Store(1000)
		n.nowHead.Store(1020)
		n.result("test_api.who", `"`+n.srv.URL+`"`)
		list += "\n    - " + n.srv.URL
	}
	// Streams off: these tests count which node answers idle calls, and the
	// chain follower's own reads would make node 1 busy at random moments.
	return strings.ReplaceAll(strings.ReplaceAll(opsConfig, "{{hived}}", list), "{{settings}}", "") +
		"streams:\n  enabled: false\n"
}

// nodesView is what GET /admin/nodes answers.
type nodesView struct {
	Backends []struct {
		Name      string `json:"name"`
		InService bool   `json:"in_service"`
		Nodes     []struct {
			Node      int      `json:"node"`
			URL       string   `json:"url"`
			Up        bool     `json:"up"`
			InService bool     `json:"in_service"`
			Cordoned  bool     `json:"cordoned"`
			Reason    string   `json:"reason"`
			Head      uint64   `json:"head_block"`
			HeadLag   *int64   `json:"head_lag_blocks"`
			LatencyMS *float64 `json:"latency_ms"`
			InFlight  *int64   `json:"in_flight"`
		} `json:"nodes"`
	} `json:"backends"`
}

// nodes reads GET /admin/nodes.
func (o *opsGateway) nodes() nodesView {
	o.t.Helper()
	status, body := o.adminReq("GET", "/admin/nodes", "")
	var v nodesView
	if err := json.Unmarshal(body, &v); err != nil || status != http.StatusOK || len(v.Backends) != 1 {
		o.t.Fatalf("GET /admin/nodes: %d %s (%v)", status, body, err)
	}
	return v
}

// who calls test_api.who (never cached) n times and returns how many
// answers each node gave, by URL.
func (o *opsGateway) who(n int) map[string]int {
	o.t.Helper()
	got := map[string]int{}
	for range n {
		status, _, body := o.post(`{"jsonrpc":"2.0","id":1,"method":"test_api.who","params":[]}`)
		var resp struct {
			Result string          `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &resp); err != nil || (status != http.StatusOK && resp.Error == nil) {
			o.t.Fatalf("test_api.who: %d %s", status, body)
		}
		if resp.Error != nil {
			got["error: "+string(resp.Error)]++
			continue
		}
		got[resp.Result]++
	}
	return got
}

// TestAdminCordon drains a node through the admin API: a cordoned node
// gets no new calls while the backend serves through the other one; it is
// shown cordoned in /admin/nodes, /admin/health and the metrics; the last
// node that takes calls is refused unless forced, and forced, the backend
// answers upstream_unavailable and GET / 503; a cordon survives a reload
// that moves the node and is forgotten by one that removes it.
func TestAdminCordon(t *testing.T) {
	t.Parallel()
	a, b, c := newFakeNode(t), newFakeNode(t), newFakeNode(t)
	o := startOps(t, twoNodeYAML(a, b))
	waitFor(t, "both nodes in service", func() bool {
		v := o.nodes()
		return len(v.Backends[0].Nodes) == 2 && v.Backends[0].Nodes[0].InService && v.Backends[0].Nodes[1].InService
	})
	if got := o.who(3); got[a.srv.URL] != 3 {
		t.Fatalf("before any cordon, idle calls go to node 1: %v", got)
	}

	status, body := o.adminReq("POST", "/admin/nodes/hived/1/cordon", "")
	if status != http.StatusOK || !strings.Contains(string(body), `"cordoned": true`) || !strings.Contains(string(body), `"backend_in_service": true`) {
		t.Fatalf("cordon node 1: %d %s", status, body)
	}
	if got := o.who(5); got[b.srv.URL] != 5 {
		t.Errorf("with node 1 cordoned, calls went to %v; want all 5 on node 2", got)
	}
	v := o.nodes()
	if n := v.Backends[0].Nodes[0]; !n.Cordoned || n.InService || n.Reason != "cordoned" || !v.Backends[0].InService {
		t.Errorf("/admin/nodes after cordon: %+v", v)
	}
	if n := v.Backends[0].Nodes[1]; n.Cordoned || !n.InService || n.LatencyMS == nil || n.HeadLag == nil || *n.HeadLag != 0 || n.InFlight == nil {
		t.Errorf("/admin/nodes node 2: %+v", n)
	}
	if _, body := o.adminReq("GET", "/admin/health", ""); !strings.Contains(string(body), `"cordoned": true`) {
		t.Errorf("/admin/health does not show the cordon: %s", body)
	}
	for _, m := range []struct {
		name, labels string
		want         float64
	}{
		{"hivegate_backend_node_cordoned", `backend="hived",node="1"`, 1},
		{"hivegate_backend_node_cordoned", `backend="hived",node="2"`, 0},
		{"hivegate_backend_node_in_service", `backend="hived",node="1"`, 0},
		{"hivegate_backend_node_in_service", `backend="hived",node="2"`, 1},
	} {
		if got := o.metric(m.name, m.labels); got != m.want {
			t.Errorf("%s{%s} = %v, want %v", m.name, m.labels, got, m.want)
		}
	}

	// The last node that takes calls: refused, and says how to force it.
	status, body = o.adminReq("POST", "/admin/nodes/hived/2/cordon", "")
	if status != http.StatusConflict || !strings.Contains(string(body), "last node that takes calls (node 1: cordoned)") ||
		!strings.Contains(string(body), "?force=true") {
		t.Errorf("cordon of the last node: %d %s, want 409 saying so", status, body)
	}
	if got := o.who(2); got[b.srv.URL] != 2 {
		t.Errorf("after a refused cordon: %v", got)
	}
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/admin/nodes/hived/3/cordon", 404, "backend hived has no node 3 (it has 2)"},
		{"/admin/nodes/nope/1/uncordon", 404, `no backend named \"nope\"`},
		{"/admin/nodes/hived/x/cordon", 400, "a number"},
		{"/admin/nodes/hived/2/cordon?force=maybe", 400, "force is true or false"},
		{"/admin/nodes/hived/1/uncordon?force=true", 400, "only for cordon"},
	} {
		if status, body := o.adminReq("POST", tc.path, ""); status != tc.status || !strings.Contains(string(body), tc.want) {
			t.Errorf("POST %s: %d %s, want %d with %q", tc.path, status, body, tc.status, tc.want)
		}
	}
	if status, _ := o.adminReq("GET", "/admin/nodes/hived/1/cordon", ""); status != http.StatusMethodNotAllowed {
		t.Errorf("GET of the cordon endpoint: %d, want 405", status)
	}
	// Guarded like the other mutations: a cross-site page cannot cordon.
	if status, _ := o.adminWith("POST", "/admin/nodes/hived/2/uncordon", "", "Sec-Fetch-Site", "cross-site"); status != http.StatusForbidden {
		t.Errorf("cross-site uncordon: %d, want 403", status)
	}

	// Forced: the backend has no node to call.
	if status, body := o.adminReq("POST", "/admin/nodes/hived/2/cordon?force=true", ""); status != http.StatusOK || !strings.Contains(string(body), `"backend_in_service": false`) {
		t.Fatalf("forced cordon: %d %s", status, body)
	}
	before := a.count("test_api.who") + b.count("test_api.who")
	if got := o.who(1); len(got) != 1 || !strings.Contains(strings.Join(keys(got), ""), "every node cordoned") {
		t.Errorf("with every node cordoned: %v", got)
	}
	if after := a.count("test_api.who") + b.count("test_api.who"); after != before {
		t.Errorf("%d calls reached a cordoned node", after-before)
	}
	req, _ := http.NewRequest(http.MethodGet, o.srv.URL+"/", nil)
	if status, _, body := o.do(req); status != http.StatusServiceUnavailable {
		t.Errorf("GET / with every node cordoned: %d %s, want 503", status, body)
	}
	if status, _ := o.adminReq("POST", "/admin/nodes/hived/2/uncordon", ""); status != http.StatusOK {
		t.Fatalf("uncordon node 2: %d", status)
	}

	// A reload that moves node 1 (a) to position 2 keeps it cordoned.
	o.write(twoNodeYAML(b, a))
	if status, body := o.adminReq("POST", "/admin/reload", ""); status != http.StatusOK {
		t.Fatalf("reload: %d %s", status, body)
	}
	v = o.nodes()
	if n := v.Backends[0].Nodes; !n[1].Cordoned || n[0].Cordoned {
		t.Errorf("after a reload that moved the cordoned node to position 2: %+v", v)
	}
	if got := o.who(4); got[b.srv.URL] != 4 {
		t.Errorf("after the reload, calls went to %v; want all on b", got)
	}
	// One that removes it forgets the cordon: it comes back uncordoned.
	o.write(twoNodeYAML(b, c))
	if status, _ := o.adminReq("POST", "/admin/reload", ""); status != http.StatusOK {
		t.Fatal("reload")
	}
	o.write(twoNodeYAML(a, b))
	if status, _ := o.adminReq("POST", "/admin/reload", ""); status != http.StatusOK {
		t.Fatal("reload")
	}
	if v := o.nodes(); v.Backends[0].Nodes[0].Cordoned || v.Backends[0].Nodes[1].Cordoned {
		t.Errorf("a node removed and added again is still cordoned: %+v", v)
	}
}

// TestAdminCordonToken: with admin_token set, cordoning needs it, like
// every admin endpoint.
func TestAdminCordonToken(t *testing.T) {
	t.Parallel()
	a, b := newFakeNode(t), newFakeNode(t)
	yaml := strings.Replace(twoNodeYAML(a, b), "hivegate:\n", "hivegate:\n  admin_token: s3cret-token\n", 1)
	o := startOps(t, yaml)
	if status, _ := o.adminReq("POST", "/admin/nodes/hived/1/cordon", ""); status != http.StatusUnauthorized {
		t.Errorf("cordon without the token: %d, want 401", status)
	}
	if status, body := o.adminReq("POST", "/admin/nodes/hived/1/cordon", "s3cret-token"); status != http.StatusOK {
		t.Errorf("cordon with the token: %d %s", status, body)
	}
}

// keys returns a map's keys.
func keys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
