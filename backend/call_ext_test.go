package backend_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

func TestCallForwardsParamsByteForByte(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t, resultHandler(`true`))
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	testCases := []struct {
		name   string
		params json.RawMessage
	}{
		{"empty object", json.RawMessage(`{}`)},
		{"empty array", json.RawMessage(`[]`)},
		{"slashes", json.RawMessage(`["hive.blog/@gtg/x","a\/b"]`)},
		{"non-ASCII", json.RawMessage(`["gtg","żółć 日本語 🐝"]`)},
		{"html characters", json.RawMessage(`{"q":"<script>&amp;</script>"}`)},
		{"escaped unicode", json.RawMessage(`["\u003c\u00e9\ud83d\udc1d\u2028"]`)},
		{"odd spacing", json.RawMessage("[ 1 ,\n\t2 ]")},
		{"big numbers", json.RawMessage(`[340282366920938463463374607431768211455,-9223372036854775808,1.50e300]`)},
		{"nested", json.RawMessage(`{"a":{"b":[{"c":null,"d":false}]}}`)},
	}
	for _, tc := range testCases {
		resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "condenser_api.get_block", Params: tc.params})
		if err != nil {
			t.Fatalf("%s: Call: %v", tc.name, err)
		}
		got := node.lastBody()
		var sent struct {
			ID string `json:"id"` // the pool's random id, as a string of digits
		}
		if err := json.Unmarshal(got, &sent); err != nil {
			t.Fatalf("%s: body %q: %v", tc.name, got, err)
		}
		if _, err := strconv.ParseUint(sent.ID, 10, 64); err != nil {
			t.Fatalf("%s: id %q is not a 64-bit number: %v", tc.name, sent.ID, err)
		}
		want := `{"jsonrpc":"2.0","id":"` + sent.ID +
			`","method":"condenser_api.get_block","params":` + string(tc.params) + `}`
		mustBytes(t, tc.name+": body received", got, want)
		mustBytes(t, tc.name+": result", resp.Result, `true`)
	}
}

func TestCallWithoutParamsOmitsMember(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t, resultHandler(`[]`))
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	if _, err := pool.Call(context.Background(), "hived", backend.Request{Method: "jsonrpc.get_methods"}); err != nil {
		t.Fatalf("Call: %v", err)
	}
	var sent map[string]json.RawMessage
	if err := json.Unmarshal(node.lastBody(), &sent); err != nil {
		t.Fatal(err)
	}
	if _, ok := sent["params"]; ok || len(sent) != 3 {
		t.Errorf("body %s: want exactly jsonrpc, id, method", node.lastBody())
	}
}

func TestCallReturnsResultBytesExactly(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name   string
		result string
	}{
		{"spacing and escapes kept", `{ "a" : [1, 2.50, "\u00e9\/"] ,"big":340282366920938463463374607431768211455}`},
		{"null result", `null`},
		{"string", `"ok"`},
		{"invalid UTF-8 passes through", "\"\xff\xfe\""},
		{"html", `"<b>&amp;</b>"`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newFakeNode(t, resultHandler(tc.result))
			pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
			resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Params: json.RawMessage(`[]`)})
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			mustBytes(t, "result", resp.Result, tc.result)
			if resp.Error != nil || resp.Attempts != 1 || resp.Backend != "hived" {
				t.Errorf("response %+v: want no error, 1 attempt, backend hived", resp)
			}
		})
	}
}

func TestCallIDMatching(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name   string
		id     func(sent json.RawMessage) string
		wantOK bool
	}{
		{"the string sent", func(id json.RawMessage) string { return string(id) }, true},
		{"its number", func(id json.RawMessage) string { return strings.Trim(string(id), `"`) }, true},
		{"its number with a fraction", func(id json.RawMessage) string { return strings.Trim(string(id), `"`) + ".0" }, false},
		{"another number", func(id json.RawMessage) string { return strings.Trim(string(id), `"`) + "1" }, false},
		{"another string", func(json.RawMessage) string { return `"abc"` }, false},
		{"null with a result", func(json.RawMessage) string { return `null` }, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
				answer(w, json.RawMessage(tc.id(req.ID)), "result", `1`)
			})
			pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
			resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Retries: 3})
			if tc.wantOK {
				if err != nil {
					t.Fatalf("Call: %v", err)
				}
				mustBytes(t, "result", resp.Result, `1`)
				return
			}
			gatewayError(t, err, jsonrpc.KindInvalidUpstreamResponse)
			if n := node.hits.Load(); n != 1 {
				t.Errorf("backend saw %d requests, want 1 (no retry of a wrong id)", n)
			}
		})
	}
}

func TestCallPassesBackendErrorThrough(t *testing.T) {
	t.Parallel()
	const raw = `{"code":-32003,"message":"Assert Exception:false: Account \u003cx\u003e not found","data":{"code":10,"name":"assert_exception","stack":[]}}`
	node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		answer(w, req.ID, "error", raw)
	})
	pool := newPool(t, backend.Options{FailThreshold: 1}, map[string]string{"hived": node.srv.URL})
	resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Retries: 3})
	if err != nil {
		t.Fatalf("Call: %v (a JSON-RPC error is an answer, not a Go error)", err)
	}
	if resp.Error == nil || resp.Result != nil {
		t.Fatalf("response %+v: want Error set and no Result", resp)
	}
	mustBytes(t, "error object", resp.Error.Raw, raw)
	if resp.Error.Code != -32003 || resp.Error.Kind != "" {
		t.Errorf("error code %d kind %q, want -32003 and no gateway kind", resp.Error.Code, resp.Error.Kind)
	}
	if n := node.hits.Load(); n != 1 || resp.Attempts != 1 {
		t.Errorf("backend saw %d requests, %d attempts; want 1 (no retry of a JSON-RPC error)", n, resp.Attempts)
	}
	if !pool.Healthy("hived") {
		t.Error("a JSON-RPC error answer marked the backend down")
	}
}

func TestCallUnknownBackend(t *testing.T) {
	t.Parallel()
	pool := newPool(t, backend.Options{}, map[string]string{})
	_, err := pool.Call(context.Background(), "nope", backend.Request{Method: "m"})
	gatewayError(t, err, jsonrpc.KindInternal)
}

func TestNewRejectsBadURLs(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name string
		urls map[string]string
	}{
		{"no scheme", map[string]string{"hived": "127.0.0.1:8090"}},
		{"ftp scheme", map[string]string{"hived": "ftp://127.0.0.1:8090"}},
		{"no host", map[string]string{"hived": "http:///x"}},
		{"empty name", map[string]string{"": "http://127.0.0.1:8090"}},
		{"unparsable", map[string]string{"hived": "http://[::1"}},
	}
	for _, tc := range testCases {
		if _, err := backend.New(tc.urls, backend.Options{}, nil); err == nil {
			t.Errorf("%s: New accepted %v", tc.name, tc.urls)
		}
	}
	p, err := backend.New(map[string]string{"b": "https://api.example/x", "a": "http://h:1"}, backend.DefaultOptions(), nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if got := p.Names(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Names() = %v, want [a b]", got)
	}
}

func TestCallResultsDoNotShareBuffers(t *testing.T) {
	t.Parallel()
	sizes := []int{10, 5000, 20_000, 300_000, 2 << 20, 7}
	node := newFakeNode(t, func(n *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		i := int(n.hits.Load()) - 1
		if i%2 == 1 {
			// Odd calls stream without Content-Length.
			defer http.NewResponseController(w).Flush()
		}
		answer(w, req.ID, "result", `"`+strings.Repeat(string(rune('a'+i)), sizes[i])+`"`)
	})
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	var results []json.RawMessage
	for range sizes {
		resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m"})
		if err != nil {
			t.Fatalf("Call: %v", err)
		}
		results = append(results, resp.Result)
	}
	for i, r := range results {
		mustBytes(t, "result "+strconv.Itoa(i), r, `"`+strings.Repeat(string(rune('a'+i)), sizes[i])+`"`)
	}
}

func TestCallAcceptsAny2xx(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":7}`)
	})
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m"})
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	mustBytes(t, "result", resp.Result, `7`)
}
