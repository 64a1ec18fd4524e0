package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestProxyUpstreamFailures(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.on("slow_api.wait", func(w http.ResponseWriter, r *http.Request, req nodeRequest) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * hangGuard):
			replyResult(w, req, `"too late"`)
		}
	})
	node.on("fail_api.html", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>502 Bad Gateway</body></html>")
	})
	node.on("fail_api.status500", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		http.Error(w, "internal error at "+node.srv.URL, http.StatusInternalServerError)
	})
	node.on("fail_api.wrong_id", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		fmt.Fprint(w, `{"jsonrpc":"2.0","result":1,"id":999999}`)
	})
	node.on("fail_api.neither", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s}`, req.ID)
	})
	node.on("fail_api.truncated", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"a":`, req.ID)
	})
	var flaky atomic.Int64
	node.on("flaky_api.get", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		if flaky.Add(1) <= 2 {
			http.Error(w, "try again", http.StatusServiceUnavailable)
			return
		}
		replyResult(w, req, `"third time lucky"`)
	})
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)

	cases := []struct {
		name, method string
		code         int    // 0: a result
		status       int    // HTTP status of the single answer
		kind         string // data.name of a gateway error
		calls        int    // upstream calls
		// resend: one more call is allowed. An answer to another request
		// on a kept-alive connection may be bytes an earlier exchange left
		// there: the call is sent once more, on a connection of its own.
		resend bool
	}{
		{"route timeout", "slow_api.wait", -32010, http.StatusGatewayTimeout, "upstream_timeout", 1, false},
		{"HTML answer", "fail_api.html", -32012, http.StatusBadGateway, "invalid_upstream_response", 1, false},
		{"HTTP 500", "fail_api.status500", -32011, http.StatusBadGateway, "upstream_unavailable", 1, false},
		{"wrong id", "fail_api.wrong_id", -32012, http.StatusBadGateway, "invalid_upstream_response", 1, true},
		{"neither result nor error", "fail_api.neither", -32012, http.StatusBadGateway, "invalid_upstream_response", 1, false},
		{"truncated", "fail_api.truncated", -32012, http.StatusBadGateway, "invalid_upstream_response", 1, false},
		{"503 twice then OK with retries 2", "flaky_api.get", 0, http.StatusOK, "", 3, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := p.post(call("11", tc.method, `[]`))
			elapsed := time.Since(start)
			got := r.single(t)
			if c := got.errCode(t); c != tc.code {
				t.Fatalf("code %d, want %d: %s", c, tc.code, r.body)
			}
			if r.status != tc.status {
				t.Errorf("HTTP %d, want %d", r.status, tc.status)
			}
			if e := got.err(t); e.Data.Name != tc.kind {
				t.Errorf("data.name %q, want %q", e.Data.Name, tc.kind)
			}
			if string(got.ID) != "11" {
				t.Errorf("id %s, want 11", got.ID)
			}
			if c := node.count(tc.method); c != tc.calls && !(tc.resend && c == tc.calls+1) {
				t.Errorf("%d upstream calls, want %d", c, tc.calls)
			}
			if tc.code == 0 && string(got.Result) != `"third time lucky"` {
				t.Errorf("result %s", got.Result)
			}
			// A hang guard, not a speed claim: the 1 s route timeout must
			// end the call long before the node's own 15 s.
			if tc.code == -32010 && elapsed > time.Second+2*time.Second {
				t.Errorf("timeout answer after %v, route timeout 1s", elapsed)
			}
		})
	}
}

func TestProxyBackendDown(t *testing.T) {
	t.Parallel()
	down := closedURL(t)
	p := &proxy{t: t, secrets: []string{"127.0.0.1", down, strings.TrimPrefix(down, "http://")}}
	p.start(strings.ReplaceAll(proxyConfig, "{{hived}}", down), false)
	for _, method := range []string{"test_api.echo", "flaky_api.get", "network_broadcast_api.broadcast_transaction"} {
		r := p.post(call("1", method, `[]`))
		got := r.single(t)
		if c := got.errCode(t); c != -32011 {
			t.Errorf("%s: code %d, want -32011: %s", method, c, r.body)
		}
		if r.status != http.StatusBadGateway {
			t.Errorf("%s: HTTP %d, want 502", method, r.status)
		}
	}
}

func TestProxyBroadcast(t *testing.T) {
	t.Parallel()
	methods := []string{"network_broadcast_api.broadcast_transaction", "condenser_api.broadcast_transaction"}
	// A signed transaction: the node must get these bytes exactly.
	const tx = `[{"ref_block_num":1097,"ref_block_prefix":2181793527,"expiration":"2016-03-24T18:00:21","operations":[["vote",{"voter":"hiveio","author":"alice","permlink":"a-post","weight":10000}]],"extensions":[],"signatures":["1f3b" ]}]`

	t.Run("never retried", func(t *testing.T) {
		t.Parallel()
		node := newFakeNode(t)
		for _, m := range methods {
			node.on(m, func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
				http.Error(w, "busy", http.StatusServiceUnavailable)
			})
		}
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		for _, m := range methods {
			got := p.post(call("1", m, tx)).single(t)
			if c := got.errCode(t); c != -32011 {
				t.Errorf("%s: code %d, want -32011", m, c)
			}
			if c := node.count(m); c != 1 {
				t.Errorf("%s: %d upstream calls with retries configured, want 1", m, c)
			}
		}
	})

	t.Run("never cached", func(t *testing.T) {
		t.Parallel()
		node := newFakeNode(t)
		for _, m := range methods {
			node.result(m, `{}`)
		}
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		for _, m := range methods {
			for i := range 3 {
				r := p.post(call(strconv.Itoa(i), m, tx))
				if got := r.single(t); string(got.Result) != `{}` {
					t.Errorf("%s: %s", m, r.body)
				}
				if r.cache() != "bypass" {
					t.Errorf("%s: x-hivegate-cache %q, want bypass", m, r.cache())
				}
			}
			if c := node.count(m); c != 3 {
				t.Errorf("%s: %d upstream calls for 3 requests, want 3", m, c)
			}
			reqs := node.requests(m)
			if !bytes.Equal(reqs[0].Params, []byte(tx)) {
				t.Errorf("%s: transaction bytes changed:\n sent %s\n node %s", m, tx, reqs[0].Params)
			}
		}
	})

	t.Run("never coalesced", func(t *testing.T) {
		t.Parallel()
		const clients = 3
		node := newFakeNode(t)
		// Each request waits until all clients' requests have reached the
		// node: coalescing would leave it waiting and fail.
		var arrived atomic.Int64
		all := make(chan struct{})
		node.on(methods[0], func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
			if arrived.Add(1) == clients {
				close(all)
			}
			select {
			case <-all:
				replyResult(w, req, `{"id":"abc","block_num":1,"trx_num":0,"expired":false}`)
			case <-time.After(hangGuard):
				replyError(w, req, `{"code":-1,"message":"broadcasts were coalesced"}`)
			}
		})
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				r := p.post(call(strconv.Itoa(i), methods[0], tx))
				if got := r.single(t); got.Error != nil || r.cache() != "bypass" {
					t.Errorf("client %d: %q %s", i, r.cache(), r.body)
				}
			})
		}
		wg.Wait()
		if c := node.count(methods[0]); c != clients {
			t.Errorf("%d upstream calls, want %d", c, clients)
		}
	})
}

func TestProxyBackendErrorPassthrough(t *testing.T) {
	t.Parallel()
	// hived's answer to a block number it cannot parse, with its own
	// spacing and member order: it must reach the client byte for byte.
	const hivedErr = `{"code":-32000,"message":"Parse Error:Couldn't parse uint64_t","data":{"code":4,"name":"parse_error_exception","message":"Parse Error","stack":[{"context":{"level":"error","file":"string.cpp","line":113,"method":"to_uint64","hostname":"","timestamp":"2018-05-21T18:02:41"},"format":"Couldn't parse uint64_t","data":{}},{"context":{"level":"warn","file":"string.cpp","line":116,"method":"to_uint64","hostname":"","timestamp":"2018-05-21T18:02:41"},"format":"","data":{"i":"WRONG"}}]}}`
	cases := []struct{ name, errObj string }{
		{"hived parse_error_exception", hivedErr},
		{"odd spacing", "{ \"message\" : \"Parse Error:Couldn't parse uint64_t\" ,\n \"code\":-32000 }"},
		{"HAfAH without data", `{"code":-32000,"message":"Parse Error:Couldn't parse uint64_t"}`},
		{"non-ASCII and escapes", `{"code":-32003,"message":"Assert Exception:\u00e9 <é> & \"q\"","data":{"code":10}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newFakeNode(t)
			node.on("condenser_api.get_block", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
				replyError(w, req, tc.errObj)
			})
			p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
			for _, id := range []string{`1`, `"s"`} {
				r := p.post(call(id, "condenser_api.get_block", `["WRONG"]`))
				got := r.single(t)
				if !bytes.Equal(got.Error, []byte(tc.errObj)) {
					t.Errorf("error object changed:\n node   %s\n client %s", tc.errObj, got.Error)
				}
				if string(got.ID) != id {
					t.Errorf("id %s, want %s", got.ID, id)
				}
				if r.status != http.StatusOK {
					t.Errorf("HTTP %d, want 200 as hived answers", r.status)
				}
			}
			if c := node.count("condenser_api.get_block"); c != 2 {
				t.Errorf("%d upstream calls, want 2 (errors are not cached)", c)
			}
		})
	}
}

func TestProxyHealth(t *testing.T) {
	t.Parallel()
	t.Run("ok", func(t *testing.T) {
		t.Parallel()
		node := newFakeNode(t)
		node.lib.Store(1000)
		node.nowHead.Store(1020) // a fresh head block
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		p.gw.Dispatcher().Pool().Probe(t.Context())
		status, h := getHealth(t, p)
		if status != http.StatusOK {
			t.Errorf("HTTP %d, want 200", status)
		}
		nodes, _ := h["nodes"].([]any)
		if len(nodes) != 1 {
			t.Fatalf("health %v, want one node", h)
		}
		n, _ := nodes[0].(map[string]any)
		delete(n, "head_block_time")
		delete(n, "head_block_age_seconds")
		delete(h, "nodes")
		want := map[string]any{"status": "OK", "version": proxyVersion, "operator_message": "proxy test gateway"}
		wantNode := map[string]any{"backend": "hived", "node": 1.0, "up": true, "in_service": true, "kind": "hived", "head_block": 1020.0, "last_irreversible_block": 1000.0}
		if fmt.Sprint(h) != fmt.Sprint(want) || fmt.Sprint(n) != fmt.Sprint(wantNode) {
			t.Errorf("health %v %v, want %v %v", h, n, want, wantNode)
		}
	})
	t.Run("no backend reachable", func(t *testing.T) {
		t.Parallel()
		down := closedURL(t)
		p := &proxy{t: t, secrets: []string{"127.0.0.1", down, strings.TrimPrefix(down, "http://")}}
		p.start(strings.ReplaceAll(proxyConfig, "{{hived}}", down), false)
		// Health is learnt from calls: a fresh gateway has no evidence yet.
		// Each failed call counts; after a few the backend is down.
		for i := 0; i < 20; i++ {
			r := p.post(call("1", "test_api.echo", `[]`))
			if c := r.single(t).errCode(t); c != -32011 {
				t.Fatalf("call to a closed port: code %d, want -32011", c)
			}
			if status, _ := getHealth(t, p); status == http.StatusServiceUnavailable {
				break
			}
		}
		status, h := getHealth(t, p)
		if status != http.StatusServiceUnavailable || h["status"] == "OK" {
			t.Errorf("health with no reachable backend: HTTP %d %v, want 503 and a status other than OK", status, h)
		}
		if h["version"] != proxyVersion {
			t.Errorf("version %q, want %q", h["version"], proxyVersion)
		}
	})
}

// getHealth fetches GET / and decodes it.
func getHealth(t *testing.T, p *proxy) (int, map[string]any) {
	t.Helper()
	resp, err := p.srv.Client().Get(p.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	p.checkNoLeak(reply{status: resp.StatusCode, header: resp.Header, body: b})
	var h map[string]any
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatalf("health %q: %v", b, err)
	}
	return resp.StatusCode, h
}
