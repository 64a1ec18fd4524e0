package gateway_test

// End-to-end tests of the JSON-RPC proxy path: a real Gateway behind an
// httptest server, in front of fake hived nodes (httptest servers that count
// calls per method, record the raw bytes they receive and answer what each
// test tells them). This file holds the harness and the request-level tests
// (passthrough, ids, invalid requests, health); proxy_batch_test.go,
// proxy_cache_test.go and proxy_upstream_test.go hold the rest.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// proxyVersion is the version the test gateways report on GET /.
const proxyVersion = "1.2.3-test"

// proxyConfig is the config most tests use. {{hived}} is replaced by the
// fake node's URL. Methods are grouped into made-up APIs by behaviour, so
// that each TTL, timeout and retry setting below is exercised by a test.
const proxyConfig = `
hivegate:
  operator_message: "proxy test gateway"
  cache_max_capacity: 16777216
  middleware_connection_threads: 64
  lib_poll_interval: 1
backends:
  hived: {{hived}}
urls:
  appbase: hived
  hived: hived
ttls:
  appbase: 60
  appbase.test_api: NO_CACHE
  appbase.cache_api.seconds: 1
  appbase.cache_api.no_cache: NO_CACHE
  appbase.cache_api.no_expire: NO_EXPIRE
  appbase.cache_api.reversible: EXPIRE_IF_REVERSIBLE
  appbase.condenser_api.get_block: EXPIRE_IF_REVERSIBLE
  appbase.block_api.get_block: EXPIRE_IF_REVERSIBLE
  appbase.condenser_api.get_state: 1
  appbase.condenser_api.get_state.params=['/trending']: 30
  appbase.database_api.get_dynamic_global_properties: 1
timeouts:
  appbase: 5
  appbase.slow_api: 1
retries:
  appbase: 0
  appbase.flaky_api: 2
  appbase.network_broadcast_api: 2
  appbase.condenser_api.broadcast_transaction: 3
`

// hangGuard bounds every wait in these tests so that a bug makes a test
// fail instead of hang. It is never a speed claim.
const hangGuard = 5 * time.Second

// nodeRequest is one JSON-RPC request a fake node received.
type nodeRequest struct {
	Raw    []byte          `json:"-"`
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// nodeHandler answers one request; it must write a response.
type nodeHandler func(w http.ResponseWriter, r *http.Request, req nodeRequest)

// fakeNode is an httptest server that behaves like hived as far as the
// proxy can tell. It answers database_api.get_dynamic_global_properties with
// its lib and jsonrpc.get_methods with [], and every other method with the
// handler registered for it, or hived's "Could not find API" error.
type fakeNode struct {
	srv *httptest.Server
	lib atomic.Uint64
	// nowHead is the block whose time is now (10,000,000 when 0): block h
	// has the time 3 s per block before or after it. Set it to lib+20 for
	// a node whose head block is fresh.
	nowHead  atomic.Uint64
	mu       sync.Mutex
	calls    map[string]int
	reqs     map[string][]nodeRequest
	handlers map[string]nodeHandler
	// batches holds the size of every JSON-RPC batch received; noBatch
	// makes the node refuse them (HTTP 400), as a node without batch
	// support does.
	batches []int
	noBatch atomic.Bool
}

func newFakeNode(t *testing.T) *fakeNode {
	t.Helper()
	n := &fakeNode{calls: map[string]int{}, reqs: map[string][]nodeRequest{}, handlers: map[string]nodeHandler{}}
	n.srv = httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *fakeNode) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if len(raw) > 0 && raw[0] == '[' {
		n.serveBatch(w, r, raw)
		return
	}
	n.serveOne(w, r, raw)
}

// serveBatch answers a JSON-RPC batch as hived does: an array of the
// answers, each made as for a call on its own.
func (n *fakeNode) serveBatch(w http.ResponseWriter, r *http.Request, raw []byte) {
	var elems []json.RawMessage
	if n.noBatch.Load() || json.Unmarshal(raw, &elems) != nil {
		http.Error(w, "batches are not supported", http.StatusBadRequest)
		return
	}
	n.mu.Lock()
	n.batches = append(n.batches, len(elems))
	n.mu.Unlock()
	out := make([][]byte, len(elems))
	for i, e := range elems {
		rec := httptest.NewRecorder()
		n.serveOne(rec, r, e)
		out[i] = bytes.TrimSpace(rec.Body.Bytes())
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(append([]byte{'['}, bytes.Join(out, []byte{','})...), ']'))
}

// batchSizes returns the size of every batch the node received.
func (n *fakeNode) batchSizes() []int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]int(nil), n.batches...)
}

func (n *fakeNode) serveOne(w http.ResponseWriter, r *http.Request, raw []byte) {
	var req nodeRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return
	}
	req.Raw = raw
	n.mu.Lock()
	n.calls[req.Method]++
	n.reqs[req.Method] = append(n.reqs[req.Method], req)
	h := n.handlers[req.Method]
	n.mu.Unlock()
	switch {
	case h != nil:
		h(w, r, req)
	case req.Method == "database_api.get_dynamic_global_properties" || req.Method == "condenser_api.get_dynamic_global_properties":
		lib := n.lib.Load()
		nowHead := int64(n.nowHead.Load())
		if nowHead == 0 {
			nowHead = 10_000_000
		}
		at := time.Now().Add(-time.Duration(nowHead-int64(lib+20)) * 3 * time.Second).UTC().Format("2006-01-02T15:04:05")
		replyResult(w, req, fmt.Sprintf(`{"head_block_number":%d,"time":%q,"last_irreversible_block_num":%d}`, lib+20, at, lib))
	case req.Method == "jsonrpc.get_methods":
		replyResult(w, req, `[]`)
	default:
		replyError(w, req, `{"code":-32601,"message":"Assert Exception:api_itr != data._registered_apis.end(): Could not find API"}`)
	}
}

// on registers the handler of one upstream method.
func (n *fakeNode) on(method string, h nodeHandler) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.handlers[method] = h
}

// result registers a handler answering method with a fixed result.
func (n *fakeNode) result(method, result string) {
	n.on(method, func(w http.ResponseWriter, _ *http.Request, req nodeRequest) { replyResult(w, req, result) })
}

// count returns how many requests for method the node received.
func (n *fakeNode) count(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[method]
}

// requests returns the requests for method the node received, in order.
func (n *fakeNode) requests(method string) []nodeRequest {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]nodeRequest(nil), n.reqs[method]...)
}

func replyResult(w http.ResponseWriter, req nodeRequest, result string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","result":%s,"id":%s}`, result, req.ID)
}

func replyError(w http.ResponseWriter, req nodeRequest, errObj string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","error":%s,"id":%s}`, errObj, req.ID)
}

// proxy is a running gateway under test.
type proxy struct {
	t   *testing.T
	gw  *gateway.Gateway
	srv *httptest.Server
	// secrets are strings no client-visible byte may contain: loopback
	// addresses and the backends' URLs and ports.
	secrets []string
}

// startProxy builds a gateway from yaml, in which {{name}} is replaced by
// the URL of nodes[name], and serves it on 127.0.0.1. start runs the
// gateway's background work (LIB polling) until the test ends.
func startProxy(t *testing.T, yaml string, nodes map[string]*fakeNode, start bool) *proxy {
	t.Helper()
	p := &proxy{t: t, secrets: []string{"127.0.0.1", "localhost"}}
	for name, n := range nodes {
		yaml = strings.ReplaceAll(yaml, "{{"+name+"}}", n.srv.URL)
		p.secrets = append(p.secrets, n.srv.URL, n.srv.Listener.Addr().String())
	}
	return p.start(yaml, start)
}

func (p *proxy) start(yaml string, start bool) *proxy {
	t := p.t
	t.Helper()
	cfg, err := config.Parse("proxy_test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	p.gw, err = gateway.New(cfg, gateway.Options{Version: proxyVersion})
	if err != nil {
		t.Fatalf("NewGateway: %v", err)
	}
	t.Cleanup(p.gw.Close)
	if start {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		p.gw.Start(ctx)
	}
	p.srv = httptest.NewServer(p.gw.Handler())
	t.Cleanup(p.srv.Close)
	return p
}

// reply is the gateway's HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// rpcResponse is one JSON-RPC response object, its members kept raw.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// rpcError is the decoded form of an error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Name string `json:"name"`
	} `json:"data"`
}

// post sends body and checks what every answer must satisfy: it is JSON
// and no byte of it or its headers reveals a backend address.
func (p *proxy) post(body string) reply {
	p.t.Helper()
	return p.postCtx(context.Background(), body)
}

func (p *proxy) postCtx(ctx context.Context, body string) reply {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 3*hangGuard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.srv.URL, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.srv.Client().Do(req)
	if err != nil {
		return reply{status: -1, body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Errorf("reading the answer: %v", err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header, body: b}
	p.checkNoLeak(r)
	if !json.Valid(b) {
		p.t.Errorf("answer is not JSON: %q", b)
	}
	return r
}

// checkNoLeak fails when a client-visible byte names a backend address.
func (p *proxy) checkNoLeak(r reply) {
	p.t.Helper()
	visible := string(r.body)
	for k, vs := range r.header {
		visible += "\n" + k + ": " + strings.Join(vs, ",")
	}
	for _, s := range p.secrets {
		if strings.Contains(visible, s) {
			p.t.Errorf("client-visible answer contains %q: %s", s, visible)
		}
	}
}

// single decodes an answer that must be one response object.
func (r reply) single(t *testing.T) rpcResponse {
	t.Helper()
	var out rpcResponse
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("want one response object, got %s: %v", r.body, err)
	}
	checkResponseShape(t, out)
	return out
}

// batch decodes an answer that must be an array of response objects.
func (r reply) batch(t *testing.T) []rpcResponse {
	t.Helper()
	var out []rpcResponse
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("want an array of responses, got %s: %v", r.body, err)
	}
	for _, o := range out {
		checkResponseShape(t, o)
	}
	return out
}

func checkResponseShape(t *testing.T, r rpcResponse) {
	t.Helper()
	if r.JSONRPC != "2.0" {
		t.Errorf("jsonrpc = %q, want 2.0", r.JSONRPC)
	}
	if r.ID == nil {
		t.Errorf("response without id")
	}
	if (r.Result == nil) == (r.Error == nil) {
		t.Errorf("want exactly one of result and error: result=%s error=%s", r.Result, r.Error)
	}
}

// errCode returns the error's code, or 0 when the response has a result.
func (r rpcResponse) errCode(t *testing.T) int {
	t.Helper()
	return r.err(t).Code
}

func (r rpcResponse) err(t *testing.T) rpcError {
	t.Helper()
	var e rpcError
	if r.Error == nil {
		return e
	}
	if err := json.Unmarshal(r.Error, &e); err != nil {
		t.Fatalf("bad error object %s: %v", r.Error, err)
	}
	return e
}

// waitFor polls cond until it holds, failing the test after hangGuard.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// call is a single request body.
func call(id, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
}

// closedURL returns an http URL on 127.0.0.1 where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestProxyPassthroughBytes(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
	cases := []struct {
		name, params, result string
	}{
		{"slash", `["/trending/hive"]`, `{"path":"/trending/hive"}`},
		{"escaped slash", `["\/trending\/hive"]`, `"\/x\/y"`},
		{"non-ASCII", `["héllo wörld 世界 🐝"]`, `{"t":"héllo 世界 🐝"}`},
		{"html characters", `["<script>&amp;</script>"]`, `"<b>&</b>"`},
		{"escaped unicode", `["\u00e9\u4e16\ud83d\udc1d\u003c"]`, `"\u00e9\u003e\u0026"`},
		{"odd whitespace", "[ \"a\" ,\n\t{ \"b\" :  1 }\r\n, [ ] ]", "{ \"x\" :\t[ 1 , 2 ]\n}"},
		{"big numbers", `[123456789012345678901234567890, -9223372036854775809, 1.50, 1e400]`, `{"supply":340282366920938463463374607431768211455,"f":0.10}`},
		{"named params", `{"z":1,"a":{"y":[],"b":"\"quoted\""}}`, `[{"b":2,"a":1}]`},
		{"empty params", `[]`, `[]`},
		{"control escapes", `["tab\tnew\nline\u0000"]`, `"\b\f\r"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node.result("test_api.echo", tc.result)
			before := len(node.requests("test_api.echo"))
			r := p.post(call("7", "test_api.echo", tc.params))
			got := r.single(t)
			if r.status != http.StatusOK || got.Error != nil {
				t.Fatalf("status %d, error %s", r.status, got.Error)
			}
			reqs := node.requests("test_api.echo")
			if len(reqs) != before+1 {
				t.Fatalf("node got %d requests, want %d", len(reqs), before+1)
			}
			if sent := reqs[len(reqs)-1].Params; !bytes.Equal(sent, []byte(tc.params)) {
				t.Errorf("params changed on the way upstream:\n client %q\n node   %q", tc.params, sent)
			}
			if !bytes.Equal(got.Result, []byte(tc.result)) {
				t.Errorf("result changed on the way back:\n node   %q\n client %q", tc.result, got.Result)
			}
		})
	}
	t.Run("no params member", func(t *testing.T) {
		node.result("test_api.noparams", `1`)
		p.post(call("1", "test_api.noparams", "")).single(t)
		reqs := node.requests("test_api.noparams")
		if len(reqs) != 1 || reqs[0].Params != nil {
			t.Errorf("want one request without params, got %+v", reqs)
		}
	})
}

// idCases are ids a client may send, each echoed byte for byte.
var idCases = []struct{ name, id string }{
	{"zero", `0`},
	{"integer", `42`},
	{"negative", `-17`},
	{"beyond float64", `9007199254740993`},
	{"beyond int64", `123456789012345678901234567890`},
	{"large negative", `-99999999999999999999`},
	{"string", `"abc"`},
	{"empty string", `""`},
	{"numeric string", `"7"`},
	{"string with escapes", `"a\"b\\c\u00e9\n\/"`},
	{"surrogate pair", `"\ud83d\udc1d"`},
	{"non-ASCII string", `"ид-🐝"`},
	{"null", `null`},
}

func TestProxyIDsEchoed(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("test_api.echo", `{"fresh":true}`)
	node.result("cache_api.no_expire", `{"cached":true}`)
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)

	// Fill the cache with an id no case uses.
	if r := p.post(call(`"filler-id"`, "cache_api.no_expire", `["ids"]`)); r.header.Get("X-Hivegate-Cache") != "miss" {
		t.Fatalf("first call: cache %q, want miss", r.header.Get("X-Hivegate-Cache"))
	}
	for _, tc := range idCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []struct{ method, params, cache string }{
				{"test_api.echo", `[1]`, "bypass"},
				{"cache_api.no_expire", `["ids"]`, "hit"},
			} {
				r := p.post(call(tc.id, m.method, m.params))
				got := r.single(t)
				if !bytes.Equal(got.ID, []byte(tc.id)) {
					t.Errorf("%s: id %s, want %s", m.method, got.ID, tc.id)
				}
				if c := r.header.Get("X-Hivegate-Cache"); c != m.cache {
					t.Errorf("%s: cache %q, want %q", m.method, c, m.cache)
				}
			}
		})
	}
	if n := node.count("cache_api.no_expire"); n != 1 {
		t.Errorf("cached method reached the node %d times, want 1", n)
	}
	t.Run("batch", func(t *testing.T) {
		var parts []string
		for i, tc := range idCases {
			m := "test_api.echo"
			if i%2 == 0 {
				m = "cache_api.no_expire"
			}
			parts = append(parts, call(tc.id, m, `["ids"]`))
		}
		got := p.post("[" + strings.Join(parts, ",") + "]").batch(t)
		if len(got) != len(idCases) {
			t.Fatalf("%d responses, want %d", len(got), len(idCases))
		}
		for i, tc := range idCases {
			if !bytes.Equal(got[i].ID, []byte(tc.id)) {
				t.Errorf("element %d: id %s, want %s", i, got[i].ID, tc.id)
			}
			if got[i].Error != nil {
				t.Errorf("element %d: error %s", i, got[i].Error)
			}
		}
	})
}

func TestProxyInvalidRequests(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("test_api.echo", `1`)
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
	t.Cleanup(func() {
		// Runs once every parallel case below has finished.
		if n := node.count("test_api.echo"); n != 0 {
			t.Errorf("invalid requests reached the node %d times", n)
		}
	})
	cases := []struct {
		name, body string
		code       int
		id         string // the id the error must carry
	}{
		{"float id", `{"jsonrpc":"2.0","id":1.5,"method":"test_api.echo","params":[]}`, -32600, "null"},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"test_api.echo","params":[]}`, -32600, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"test_api.echo","params":[]}`, -32600, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"test_api.echo","params":[]}`, -32600, "null"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"test_api.echo","params":[]}`, -32600, "null"},
		{"missing id", `{"jsonrpc":"2.0","method":"test_api.echo","params":[]}`, -32600, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":3,"method":"test_api.echo","params":[]}`, -32600, "3"},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":3,"method":"test_api.echo","params":[]}`, -32600, "3"},
		{"jsonrpc missing", `{"id":3,"method":"test_api.echo","params":[]}`, -32600, "3"},
		{"method number", `{"jsonrpc":"2.0","id":"m","method":5,"params":[]}`, -32600, `"m"`},
		{"method null", `{"jsonrpc":"2.0","id":"m","method":null,"params":[]}`, -32600, `"m"`},
		{"method missing", `{"jsonrpc":"2.0","id":"m","params":[]}`, -32600, `"m"`},
		{"method empty", `{"jsonrpc":"2.0","id":"m","method":"","params":[]}`, -32600, `"m"`},
		{"params string", `{"jsonrpc":"2.0","id":4,"method":"test_api.echo","params":"x"}`, -32600, "4"},
		{"params number", `{"jsonrpc":"2.0","id":4,"method":"test_api.echo","params":5}`, -32600, "4"},
		{"params bool", `{"jsonrpc":"2.0","id":4,"method":"test_api.echo","params":true}`, -32600, "4"},
		{"not an object", `"test_api.echo"`, -32600, "null"},
		{"number body", `17`, -32600, "null"},
		{"unparsable", `{"jsonrpc":"2.0","id":1,"method":`, -32700, "null"},
		{"not JSON", `hello`, -32700, "null"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"test_api.echo"} x`, -32700, "null"},
		{"empty body", ``, -32700, "null"},
		{"non-breaking space around", "\u00a0" + `{"jsonrpc":"2.0","id":1,"method":"test_api.echo"}`, -32700, "null"},
		{"unterminated batch", `[{"jsonrpc":"2.0","id":1,"method":"test_api.echo"}`, -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"empty batch with spaces", " [ \n ] ", -32600, "null"},
		{"invalid method name", `{"jsonrpc":"2.0","id":9,"method":"a..b","params":[]}`, -32600, "9"},
		{"four-part method", `{"jsonrpc":"2.0","id":9,"method":"a.b.c.d","params":[]}`, -32600, "9"},
		{"no route", `{"jsonrpc":"2.0","id":9,"method":"nowhere.method","params":[]}`, -32601, "9"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := p.post(tc.body)
			if r.status != http.StatusOK {
				t.Errorf("HTTP %d, want 200", r.status)
			}
			got := r.single(t)
			if c := got.errCode(t); c != tc.code {
				t.Errorf("code %d, want %d (%s)", c, tc.code, r.body)
			}
			if !bytes.Equal(got.ID, []byte(tc.id)) {
				t.Errorf("id %s, want %s", got.ID, tc.id)
			}
		})
	}
}
