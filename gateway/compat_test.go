package gateway_test

// Gateway-level tests of the Drone and jussi keys whose effect shows on the
// wire: each test builds a gateway from a config of its own and calls it
// as a client would.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// startFile builds a gateway from a config named name (its extension picks
// the format), in which {{node}} stands for each fake node's URL, and
// serves it on 127.0.0.1.
func startFile(t *testing.T, name, text string, nodes map[string]string) *proxy {
	t.Helper()
	p := &proxy{t: t, secrets: []string{"127.0.0.1", "localhost"}}
	for k, u := range nodes {
		text = strings.ReplaceAll(text, "{{"+k+"}}", u)
	}
	cfg, err := config.Parse(name, []byte(text))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	p.gw, err = gateway.New(cfg, gateway.Options{Version: proxyVersion})
	if err != nil {
		t.Fatalf("NewGateway: %v", err)
	}
	t.Cleanup(p.gw.Close)
	p.srv = httptest.NewServer(p.gw.Handler())
	t.Cleanup(p.srv.Close)
	return p
}

// errorOf decodes a response's error object with its data.
func errorOf(t *testing.T, raw json.RawMessage) (code int, message string, data map[string]any) {
	t.Helper()
	var e struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("error object %s: %v", raw, err)
	}
	return e.Code, e.Message, e.Data
}

// TestAccountHistoryLimit shows jussi's limits.account_history_limit: a
// get_account_history call over the limit (positional or named params,
// any api) is refused with jussi's error 1701 naming the configured limit
// and never reaches the node; one at the limit goes through; in a batch
// only the element over the limit is refused.
func TestAccountHistoryLimit(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("condenser_api.get_account_history", `[]`)
	node.result("account_history_api.get_account_history", `{"history":[]}`)
	p := startFile(t, "jussi.json", `{"limits": {"account_history_limit": 250},
 "upstreams": [{"name": "appbase", "urls": [["appbase", "{{hived}}"]], "ttls": [["appbase", -1]]},
  {"name": "hived", "translate_to_appbase": true, "urls": [["hived", "{{hived}}"]], "ttls": [["hived", -1]]}]}`,
		map[string]string{"hived": node.srv.URL})
	testCases := []struct {
		name, method, params string
		refused              bool
		asked                float64
	}{
		{"condenser over", "condenser_api.get_account_history", `["alice", -1, 1000]`, true, 1000},
		{"condenser at the limit", "condenser_api.get_account_history", `["alice", -1, 250]`, false, 0},
		{"account_history_api over", "account_history_api.get_account_history", `{"account":"alice","start":-1,"limit":251}`, true, 251},
		{"account_history_api under", "account_history_api.get_account_history", `{"account":"alice","start":-1,"limit":10}`, false, 0},
		{"bare call over", "get_account_history", `["alice", -1, 300]`, true, 300},
		{"call form over", "call", `["condenser_api", "get_account_history", ["alice", -1, 999]]`, true, 999},
		{"no limit given", "condenser_api.get_account_history", `["alice", -1]`, false, 0},
	}
	for _, tc := range testCases {
		before := node.count("condenser_api.get_account_history") + node.count("account_history_api.get_account_history")
		got := p.post(call("7", tc.method, tc.params)).single(t)
		after := node.count("condenser_api.get_account_history") + node.count("account_history_api.get_account_history")
		if !tc.refused {
			if got.Error != nil || after != before+1 {
				t.Errorf("%s: error %s, node calls %d→%d", tc.name, got.Error, before, after)
			}
			continue
		}
		code, msg, data := errorOf(t, got.Error)
		want := "Account History request exceeded limit. The max limit is 250. Your limit is " + strings.TrimSuffix(strings.TrimSuffix(jsonNumber(tc.asked), ".0"), ".")
		if code != 1701 || msg != want || data["max_limit"] != 250.0 || data["requested_limit"] != tc.asked || data["name"] != "account_history_limit" {
			t.Errorf("%s: error %d %q %v, want 1701 %q", tc.name, code, msg, data, want)
		}
		if after != before {
			t.Errorf("%s: the node got the call", tc.name)
		}
	}
	answers := p.post(`[` + call("1", "condenser_api.get_account_history", `["alice",-1,1000]`) + `,` + call("2", "condenser_api.get_account_history", `["alice",-1,5]`) + `]`).batch(t)
	if answers[0].Error == nil || answers[1].Error != nil || string(answers[1].Result) != `[]` {
		t.Errorf("batch: %s / %s %s", answers[0].Error, answers[1].Result, answers[1].Error)
	}
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestEquivalentMethodsGateway is haf_api_node's Drone rename: a call to
// search_api.find_text is renamed search-api.find_text before routing, so
// it goes to the social node (not to hived, which does not know it) under
// the destination's name, TTL and cache key; the route shows the rename.
func TestEquivalentMethodsGateway(t *testing.T) {
	t.Parallel()
	hived, social := newFakeNode(t), newFakeNode(t)
	social.result("search-api.find_text", `{"hits":["a"]}`)
	p := startFile(t, "drone.yaml", `drone:
  port: 0
backends:
  hived: {{hived}}
  hivemind: {{hivemind}}
translate_to_appbase: [hived]
urls:
  appbase: hived
  search-api: hivemind
ttls:
  appbase: NO_CACHE
  search-api: 60
equivalent_methods:
  search-api.find_text:
    - appbase.search_api.find_text
`, map[string]string{"hived": hived.srv.URL, "hivemind": social.srv.URL})
	for i, want := range []string{"miss", "hit"} {
		r := p.post(call("1", "search_api.find_text", `{"pattern":"hive"}`))
		got := r.single(t)
		if string(got.Result) != `{"hits":["a"]}` || r.cache() != want || r.header.Get("X-Hivegate-Route") != "search-api" {
			t.Errorf("call %d: %s %s, cache %s route %s", i, got.Result, got.Error, r.cache(), r.header.Get("X-Hivegate-Route"))
		}
	}
	if social.count("search-api.find_text") != 1 || hived.count("search_api.find_text") != 0 {
		t.Errorf("social got %d calls, hived %d", social.count("search-api.find_text"), hived.count("search_api.find_text"))
	}
	if reqs := social.requests("search-api.find_text"); len(reqs) != 1 || string(reqs[0].Params) != `{"pattern":"hive"}` {
		t.Errorf("forwarded %+v", reqs)
	}
	ex, err := p.gw.Dispatcher().Router().Parse("search_api.find_text", json.RawMessage(`{}`))
	if err != nil || ex.RenamedFrom != "appbase.search_api.find_text" || ex.Key != `search-api.find_text.params={}` {
		t.Errorf("route: %+v, %v", ex, err)
	}
}

// TestHonorUpstreamCacheControl shows Drone's HONOR_UPSTREAM_CACHE_CONTROL:
// an answer is cached as long as its Cache-Control max-age says, and not
// at all without one.
func TestHonorUpstreamCacheControl(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.on("x_api.max_age", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		w.Header().Set("Cache-Control", "public, max-age=60")
		replyResult(w, req, `1`)
	})
	node.result("x_api.none", `2`)
	node.on("x_api.no_store", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		w.Header().Set("Cache-Control", "no-store, max-age=60")
		replyResult(w, req, `3`)
	})
	p := startProxy(t, "hivegate:\n  port: 0\nbackends:\n  hived: {{hived}}\nurls:\n  appbase: hived\nttls:\n  appbase: HONOR_UPSTREAM_CACHE_CONTROL\n", map[string]*fakeNode{"hived": node}, false)
	for _, tc := range []struct {
		method string
		calls  int
	}{{"x_api.max_age", 1}, {"x_api.none", 3}, {"x_api.no_store", 3}} {
		start := time.Now()
		for range 3 {
			p.post(call("1", tc.method, `[]`)).single(t)
		}
		if got := node.count(tc.method); got != tc.calls {
			t.Errorf("%s: %d upstream calls for 3, want %d", tc.method, got, tc.calls)
		}
		if tc.calls == 1 {
			checkExpiry(t, p.cacheEntry(tc.method, `[]`), start, 60*time.Second)
		}
	}
}

// TestDebugEndpoints shows Drone's debug_endpoints_enabled: its cache views
// and a heap profile on the admin listener, 404 while off; the main
// listener never serves them.
func TestDebugEndpoints(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("condenser_api.get_accounts", `[{"name":"alice"}]`)
	o := startOps(t, opsYAML(node, "  debug_endpoints_enabled: true\n"))
	if status, _, _ := o.post(rpc(1, "condenser_api.get_accounts", `[["alice"]]`)); status != 200 {
		t.Fatal(status)
	}
	status, body := o.adminReq("GET", "/cache-size", "")
	var size map[string]int64
	if status != 200 || json.Unmarshal(body, &size) != nil || size["current_size"] <= 0 || size["max_size"] != 16777216 {
		t.Errorf("/cache-size: %d %s", status, body)
	}
	status, body = o.adminReq("GET", "/cache-entries", "")
	var entries []struct {
		Key  string `json:"key"`
		Size int64  `json:"size"`
	}
	if status != 200 || json.Unmarshal(body, &entries) != nil || len(entries) != 1 || entries[0].Key != `appbase.condenser_api.get_accounts.params=[["alice"]]` || entries[0].Size <= 0 {
		t.Errorf("/cache-entries: %d %s", status, body)
	}
	if status, body = o.adminReq("GET", "/debug/memory_stats", ""); status != 200 || !bytes.Contains(body, []byte(`"heap_alloc_bytes"`)) {
		t.Errorf("/debug/memory_stats: %d %s", status, body)
	}
	if status, body = o.adminReq("GET", "/debug/heap_profile", ""); status != 200 || len(body) == 0 {
		t.Errorf("/debug/heap_profile: %d, %d bytes", status, len(body))
	}
	req, _ := http.NewRequest(http.MethodGet, o.srv.URL+"/cache-entries", nil)
	if _, _, body := o.do(req); bytes.Contains(body, []byte("get_accounts")) {
		t.Errorf("the main listener serves the cache entries: %s", body)
	}
	off := startOps(t, opsYAML(newFakeNode(t), ""))
	for _, path := range []string{"/cache-size", "/cache-entries", "/debug/memory_stats", "/debug/heap_profile"} {
		if status, _ := off.adminReq("GET", path, ""); status != http.StatusNotFound {
			t.Errorf("%s with debug endpoints off: %d, want 404", path, status)
		}
	}
}

// TestMetricsNamespace shows Drone's metrics_namespace: hivegate's metrics
// are named with it.
func TestMetricsNamespace(t *testing.T) {
	t.Parallel()
	o := startOps(t, opsYAML(newFakeNode(t), "  metrics_namespace: drone\n"))
	o.post(rpc(1, "condenser_api.get_accounts", `[["alice"]]`))
	status, body := o.adminReq("GET", "/metrics", "")
	if status != 200 || !bytes.Contains(body, []byte("drone_requests_total{")) || bytes.Contains(body, []byte("hivegate_requests_total")) || !bytes.Contains(body, []byte("go_goroutines")) {
		t.Errorf("/metrics: %d\n%.2000s", status, body)
	}
}

// TestBackendNodesGateway: a backend of two nodes; GET /, /admin/health and
// the metrics show each node (GET / without addresses); when the first
// node dies, calls with retries go on through the second.
func TestBackendNodesGateway(t *testing.T) {
	t.Parallel()
	a, b := newFakeNode(t), newFakeNode(t)
	for _, n := range []*fakeNode{a, b} {
		n.result("condenser_api.get_accounts", `["ok"]`)
		n.nowHead.Store(20) // fresh head blocks
	}
	yaml := "hivegate:\n  port: 0\n  node_fail_threshold: 1\nbackends:\n  hived: [" + a.srv.URL + ", " + b.srv.URL + "]\nurls:\n  appbase: hived\nttls:\n  appbase: NO_CACHE\nretries:\n  appbase: 1\n" +
		// No chain follower: a poll of its in flight on node 1 would send
		// the first call to node 2 (least loaded), and node 1 would never
		// see the failed call the test counts on.
		"streams:\n  enabled: false\n"
	o := startOps(t, yaml)
	req, _ := http.NewRequest(http.MethodGet, o.srv.URL+"/", nil)
	_, _, body := o.do(req)
	var health struct {
		Nodes []map[string]any `json:"nodes"`
	}
	if json.Unmarshal(body, &health) != nil || len(health.Nodes) != 2 || health.Nodes[1]["node"] != 2.0 || health.Nodes[1]["backend"] != "hived" {
		t.Errorf("GET /: %s", body)
	}
	if bytes.Contains(body, []byte("127.0.0.1")) {
		t.Errorf("GET / shows a node's address: %s", body)
	}
	a.srv.CloseClientConnections()
	a.srv.Close()
	o.post(rpc(0, "condenser_api.get_accounts", `[["x"]]`))
	// node_fail_threshold: 1: one failed call took the node out (the
	// default, 5, would still count it up).
	if v := o.metric("hivegate_backend_node_up", `backend="hived",node="1"`); v != 0 {
		t.Errorf("after one failed call hivegate_backend_node_up of the dead node = %v, want 0", v)
	}
	for i := range 5 {
		if _, _, body := o.post(rpc(i, "condenser_api.get_accounts", `[["x"]]`)); !bytes.Contains(body, []byte(`"result":["ok"]`)) {
			t.Errorf("call %d after the first node died: %s", i, body)
		}
	}
	if v := o.metric("hivegate_backend_node_up", `backend="hived",node="1"`); v != 0 {
		t.Errorf("hivegate_backend_node_up of the dead node = %v", v)
	}
	if v := o.metric("hivegate_backend_node_in_service", `backend="hived",node="2"`); v != 1 {
		t.Errorf("hivegate_backend_node_in_service of the live node = %v", v)
	}
	_, body = o.adminReq("GET", "/admin/health", "")
	if !bytes.Contains(body, []byte(b.srv.URL)) || !bytes.Contains(body, []byte(`"in_service": true`)) {
		t.Errorf("/admin/health: %s", body)
	}
}

// TestWebSocketUpstreamGateway: a jussi config whose node is a ws://
// URL, as haf_api_node's is: calls (single and batch) go over WebSocket.
func TestWebSocketUpstreamGateway(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	ws := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			_, msg, err := c.Read(r.Context())
			if err != nil {
				return
			}
			calls.Add(1)
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal(msg, &req)
			out := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"method":"` + req.Method + `","params":` + string(req.Params) + `}}`
			if err := c.Write(r.Context(), websocket.MessageText, []byte(out)); err != nil {
				return
			}
		}
	}))
	t.Cleanup(ws.Close)
	wsURL := "ws" + strings.TrimPrefix(ws.URL, "http")
	p := startFile(t, "jussi.json", `{"upstreams": [{"name": "hived", "translate_to_appbase": true,
 "urls": [["hived", "{{ws}}"]], "ttls": [["hived", -1]], "timeouts": [["hived", 5]]},
 {"name": "appbase", "urls": [["appbase", "{{ws}}"]], "ttls": [["appbase", -1]]}]}`, map[string]string{"ws": wsURL})
	got := p.post(call("1", "get_block", `[8]`)).single(t)
	if string(got.Result) != `{"method":"condenser_api.get_block","params":[8]}` {
		t.Errorf("single: %s %s", got.Result, got.Error)
	}
	answers := p.post("[" + call("1", "condenser_api.get_accounts", `[["a"]]`) + "," + call("2", "block_api.get_block", `{"block_num":3}`) + "]").batch(t)
	if len(answers) != 2 || string(answers[1].Result) != `{"method":"block_api.get_block","params":{"block_num":3}}` {
		t.Errorf("batch: %+v", answers)
	}
	if calls.Load() != 3 {
		t.Errorf("the ws node got %d calls, want 3", calls.Load())
	}
}

// TestGzipGateway: through the whole gateway, a cache hit's gzip-encoded
// answer decodes to the bytes the plain answer has, with the caller's id.
func TestGzipGateway(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	big := `[` + strings.Repeat(`{"name":"alice","balance":"1.000 HIVE"},`, 200) + `{}]`
	node.result("condenser_api.get_accounts", big)
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
	post := func(id, enc string) (http.Header, []byte) {
		req, _ := http.NewRequest(http.MethodPost, p.srv.URL, strings.NewReader(call(id, "condenser_api.get_accounts", `[["alice"]]`)))
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header, b
	}
	_, plain := post("1", "")
	for _, id := range []string{"2", `"x"`} {
		hdr, raw := post(id, "gzip")
		if hdr.Get("Content-Encoding") != "gzip" || hdr.Get("X-Hivegate-Cache") != "hit" {
			t.Fatalf("Content-Encoding %q, cache %q", hdr.Get("Content-Encoding"), hdr.Get("X-Hivegate-Cache"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.Replace(plain, []byte(`"id":1}`), []byte(`"id":`+id+`}`), 1)
		if !bytes.Equal(got, want) {
			t.Errorf("id %s: decoded %.200s", id, got)
		}
	}
	if node.count("condenser_api.get_accounts") != 1 {
		t.Errorf("%d upstream calls", node.count("condenser_api.get_accounts"))
	}
}

// TestNodeMaxLagBlocks shows node_max_lag_blocks: a node whose head is
// further behind its backend's best than that is shown lagging (out of
// service) once probed; with the check off it is not.
func TestNodeMaxLagBlocks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		setting string
		lagging bool
	}{{"node_max_lag_blocks: 5", true}, {"node_max_lag_blocks: 0", false}, {"node_max_lag_blocks: 50", false}} {
		a, b := newFakeNode(t), newFakeNode(t)
		a.lib.Store(1000)
		b.lib.Store(990) // 10 blocks behind
		a.nowHead.Store(1020)
		b.nowHead.Store(1020)
		o := startOps(t, "hivegate:\n  port: 0\n  "+tc.setting+"\nbackends:\n  hived: ["+a.srv.URL+", "+b.srv.URL+"]\nurls:\n  appbase: hived\n")
		o.gw.Dispatcher().Pool().Probe(t.Context())
		req, _ := http.NewRequest(http.MethodGet, o.srv.URL+"/", nil)
		_, _, body := o.do(req)
		if got := bytes.Contains(body, []byte(`"lagging":true`)) && bytes.Contains(body, []byte(`"node":2,"up":true,"in_service":false,"kind":"hived","lagging":true`)); got != tc.lagging {
			t.Errorf("%s: GET / %s; want the second node lagging %v", tc.setting, body, tc.lagging)
		}
	}
}

// TestCompressMinBytes shows compress_min_bytes: 0 turns gzip off; a
// threshold above an answer's size leaves it plain.
func TestCompressMinBytes(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("condenser_api.get_accounts", `[`+strings.Repeat(`{"name":"alice"},`, 200)+`{}]`)
	for _, tc := range []struct {
		setting string
		gzipped bool
	}{{"compress_min_bytes: 0", false}, {"compress_min_bytes: 100000", false}, {"compress_min_bytes: 100", true}} {
		o := startOps(t, opsYAML(node, "  "+tc.setting+"\n"))
		_, hdr, _ := o.post(rpc(1, "condenser_api.get_accounts", `[["alice"]]`), "Accept-Encoding", "gzip")
		if got := hdr.Get("Content-Encoding") == "gzip"; got != tc.gzipped {
			t.Errorf("%s: Content-Encoding %q", tc.setting, hdr.Get("Content-Encoding"))
		}
	}
}
