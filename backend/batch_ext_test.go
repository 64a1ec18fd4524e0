package backend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// batchNode is a node that takes JSON-RPC batches as hived does. It answers
// each call with its params as the result, or with a JSON-RPC error when
// the method is "fail"; refuse decides how it treats a batch body instead.
type batchNode struct {
	srv *httptest.Server
	mu  sync.Mutex
	// requests holds the size of each HTTP request: 0 for a single call,
	// n for a batch of n.
	requests []int
}

// refuseFunc answers a batch itself (returning true) instead of the node.
type refuseFunc func(w http.ResponseWriter, calls []rpcRequest) bool

func newBatchNode(t testing.TB, refuse refuseFunc) *batchNode {
	t.Helper()
	n := &batchNode{}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var calls []rpcRequest
		single := len(body) > 0 && body[0] == '{'
		if single {
			var c rpcRequest
			_ = json.Unmarshal(body, &c)
			calls = []rpcRequest{c}
		} else if err := json.Unmarshal(body, &calls); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n.mu.Lock()
		if single {
			n.requests = append(n.requests, 0)
		} else {
			n.requests = append(n.requests, len(calls))
		}
		n.mu.Unlock()
		if !single && refuse != nil && refuse(w, calls) {
			return
		}
		answers := make([]string, len(calls))
		for i, c := range calls {
			if c.Method == "fail" {
				answers[i] = `{"jsonrpc":"2.0","id":` + string(c.ID) + `,"error":{"code":-32000,"message":"no"}}`
			} else {
				answers[i] = `{"jsonrpc":"2.0","id":` + string(c.ID) + `,"result":` + string(c.Params) + `}`
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if single {
			_, _ = io.WriteString(w, answers[0])
			return
		}
		slices.Reverse(answers) // any order: answers are matched by id
		_, _ = io.WriteString(w, "["+strings.Join(answers, ",")+"]")
	}))
	t.Cleanup(n.srv.Close)
	return n
}

// seen returns the sizes of the HTTP requests the node got (0: single).
func (n *batchNode) seen() []int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.requests)
}

// calls returns n requests for method m whose params tell them apart.
func calls(n int, method string) []backend.Request {
	reqs := make([]backend.Request, n)
	for i := range reqs {
		reqs[i] = backend.Request{Method: method, Params: json.RawMessage(fmt.Sprintf(`[%d]`, i)), Timeout: 5 * time.Second}
	}
	return reqs
}

// checkEach checks that every call got its own result (params echoed).
func checkEach(t *testing.T, reqs []backend.Request, resps []backend.Response, errs []error) {
	t.Helper()
	for i := range reqs {
		if errs[i] != nil || string(resps[i].Result) != string(reqs[i].Params) {
			t.Errorf("call %d: %v %s, want result %s", i, errs[i], resps[i].Result, reqs[i].Params)
		}
	}
}

// TestCallBatch shows calls sent as one JSON-RPC batch: one HTTP request
// for n calls, answers matched by id whatever their order, each call's
// JSON-RPC error its own, and a result prefix kept per call.
func TestCallBatch(t *testing.T) {
	t.Parallel()
	node := newBatchNode(t, nil)
	pool := newPool(t, backend.Options{}, map[string]string{"n": node.srv.URL})
	reqs := calls(5, "m")
	reqs[2].Method = "fail"
	reqs[3].ResultPrefix = "key:"
	resps, errs := pool.CallBatch(context.Background(), "n", reqs)
	if got := node.seen(); !slices.Equal(got, []int{5}) {
		t.Fatalf("HTTP requests %v, want one batch of 5", got)
	}
	for i := range reqs {
		switch {
		case errs[i] != nil:
			t.Errorf("call %d: %v", i, errs[i])
		case i == 2:
			if resps[i].Error == nil || resps[i].Result != nil || !strings.Contains(string(resps[i].Error.AppendJSON(nil)), `"no"`) {
				t.Errorf("call 2: result %s, error %v; want its JSON-RPC error", resps[i].Result, resps[i].Error)
			}
		case string(resps[i].Result) != string(reqs[i].Params):
			t.Errorf("call %d: result %s, want %s", i, resps[i].Result, reqs[i].Params)
		}
	}
	if string(resps[3].Buffer) != "key:[3]" {
		t.Errorf("call 3's buffer %q, want the prefix then the result", resps[3].Buffer)
	}
}

// TestCallBatchFallsBack shows a node that does not answer a batch as a
// whole getting its calls one by one. A batch the node refused as such
// (HTTP 4xx, an error to the whole batch) cost its calls nothing: they go
// one by one even without retries. Any other failed batch was one attempt
// of each call: its calls go one by one only with a retry left, and
// without one report the batch's failure, so that no call reaches the
// node more than 1 + retries times.
func TestCallBatchFallsBack(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name    string
		refused bool // refused as a batch
		refuse  refuseFunc
	}{
		{"HTTP 400", true, func(w http.ResponseWriter, _ []rpcRequest) bool {
			http.Error(w, "batches not supported", http.StatusBadRequest)
			return true
		}},
		{"HTTP 500", false, func(w http.ResponseWriter, _ []rpcRequest) bool {
			http.Error(w, "oops", http.StatusInternalServerError)
			return true
		}},
		{"an error object, not an array", true, func(w http.ResponseWriter, _ []rpcRequest) bool {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`)
			return true
		}},
		{"an answer missing", false, func(w http.ResponseWriter, calls []rpcRequest) bool {
			_, _ = io.WriteString(w, `[{"jsonrpc":"2.0","id":`+string(calls[0].ID)+`,"result":1}]`)
			return true
		}},
		{"an id twice", false, func(w http.ResponseWriter, calls []rpcRequest) bool {
			a := `{"jsonrpc":"2.0","id":` + string(calls[0].ID) + `,"result":1}`
			_, _ = io.WriteString(w, "["+strings.Repeat(a+",", len(calls)-1)+a+"]")
			return true
		}},
		{"over the size cap", false, func(w http.ResponseWriter, _ []rpcRequest) bool {
			_, _ = io.WriteString(w, `["`+strings.Repeat("x", 4096)+`"]`)
			return true
		}},
	}
	for _, tc := range testCases {
		for _, retries := range []int{0, 1} {
			t.Run(tc.name+"/retries "+strconv.Itoa(retries), func(t *testing.T) {
				t.Parallel()
				node := newBatchNode(t, tc.refuse)
				pool := newPool(t, backend.Options{MaxResponseBytes: 2048}, map[string]string{"n": node.srv.URL})
				reqs := calls(3, "m")
				for i := range reqs {
					reqs[i].Retries = retries
				}
				resps, errs := pool.CallBatch(context.Background(), "n", reqs)
				if tc.refused || retries > 0 {
					checkEach(t, reqs, resps, errs)
					if got := node.seen(); !slices.Equal(got, []int{3, 0, 0, 0}) {
						t.Errorf("HTTP requests %v, want the batch of 3 then 3 single calls", got)
					}
					return
				}
				for i, err := range errs {
					if err == nil || resps[i].Attempts != 1 {
						t.Errorf("call %d: %v after %d attempts, want the batch's failure after 1", i, err, resps[i].Attempts)
					}
				}
				if got := node.seen(); !slices.Equal(got, []int{3}) {
					t.Errorf("HTTP requests %v, want the batch of 3 only (no retry left)", got)
				}
			})
		}
	}
}

// TestCallBatchBroadcastsAlone shows that calls that must not reach the
// node twice are never put in a batch.
func TestCallBatchBroadcastsAlone(t *testing.T) {
	t.Parallel()
	node := newBatchNode(t, nil)
	pool := newPool(t, backend.Options{}, map[string]string{"n": node.srv.URL})
	reqs := calls(4, "m")
	reqs[1].Once = true
	resps, errs := pool.CallBatch(context.Background(), "n", reqs)
	checkEach(t, reqs, resps, errs)
	got := node.seen()
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 3}) {
		t.Errorf("HTTP requests %v, want a batch of 3 and the broadcast alone", got)
	}
}

// TestCallBatchTimeout shows that a batch that runs out of time reports
// the timeout for each call rather than making them one by one.
func TestCallBatchTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	node := newBatchNode(t, func(http.ResponseWriter, []rpcRequest) bool {
		<-release
		return true
	})
	t.Cleanup(func() { close(release) }) // before the node's Close (cleanups run last first)
	pool := newPool(t, backend.Options{}, map[string]string{"n": node.srv.URL})
	reqs := calls(3, "m")
	for i := range reqs {
		reqs[i].Timeout = 100 * time.Millisecond
	}
	_, errs := pool.CallBatch(context.Background(), "n", reqs)
	for i, err := range errs {
		gatewayError(t, err, jsonrpc.KindUpstreamTimeout)
		if i == 0 && !strings.Contains(err.Error(), "did not answer within 100ms") {
			t.Errorf("error %v", err)
		}
	}
	if got := node.seen(); !slices.Equal(got, []int{3}) {
		t.Errorf("HTTP requests %v, want only the batch", got)
	}
}
