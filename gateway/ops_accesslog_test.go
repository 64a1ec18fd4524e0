package gateway_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// idRecorder records the X-Request-Id and traceparent headers the node
// receives for one method.
type idRecorder struct {
	mu          sync.Mutex
	ids         []string
	traceparent []string
}

func (r *idRecorder) handler(result string) nodeHandler {
	return func(w http.ResponseWriter, hr *http.Request, req nodeRequest) {
		r.mu.Lock()
		r.ids = append(r.ids, hr.Header.Get("X-Request-Id"))
		r.traceparent = append(r.traceparent, hr.Header.Get("Traceparent"))
		r.mu.Unlock()
		replyResult(w, req, result)
	}
}

func (r *idRecorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ids) == 0 {
		return ""
	}
	return r.ids[len(r.ids)-1]
}

var generatedID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// TestRequestID shows the request id: a valid client id is kept, returned
// and sent upstream; a missing or invalid one is replaced by a generated
// one (16 random bytes, hex), also returned and sent upstream.
func TestRequestID(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	var rec idRecorder
	node.on("test_api.echo", rec.handler(`"ok"`)) // NO_CACHE: every call goes upstream
	o := startOps(t, opsYAML(node, ""))
	testCases := []struct {
		name, sent string
		keep       bool
	}{
		{"client id kept", "req-42/abc:DEF", true},
		{"128 characters kept", strings.Repeat("x", 128), true},
		{"printable with spaces kept", "batch 7 of 9", true},
		{"none generated", "", false},
		{"129 characters replaced", strings.Repeat("x", 129), false},
		{"not ASCII replaced", "idé", false},
	}
	seen := map[string]bool{}
	for i, tc := range testCases {
		var headers []string
		if tc.sent != "" {
			headers = []string{"X-Request-Id", tc.sent}
		}
		status, h, body := o.post(rpc(i, "test_api.echo", `{}`), headers...)
		if status != 200 {
			t.Fatalf("%s: status %d: %s", tc.name, status, body)
		}
		got := h.Get("X-Request-Id")
		switch {
		case tc.keep && got != tc.sent:
			t.Errorf("%s: response id %q, want %q", tc.name, got, tc.sent)
		case !tc.keep && !generatedID.MatchString(got):
			t.Errorf("%s: response id %q, want 32 hex digits", tc.name, got)
		}
		if up := rec.last(); up != got {
			t.Errorf("%s: the backend received id %q, the client %q", tc.name, up, got)
		}
		if !tc.keep {
			if seen[got] {
				t.Errorf("%s: generated id %q twice", tc.name, got)
			}
			seen[got] = true
		}
	}
}

// TestAccessLog captures the access log (JSON) and checks the fields of a
// single JSON-RPC call (miss, then hit), a batch, a Connect call and a
// refused request.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("condenser_api.get_accounts", `[{"name":"alice"}]`)
	o := startOps(t, opsYAML(node, ""))
	get := rpc(1, "condenser_api.get_accounts", `[["alice"]]`)
	o.post(get, "X-Request-Id", "first")
	o.post(get, "X-Request-Id", "second")
	o.post("["+get+","+rpc(2, "condenser_api.get_accounts", `[["bob"]]`)+`,{"jsonrpc":"2.0","id":3,"method":"x.y.z.w.v"}]`, "X-Request-Id", "batch")
	if _, err := o.jsonRPCService("condenser_api.get_accounts"); err != nil {
		t.Fatal(err)
	}
	o.post(`{"jsonrpc":"2.0","id":1,"method":"nope_ns.api.m"}`, "X-Request-Id", "unrouted")

	lines := o.logs.lines(t, "request")
	byID := map[string]map[string]any{}
	for _, l := range lines {
		byID[fmt.Sprint(l["request_id"])] = l
	}
	var connectLine map[string]any
	for _, l := range lines {
		if l["frontend"] == "connect" {
			connectLine = l
		}
	}
	testCases := []struct {
		name string
		line map[string]any
		want map[string]any
	}{
		{"miss", byID["first"], map[string]any{
			"frontend": "jsonrpc", "http_method": "POST", "method": "appbase.condenser_api.get_accounts",
			"route": "appbase", "cache": "miss", "outcome": "ok", "backend": "hived", "upstream_calls": 1.0,
			"status": 200.0, "client_ip": "127.0.0.1", "level": "INFO",
		}},
		{"hit", byID["second"], map[string]any{
			"method": "appbase.condenser_api.get_accounts", "cache": "hit", "backend": "", "upstream_calls": 0.0, "upstream_ms": 0.0, "status": 200.0,
		}},
		{"batch", byID["batch"], map[string]any{
			"method": "batch(3)", "cache": "", "backend": "hived", "upstream_calls": 1.0, "status": 200.0,
		}},
		{"connect", connectLine, map[string]any{
			"method": "/hivegate.v1.JsonRpcService/Call", "route": "appbase", "cache": "miss", "outcome": "ok", "backend": "hived", "status": 200.0,
		}},
		{"unrouted", byID["unrouted"], map[string]any{
			"method": "nope_ns.api.m", "route": "", "cache": "bypass", "outcome": "method_not_found", "backend": "",
		}},
	}
	for _, tc := range testCases {
		if tc.line == nil {
			t.Errorf("%s: no access log line among %v", tc.name, lines)
			continue
		}
		for k, v := range tc.want {
			if tc.line[k] != v {
				t.Errorf("%s: %s = %#v, want %#v (line %v)", tc.name, k, tc.line[k], v, tc.line)
			}
		}
		for _, k := range []string{"duration_ms", "upstream_ms", "bytes", "time"} {
			if _, ok := tc.line[k]; !ok {
				t.Errorf("%s: no %s in %v", tc.name, k, tc.line)
			}
		}
	}
	if up, _ := byID["first"]["upstream_ms"].(float64); up <= 0 {
		t.Errorf("miss: upstream_ms = %v, want the upstream call's time", byID["first"]["upstream_ms"])
	}
}

// TestAccessLogOff shows hivegate.access_log: false turns the access log
// off; request ids are still given.
func TestAccessLogOff(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, opsYAML(node, "  access_log: false\n"))
	_, h, _ := o.post(rpc(1, "condenser_api.get_accounts", `[["alice"]]`))
	if !generatedID.MatchString(h.Get("X-Request-Id")) {
		t.Errorf("X-Request-Id %q, want a generated id", h.Get("X-Request-Id"))
	}
	if lines := o.logs.lines(t, "request"); len(lines) != 0 {
		t.Errorf("access log off, yet %d lines: %v", len(lines), lines)
	}
}
