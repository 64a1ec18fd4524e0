package backend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// TestWSCall makes calls to a ws:// node: the params go as sent, the
// result comes back as the node wrote it, over one kept connection.
func TestWSCall(t *testing.T) {
	t.Parallel()
	node := newWSNode(t, wsResult)
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.url()})
	for i := range 3 {
		params := fmt.Sprintf(`[%d, {"a": "b"}]`, i)
		resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "condenser_api.get_block", Params: json.RawMessage(params), Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		mustBytes(t, "result", resp.Result, `{"echo":`+params+`}`)
	}
	if got := node.conns.Load(); got != 1 {
		t.Errorf("%d connections for 3 calls in a row, want 1", got)
	}
	if !pool.Healthy("hived") {
		t.Error("the node is not reported up")
	}
}

// TestWSConcurrentCallsOneConnection sends many calls at once on one
// connection; the node answers them in a shuffled order; every call gets
// its own answer.
func TestWSConcurrentCallsOneConnection(t *testing.T) {
	t.Parallel()
	node := newWSNode(t, func(conn int64, req rpcRequest) (string, wsAction) {
		var p []int
		_ = json.Unmarshal(req.Params, &p)
		// Later calls answer first.
		time.Sleep(time.Duration(50-p[0]%50) * time.Millisecond)
		return wsResult(conn, req)
	})
	pool := newPool(t, backend.Options{WSConnsPerNode: 1}, map[string]string{"hived": node.url()})
	const calls = 100
	var wg sync.WaitGroup
	var wrong atomic.Int64
	for i := range calls {
		wg.Go(func() {
			params := "[" + strconv.Itoa(i) + "]"
			resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Params: json.RawMessage(params), Timeout: 10 * time.Second})
			if err != nil || string(resp.Result) != `{"echo":`+params+`}` {
				wrong.Add(1)
				t.Errorf("call %d: %s, %v", i, resp.Result, err)
			}
		})
	}
	wg.Wait()
	if wrong.Load() != 0 || node.calls.Load() != calls {
		t.Errorf("%d wrong answers, node saw %d calls", wrong.Load(), node.calls.Load())
	}
	if got := node.conns.Load(); got != 1 {
		t.Errorf("%d connections, want 1 (WSConnsPerNode)", got)
	}
}

// TestWSConnectionDroppedMidCall drops the connection while calls wait on
// it: without retries each fails with the unreachable error; with a retry
// each is answered on a new connection, and no call gets another's answer.
func TestWSConnectionDroppedMidCall(t *testing.T) {
	t.Parallel()
	for _, retries := range []int{0, 1} {
		t.Run("retries="+strconv.Itoa(retries), func(t *testing.T) {
			t.Parallel()
			var waiting sync.WaitGroup
			const calls = 10
			waiting.Add(calls)
			node := newWSNode(t, func(conn int64, req rpcRequest) (string, wsAction) {
				if conn == 1 {
					// The first connection: let every call arrive,
					// then drop it with all of them unanswered.
					waiting.Done()
					waiting.Wait()
					return "", wsDrop
				}
				return wsResult(conn, req)
			})
			pool := newPool(t, backend.Options{WSConnsPerNode: 1}, map[string]string{"hived": node.url()})
			var wg sync.WaitGroup
			for i := range calls {
				wg.Go(func() {
					params := "[" + strconv.Itoa(i) + "]"
					resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Params: json.RawMessage(params), Timeout: 10 * time.Second, Retries: retries})
					if retries == 0 {
						gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
						return
					}
					if err != nil || string(resp.Result) != `{"echo":`+params+`}` {
						t.Errorf("call %d after the drop: %s, %v", i, resp.Result, err)
					}
					if resp.Attempts != 2 {
						t.Errorf("call %d: %d attempts, want 2", i, resp.Attempts)
					}
				})
			}
			wg.Wait()
			if retries == 1 && node.conns.Load() != 2 {
				t.Errorf("%d connections, want 2 (one dropped, one new)", node.conns.Load())
			}
		})
	}
}

// TestWSTimeout: a call the node does not answer ends with the timeout
// error (the node holds its answer until the call has returned, so nothing
// but the route's timeout can end it); the late answer, once written, is
// dropped, and the connection carries the next call to its own answer.
func TestWSTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var once sync.Once
	answer := func() { once.Do(func() { close(release) }) }
	// A pool that ignored the timeout gets the answer after 10 s, and the
	// check below fails instead of hanging.
	defer time.AfterFunc(10*time.Second, answer).Stop()
	node := newWSNode(t, func(conn int64, req rpcRequest) (string, wsAction) {
		if req.Method == "slow" {
			<-release
		}
		return wsResult(conn, req)
	})
	pool := newPool(t, backend.Options{WSConnsPerNode: 1}, map[string]string{"hived": node.url()})
	_, err := pool.Call(callCtx, "hived", backend.Request{Method: "slow", Params: json.RawMessage(`[1]`), Timeout: 100 * time.Millisecond})
	gatewayError(t, err, jsonrpc.KindUpstreamTimeout)
	if node.written.Load() != 0 {
		t.Fatal("the node answered before the call timed out")
	}
	answer()
	// The late answer is on the connection before the next call is sent, so
	// the pool reads it first.
	waitFor(t, "the late answer", func() bool { return node.written.Load() == 1 })
	resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Params: json.RawMessage(`[2]`), Timeout: 5 * time.Second})
	if err != nil || string(resp.Result) != `{"echo":[2]}` {
		t.Errorf("the next call got %s, %v", resp.Result, err)
	}
	if node.conns.Load() != 1 {
		t.Errorf("%d connections, want 1", node.conns.Load())
	}
}

// TestWSAnswerChecks: an answer over the size cap, one that is not a
// JSON-RPC response and a backend error each reach only their own call;
// the connection carries on.
func TestWSAnswerChecks(t *testing.T) {
	t.Parallel()
	big := `"` + strings.Repeat("x", 4096) + `"`
	node := newWSNode(t, func(conn int64, req rpcRequest) (string, wsAction) {
		id := string(req.ID)
		switch req.Method {
		case "big":
			return `{"jsonrpc":"2.0","result":` + big + `,"id":` + id + `}`, wsAnswer
		case "bigIDFirst":
			return `{"id":` + id + `,"jsonrpc":"2.0","result":` + big + `}`, wsAnswer
		case "neither":
			return `{"jsonrpc":"2.0","id":` + id + `}`, wsAnswer
		case "error":
			return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32003,"message":"Assert Exception"}}`, wsAnswer
		}
		return wsResult(conn, req)
	})
	pool := newPool(t, backend.Options{WSConnsPerNode: 1, MaxResponseBytes: 1024}, map[string]string{"hived": node.url()})
	req := func(m string) backend.Request {
		return backend.Request{Method: m, Timeout: 5 * time.Second, Retries: 2}
	}
	_, err := pool.Call(callCtx, "hived", req("big"))
	gatewayError(t, err, jsonrpc.KindUpstreamResponseTooLarge)
	_, err = pool.Call(callCtx, "hived", req("bigIDFirst"))
	gatewayError(t, err, jsonrpc.KindUpstreamResponseTooLarge)
	_, err = pool.Call(callCtx, "hived", req("neither"))
	gatewayError(t, err, jsonrpc.KindInvalidUpstreamResponse)
	resp, err := pool.Call(callCtx, "hived", req("error"))
	if err != nil || resp.Error == nil || resp.Error.Code != -32003 {
		t.Errorf("backend error: %+v, %v", resp.Error, err)
	}
	resp, err = pool.Call(callCtx, "hived", req("m"))
	if err != nil || string(resp.Result) != `{"echo":null}` {
		t.Errorf("after the refused answers: %s, %v", resp.Result, err)
	}
	if node.conns.Load() != 1 || node.calls.Load() != 5 {
		t.Errorf("%d connections and %d calls, want 1 and 5 (refused answers are not retried)", node.conns.Load(), node.calls.Load())
	}
}

// TestWSUnreachable: a ws:// node nothing listens on fails calls at once
// with the unreachable error (retried as configured), is reported down
// after FailThreshold failures, and is used again once it listens.
func TestWSUnreachable(t *testing.T) {
	t.Parallel()
	url := "ws" + strings.TrimPrefix(refusedURL(t), "http")
	pool := newPool(t, backend.Options{FailThreshold: 2}, map[string]string{"hived": url})
	for range 2 {
		_, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Timeout: 2 * time.Second})
		gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
	}
	if pool.Healthy("hived") {
		t.Error("an unreachable ws node is reported up")
	}
}

// TestWSReconnects: when the node drops its connections and refuses new
// ones for a while (a restart), calls fail with the unreachable error, and
// once it accepts again calls go on over a new connection.
func TestWSReconnects(t *testing.T) {
	t.Parallel()
	node := newWSNode(t, wsResult)
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.url()})
	call := func() error {
		_, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Timeout: time.Second})
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	node.refuse.Store(true)
	node.dropAll()
	waitFor(t, "a failed call after the drop", func() bool { return call() != nil })
	for range 3 {
		gatewayError(t, call(), jsonrpc.KindUpstreamUnavailable)
	}
	node.refuse.Store(false)
	waitFor(t, "a call over a new connection", func() bool { return call() == nil })
	if got := node.conns.Load(); got != 2 {
		t.Errorf("%d connections accepted, want 2", got)
	}
}

// TestWSBatch: CallBatch on a ws:// node answers every call, in order.
func TestWSBatch(t *testing.T) {
	t.Parallel()
	node := newWSNode(t, wsResult)
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.url()})
	reqs := make([]backend.Request, 5)
	for i := range reqs {
		reqs[i] = backend.Request{Method: "m", Params: json.RawMessage("[" + strconv.Itoa(i) + "]"), Timeout: 5 * time.Second}
	}
	resps, errs := pool.CallBatch(context.Background(), "hived", reqs)
	for i := range reqs {
		if errs[i] != nil || string(resps[i].Result) != `{"echo":[`+strconv.Itoa(i)+`]}` {
			t.Errorf("call %d: %s, %v", i, resps[i].Result, errs[i])
		}
	}
}
