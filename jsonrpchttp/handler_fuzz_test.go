package jsonrpchttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// startCaller is echoCaller answering as the dispatcher does: methods
// starting with "c" in place (as cache hits are), the others concurrently
// (as upstream calls are).
type startCaller struct{ echoCaller }

func (c *startCaller) Serve(ctx context.Context, h *dispatch.Hooks, calls []dispatch.Call, results []dispatch.Result) {
	var wg sync.WaitGroup
	for i := range calls {
		if strings.HasPrefix(calls[i].UpstreamMethod, "c") {
			c.echoCaller.Serve(ctx, h, calls[i:i+1], results[i:i+1])
			continue
		}
		wg.Go(func() { c.echoCaller.Serve(ctx, h, calls[i:i+1], results[i:i+1]) })
	}
	wg.Wait()
}

// echoRouter parses methods as echoCaller's router does.
var echoRouter = new(echoCaller).Router()

const fuzzMaxBatch = 8

// FuzzHandlerBatch sends arbitrary bodies through the JSON-RPC handler in
// front of an in-memory Caller and checks the answer against what
// encoding/json reads from the body: the answer is always valid JSON; a
// batch of n (1..max) elements gets an array of n answers in order, each
// with its request's id exactly as sent (null when unreadable) and, for a
// valid request, its own result; bodies that are not JSON, empty or
// oversized batches and too-deep bodies get one error object (too deep
// wins over invalid when the body reaches the limit before it breaks).
func FuzzHandlerBatch(f *testing.F) {
	// More seeds are in testdata/fuzz/FuzzHandlerBatch.
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"m","params":[1]},{"jsonrpc":"2.0","id":"x","method":"cache_hit"}]`), false)
	f.Add([]byte(`[{"jsonrpc":"2.0","id":null,"method":"fail"},7,{"id":2.5}]`), true)
	f.Fuzz(func(t *testing.T, body []byte, starter bool) {
		var caller jsonrpchttp.Dispatcher = &echoCaller{}
		if starter {
			caller = &startCaller{}
		}
		h := jsonrpchttp.NewHandler(caller, jsonrpchttp.HandlerOptions{MaxBatch: fuzzMaxBatch})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		out := w.Body.Bytes()
		if !json.Valid(out) {
			t.Fatalf("answer is not JSON: %q", out)
		}
		var elems []json.RawMessage
		isArray := json.Unmarshal(body, &elems) == nil && bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("["))
		wantWhole := func(code int) {
			t.Helper()
			var r struct {
				ID    json.RawMessage
				Error *struct{ Code int }
			}
			if err := json.Unmarshal(out, &r); err != nil || r.Error == nil || r.Error.Code != code || string(r.ID) != "null" {
				t.Fatalf("body %q: answer %s, want one error %d with id null", body, out, code)
			}
		}
		switch {
		case tooDeepFirst(body, jsonrpc.DefaultMaxDepth):
			wantWhole(-32014)
		case !json.Valid(body):
			wantWhole(-32700)
		case isArray && len(elems) == 0:
			wantWhole(-32600)
		case isArray && len(elems) > fuzzMaxBatch:
			wantWhole(-32013)
		case isArray:
			if w.Code != http.StatusOK {
				t.Fatalf("batch answered HTTP %d", w.Code)
			}
			var answers []json.RawMessage
			if err := json.Unmarshal(out, &answers); err != nil || len(answers) != len(elems) {
				t.Fatalf("batch of %d: answer %s", len(elems), out)
			}
			for i := range elems {
				checkAnswer(t, i, elems[i], answers[i])
			}
		default:
			if bytes.HasPrefix(out, []byte("[")) {
				t.Fatalf("single request answered with an array: %s", out)
			}
			checkAnswer(t, 0, body, out)
		}
	})
}

// checkAnswer checks one answer against its request element.
func checkAnswer(t *testing.T, i int, req, answer json.RawMessage) {
	t.Helper()
	var a map[string]json.RawMessage
	if err := json.Unmarshal(answer, &a); err != nil {
		t.Fatalf("element %d: answer %s is not an object", i, answer)
	}
	_, hasResult := a["result"]
	_, hasError := a["error"]
	if hasResult == hasError || string(a["jsonrpc"]) != `"2.0"` {
		t.Fatalf("element %d: answer %s", i, answer)
	}
	var m map[string]json.RawMessage
	isObj := json.Unmarshal(req, &m) == nil && bytes.HasPrefix(bytes.TrimLeft(req, " \t\r\n"), []byte("{"))
	wantID := "null"
	if id, ok := m["id"]; isObj && ok && validID(id) {
		wantID = string(id)
	}
	if string(a["id"]) != wantID {
		t.Fatalf("element %d: id %s, want %s (request %s)", i, a["id"], wantID, req)
	}
	if !isObj || !hasResult {
		if hasResult {
			t.Fatalf("element %d: a result for a request that is not an object: %s", i, req)
		}
		return
	}
	// A result belongs to its own request: the echo of the call the router
	// makes of it (the method and params sent upstream).
	var method string
	if json.Unmarshal(m["method"], &method) != nil || method == "" || method == "fail" {
		t.Fatalf("element %d: result %s for request %s", i, answer, req)
	}
	params, ok := m["params"]
	call, err := echoRouter.Parse(method, params)
	if err != nil {
		t.Fatalf("element %d: result %s for a method the router refuses (%v)", i, answer, err)
	}
	var res struct {
		M string          `json:"m"`
		P json.RawMessage `json:"p"`
	}
	if err := json.Unmarshal(a["result"], &res); err != nil || res.M != call.UpstreamMethod {
		t.Fatalf("element %d: result %s for method %q", i, a["result"], method)
	}
	want := call.UpstreamParams
	if !ok || len(want) == 0 {
		want = json.RawMessage("null")
	}
	if !bytes.Equal(res.P, want) {
		t.Fatalf("element %d: result params %s, request params %s", i, res.P, params)
	}
}

// tooDeepFirst reports whether body, read from the start, is valid JSON up
// to a container opened deeper than maxDepth (the prefix up to that
// bracket, with the open containers closed, is valid to encoding/json):
// such a body is too deep, whatever follows.
func tooDeepFirst(body []byte, maxDepth int) bool {
	var open []byte
	inString := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if open = append(open, c); len(open) > maxDepth {
				prefix := append([]byte(nil), body[:i+1]...)
				for j := len(open) - 1; j >= 0; j-- {
					prefix = append(prefix, open[j]+2) // '[' → ']', '{' → '}'
				}
				return json.Valid(prefix)
			}
		case c == ']' || c == '}':
			if len(open) == 0 {
				return false
			}
			open = open[:len(open)-1]
		}
	}
	return false
}

// validID is the JSON-RPC id rule, written independently of the parser
// (jsonrpc's FuzzParseBody checks the parser against the same rule).
func validID(id []byte) bool {
	if !json.Valid(id) {
		return false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return false
	}
	switch x := v.(type) {
	case nil, string:
		return true
	case json.Number:
		return !bytes.ContainsAny([]byte(x), ".eE")
	}
	return false
}
