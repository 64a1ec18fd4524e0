package backend_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// headNode answers get_dynamic_global_properties with its head block
// (*head), whose time is that of a chain at block 1000 now, and every other
// call with its own name, after delay.
func headNode(name string, head *atomic.Uint64, delay time.Duration) handlerFunc {
	return func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		if req.Method == "database_api.get_dynamic_global_properties" {
			h := head.Load()
			at := time.Now().Add(time.Duration(int64(h)-1000) * 3 * time.Second).UTC().Format("2006-01-02T15:04:05")
			answer(w, req.ID, "result", `{"head_block_number":`+strconv.FormatUint(h, 10)+`,"time":"`+at+`","last_irreversible_block_num":`+strconv.FormatUint(h-20, 10)+`}`)
			return
		}
		time.Sleep(delay)
		answer(w, req.ID, "result", strconv.Quote(name))
	}
}

// TestNodesFirstInOrderWhenIdle: calls one after another all go to the
// first node; the state of each node is reported.
func TestNodesFirstInOrderWhenIdle(t *testing.T) {
	t.Parallel()
	var head atomic.Uint64
	head.Store(1000)
	a := newFakeNode(t, headNode("a", &head, 0))
	b := newFakeNode(t, headNode("b", &head, 0))
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {a.srv.URL, b.srv.URL}})
	pool.Probe(callCtx) // a node is reported up once a probe reached it
	probes := a.hits.Load()
	for range 5 {
		resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m"})
		if err != nil || string(resp.Result) != `"a"` {
			t.Fatalf("%s, %v", resp.Result, err)
		}
		if resp.Node != a.srv.URL+"/" {
			t.Errorf("Response.Node = %q, want %q", resp.Node, a.srv.URL+"/")
		}
	}
	if a.hits.Load()-probes != 5 || b.hits.Load() != probes {
		t.Errorf("a got %d calls, b %d; want 5 and 0", a.hits.Load()-probes, b.hits.Load()-probes)
	}
	nodes := pool.Nodes()
	if len(nodes) != 2 || nodes[0].Node != 1 || nodes[1].Node != 2 || !nodes[0].InService() || !nodes[1].InService() || pool.NodeCount("hived") != 2 {
		t.Errorf("Nodes() = %+v", nodes)
	}
}

// TestNodesLeastLoaded: while the first node is busy, calls go to the
// second.
func TestNodesLeastLoaded(t *testing.T) {
	t.Parallel()
	var head atomic.Uint64
	head.Store(1000)
	a := newFakeNode(t, headNode("a", &head, 100*time.Millisecond))
	b := newFakeNode(t, headNode("b", &head, 100*time.Millisecond))
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {a.srv.URL, b.srv.URL}})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if _, err := pool.Call(callCtx, "hived", backend.Request{Method: "m"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// Two calls may pick a node at the same instant, so the split need
	// not be even; it must be a split.
	if a.hits.Load() < 3 || b.hits.Load() < 3 {
		t.Errorf("a got %d of 10 concurrent calls, b %d; want both busy", a.hits.Load(), b.hits.Load())
	}
}

// TestNodesFailoverUnderLoad kills one of two nodes while calls run: on a
// route with retries no call fails (a transport failure goes to the other
// node), the dead node is reported down, and calls go to the live one.
func TestNodesFailoverUnderLoad(t *testing.T) {
	t.Parallel()
	var head atomic.Uint64
	head.Store(1000)
	a := newFakeNode(t, headNode("a", &head, 2*time.Millisecond))
	b := newFakeNode(t, headNode("b", &head, 2*time.Millisecond))
	pool := newNodesPool(t, backend.Options{FailThreshold: 3}, map[string][]string{"hived": {a.srv.URL, b.srv.URL}})
	pool.Probe(callCtx)
	ctx, stop := context.WithCancel(callCtx)
	var wg sync.WaitGroup
	var calls, failed atomic.Int64
	for range 16 {
		wg.Go(func() {
			for ctx.Err() == nil {
				calls.Add(1)
				if _, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Retries: 1, Timeout: 5 * time.Second}); err != nil {
					failed.Add(1)
					t.Errorf("call failed: %v", err)
				}
			}
		})
	}
	defer func() { stop(); wg.Wait() }() // however the test ends
	// Calls are counted, not timed: both nodes serve before the kill, and
	// the live one serves more after it.
	waitFor(t, "calls on both nodes", func() bool { return a.hits.Load() >= 20 && b.hits.Load() >= 20 })
	a.srv.CloseClientConnections()
	a.srv.Close() // killed: in-flight calls broken, new connections refused
	before := b.hits.Load()
	waitFor(t, "calls on the live node after the kill", func() bool { return b.hits.Load() >= before+100 })
	stop()
	wg.Wait()
	if failed.Load() != 0 {
		t.Errorf("%d of %d calls failed", failed.Load(), calls.Load())
	}
	if b.hits.Load() == before {
		t.Error("the live node got no calls after the other was killed")
	}
	nodes := pool.Nodes()
	if nodes[0].Up || !nodes[1].Up || !pool.Healthy("hived") {
		t.Errorf("Nodes() = %+v; want the killed node down, the live one up", nodes)
	}
}

// TestNodesBroadcastNotRetriedOnAnotherNode: a call that must not reach a
// node twice (a broadcast) fails with the first node's failure; the other
// node never sees it.
func TestNodesBroadcastNotRetriedOnAnotherNode(t *testing.T) {
	t.Parallel()
	var head atomic.Uint64
	head.Store(1000)
	b := newFakeNode(t, headNode("b", &head, 0))
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {refusedURL(t), b.srv.URL}})
	_, err := pool.Call(callCtx, "hived", backend.Request{Method: "condenser_api.broadcast_transaction", Once: true, Retries: 0})
	gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
	if b.hits.Load() != 0 {
		t.Errorf("the second node got %d calls of a broadcast that failed on the first", b.hits.Load())
	}
}

// TestNodesLaggingOutThenBack: a node whose head falls more than
// MaxLagBlocks behind the other's is taken out of service (calls go to the
// other even while it is busy), and comes back when it catches up.
func TestNodesLaggingOutThenBack(t *testing.T) {
	t.Parallel()
	var headA, headB atomic.Uint64
	headA.Store(1000)
	headB.Store(1000)
	a := newFakeNode(t, headNode("a", &headA, 0))
	b := newFakeNode(t, headNode("b", &headB, 0))
	pool := newNodesPool(t, backend.Options{MaxLagBlocks: 20}, map[string][]string{"hived": {a.srv.URL, b.srv.URL}})
	pool.Probe(callCtx)
	if n := pool.Nodes(); n[0].Head != 1000 || n[1].Head != 1000 || n[0].Lagging || n[1].Lagging {
		t.Fatalf("Nodes() = %+v", n)
	}
	headA.Store(980) // 20 behind: still in service
	headB.Store(1000)
	pool.Probe(callCtx)
	if n := pool.Nodes(); n[0].Lagging {
		t.Fatalf("a node 20 blocks behind with MaxLagBlocks 20 is lagging: %+v", n)
	}
	headA.Store(970) // 30 behind
	pool.Probe(callCtx)
	if n := pool.Nodes(); !n[0].Lagging || n[0].InService() || n[1].Lagging {
		t.Fatalf("Nodes() = %+v; want the first node lagging", n)
	}
	for range 3 {
		resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m"})
		if err != nil || string(resp.Result) != `"b"` {
			t.Fatalf("a call while the first node lags: %s, %v", resp.Result, err)
		}
	}
	headA.Store(1001) // caught up
	pool.Probe(callCtx)
	if n := pool.Nodes(); n[0].Lagging || !n[0].InService() {
		t.Fatalf("Nodes() = %+v; want the first node back", n)
	}
	resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m"})
	if err != nil || string(resp.Result) != `"a"` {
		t.Errorf("after catching up: %s, %v; want the first node again", resp.Result, err)
	}
}

// TestNodesDownThenBack: a node that failed FailThreshold calls in a row is
// skipped; the prober brings it back once it answers.
func TestNodesDownThenBack(t *testing.T) {
	t.Parallel()
	var up atomic.Bool
	var head atomic.Uint64
	head.Store(1000)
	a := newFakeNode(t, func(n *fakeNode, w http.ResponseWriter, r *http.Request, req rpcRequest) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		headNode("a", &head, 0)(n, w, r, req)
	})
	b := newFakeNode(t, headNode("b", &head, 0))
	pool := newNodesPool(t, backend.Options{FailThreshold: 2}, map[string][]string{"hived": {a.srv.URL, b.srv.URL}})
	for range 2 {
		resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Retries: 1})
		if err != nil || string(resp.Result) != `"b"` || resp.Attempts != 2 {
			t.Fatalf("%s after %d attempts, %v; want b's answer after 2", resp.Result, resp.Attempts, err)
		}
	}
	hitsA := a.hits.Load()
	for range 3 {
		if resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m"}); err != nil || resp.Attempts != 1 {
			t.Fatalf("%+v, %v", resp, err)
		}
	}
	if a.hits.Load() != hitsA {
		t.Error("calls went to a node that is down while another is in service")
	}
	up.Store(true)
	pool.Probe(callCtx)
	if n := pool.Nodes(); !n[0].Up {
		t.Fatalf("the prober did not bring the node back: %+v", n)
	}
	if resp, _ := pool.Call(callCtx, "hived", backend.Request{Method: "m"}); string(resp.Result) != `"a"` {
		t.Errorf("after it came back: %s, want the first node", resp.Result)
	}
}

// TestNodesMixedSchemes: a backend of an http node and a ws node fails
// over from one to the other.
func TestNodesMixedSchemes(t *testing.T) {
	t.Parallel()
	ws := newWSNode(t, wsResult)
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {refusedURL(t), ws.url()}})
	resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Params: json.RawMessage(`[1]`), Retries: 1})
	if err != nil || string(resp.Result) != `{"echo":[1]}` {
		t.Errorf("%s, %v", resp.Result, err)
	}
}
