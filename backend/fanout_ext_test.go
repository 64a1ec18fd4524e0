package backend_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// Node behaviours for the fan-out tests.
const (
	accepts   = "accepts"   // {} (hived's answer to broadcast_transaction)
	duplicate = "duplicate" // hived's duplicate transaction error
	refuses   = "refuses"   // a missing authority error
	fails500  = "500"       // HTTP 500: retried for other calls, never here
	hangs     = "hangs"     // no answer until the call's timeout
	down      = "down"      // nothing listens
)

const (
	duplicateErr = `{"code":-32000,"message":"transaction exception:Duplicate transaction check failed","data":{}}`
	authorityErr = `{"code":-32000,"message":"missing required posting authority:Missing Posting Authority alice","data":{}}`
)

// broadcastNode is a loopback node that answers a broadcast as kind says.
func broadcastNode(t *testing.T, kind string) (url string, node *fakeNode) {
	t.Helper()
	if kind == down {
		return refusedURL(t), nil
	}
	n := newFakeNode(t, func(n *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		switch kind {
		case accepts:
			answer(w, req.ID, "result", `{}`)
		case duplicate:
			answer(w, req.ID, "error", duplicateErr)
		case refuses:
			answer(w, req.ID, "error", authorityErr)
		case fails500:
			http.Error(w, "busy", http.StatusInternalServerError)
		case hangs:
			<-n.release
		}
	})
	return n.srv.URL, n
}

// TestCallAll: a broadcast goes to every node of the backend at once, each
// node gets it exactly once whatever it answers (never retried, not even
// after a 500 or a node down), and the caller gets one answer: accepted
// when any node accepted, a node's refusal when none did (not a
// duplicate, when another refusal says more), a gateway error without any
// node address when no node answered.
func TestCallAll(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		nodes   []string
		result  string       // the result, when accepted
		refusal string       // the JSON-RPC error's message, when refused
		kind    jsonrpc.Kind // the gateway error, when no node answered
	}{
		{name: "every node accepts", nodes: []string{accepts, accepts, accepts}, result: `{}`},
		{name: "one node down", nodes: []string{down, accepts, accepts}, result: `{}`},
		{name: "a 500 is not retried", nodes: []string{fails500, accepts}, result: `{}`},
		{name: "duplicate after an acceptance", nodes: []string{duplicate, accepts}, result: `{}`},
		{name: "one refuses, one accepts", nodes: []string{refuses, accepts}, result: `{}`},
		{name: "a node that hangs", nodes: []string{accepts, hangs}, result: `{}`},
		{name: "every node refuses", nodes: []string{refuses, refuses}, refusal: "Missing Posting Authority"},
		{name: "a refusal says more than a duplicate", nodes: []string{duplicate, refuses, down}, refusal: "Missing Posting Authority"},
		{name: "only duplicates", nodes: []string{duplicate, duplicate}, refusal: "Duplicate transaction"},
		{name: "every node down", nodes: []string{down, down, fails500}, kind: jsonrpc.KindUpstreamUnavailable},
		{name: "every node silent", nodes: []string{hangs, down}, kind: jsonrpc.KindUpstreamTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			urls := make([]string, len(tc.nodes))
			fakes := make([]*fakeNode, len(tc.nodes))
			for i, kind := range tc.nodes {
				urls[i], fakes[i] = broadcastNode(t, kind)
			}
			pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": urls})
			resp, err := pool.CallAll(callCtx, "hived", backend.Request{
				Method:  "network_broadcast_api.broadcast_transaction",
				Params:  []byte(`{"trx":{"ref_block_num":1}}`),
				Timeout: 500 * time.Millisecond,
				Retries: 3, // ignored: a broadcast is sent once per node
			})
			for i, f := range fakes {
				if f != nil && f.hits.Load() != 1 {
					t.Errorf("node %d (%s) got the transaction %d times, want once", i+1, tc.nodes[i], f.hits.Load())
				}
				if f != nil && !strings.Contains(string(f.lastBody()), `"trx":{"ref_block_num":1}`) {
					t.Errorf("node %d got %s", i+1, f.lastBody())
				}
			}
			if resp.Attempts != len(tc.nodes) {
				t.Errorf("Attempts = %d, want %d (one per node)", resp.Attempts, len(tc.nodes))
			}
			switch {
			case tc.kind != "":
				e := gatewayError(t, err, tc.kind)
				if !strings.Contains(e.Message, "backend hived") || !strings.Contains(e.Message, "broadcast") {
					t.Errorf("message %q does not say which backend and what failed", e.Message)
				}
			case err != nil:
				t.Fatalf("CallAll: %v", err)
			case tc.refusal != "":
				if resp.Error == nil || !strings.Contains(resp.Error.Message, tc.refusal) {
					t.Fatalf("answer %s, error %+v; want a refusal saying %q", resp.Result, resp.Error, tc.refusal)
				}
			default:
				if resp.Error != nil || string(resp.Result) != tc.result {
					t.Fatalf("answer %s, error %+v; want %s", resp.Result, resp.Error, tc.result)
				}
			}
		})
	}
}

// TestCallAllCordoned: a cordoned node gets no broadcast; with every node
// cordoned the call fails at once, and no node gets it.
func TestCallAllCordoned(t *testing.T) {
	t.Parallel()
	urlA, a := broadcastNode(t, accepts)
	urlB, b := broadcastNode(t, accepts)
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {urlA, urlB}})
	if err := pool.Cordon("hived", 1, true); err != nil {
		t.Fatal(err)
	}
	resp, err := pool.CallAll(callCtx, "hived", backend.Request{Method: "network_broadcast_api.broadcast_transaction"})
	if err != nil || resp.Error != nil || a.hits.Load() != 0 || b.hits.Load() != 1 {
		t.Fatalf("one node cordoned: %+v, %v; hits %d and %d, want 0 and 1", resp.Error, err, a.hits.Load(), b.hits.Load())
	}
	if err := pool.Cordon("hived", 2, true); err != nil {
		t.Fatal(err)
	}
	_, err = pool.CallAll(callCtx, "hived", backend.Request{Method: "network_broadcast_api.broadcast_transaction"})
	gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
	if a.hits.Load() != 0 || b.hits.Load() != 1 {
		t.Fatalf("every node cordoned: hits %d and %d, want 0 and 1", a.hits.Load(), b.hits.Load())
	}
}
