package backend_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// switchable answers HTTP 503 or a result depending on up.
func switchable(up *atomic.Bool) handlerFunc {
	return func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		answer(w, req.ID, "result", `{}`)
	}
}

// TestHealthUnknownIsNotUp: a node no probe has reached is not reported
// up, but calls are still made to it (Healthy: nothing failed yet).
func TestHealthUnknownIsNotUp(t *testing.T) {
	t.Parallel()
	pool := newPool(t, backend.Options{}, map[string]string{"hived": refusedURL(t)})
	if !pool.Healthy("hived") || !pool.AnyHealthy() {
		t.Error("a backend with no outcome yet is not tried")
	}
	if st := pool.Nodes()[0]; st.Up || st.InService() || pool.Serving("hived") {
		t.Errorf("a node no probe reached is reported up: %+v", st)
	}
	if pool.Healthy("nope") || pool.Serving("nope") {
		t.Error("an unknown backend name is reported healthy")
	}
	empty := newPool(t, backend.Options{}, map[string]string{})
	if empty.AnyHealthy() {
		t.Error("a pool without backends reports a healthy one")
	}
}

func TestHealthDownAfterThresholdUpAfterSuccess(t *testing.T) {
	t.Parallel()
	var up atomic.Bool
	node := newFakeNode(t, switchable(&up))
	other := newFakeNode(t, resultHandler(`1`))
	pool := newPool(t, backend.Options{FailThreshold: 3}, map[string]string{"hived": node.srv.URL, "hivemind": other.srv.URL})
	ctx := context.Background()
	// Each failed attempt counts: 1 call with 1 retry, then 1 call.
	steps := []struct {
		retries     int
		wantHealthy bool
	}{{1, true}, {0, false}, {0, false}}
	for i, s := range steps {
		if _, err := pool.Call(ctx, "hived", backend.Request{Method: "m", Retries: s.retries}); err == nil {
			t.Fatalf("step %d: call to a 503 backend succeeded", i)
		}
		if got := pool.Healthy("hived"); got != s.wantHealthy {
			t.Errorf("step %d: Healthy = %v, want %v", i, got, s.wantHealthy)
		}
	}
	if !pool.AnyHealthy() || !pool.Healthy("hivemind") {
		t.Error("the other backend is not reported up")
	}
	up.Store(true)
	if _, err := pool.Call(ctx, "hived", backend.Request{Method: "m"}); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if !pool.Healthy("hived") {
		t.Error("a successful call did not mark the backend up")
	}
}

func TestHealthProbe(t *testing.T) {
	t.Parallel()
	var up atomic.Bool
	var probes atomic.Int64
	cn := newChainNode(t, "a", honestAt(1000, 1000, time.Now()))
	node := newFakeNode(t, func(n *fakeNode, w http.ResponseWriter, r *http.Request, req rpcRequest) {
		if req.Method == "database_api.get_dynamic_global_properties" {
			probes.Add(1)
		}
		if up.Load() {
			cn.set(honestAt(1000, 1000, time.Now()))
			answer(w, req.ID, "result", cn.dgpo())
			return
		}
		http.Error(w, "down", http.StatusBadGateway)
	})
	pool := newPool(t, backend.Options{FailThreshold: 2}, map[string]string{"hived": node.srv.URL})
	ctx := context.Background()
	pool.Probe(ctx)
	if !pool.Healthy("hived") || pool.Serving("hived") {
		t.Error("after one failed probe with FailThreshold 2: want calls still tried, but not in service")
	}
	pool.Probe(ctx)
	if pool.Healthy("hived") || pool.AnyHealthy() {
		t.Error("still up after two failed probes")
	}
	up.Store(true)
	pool.Probe(ctx)
	if !pool.Healthy("hived") || !pool.Serving("hived") {
		t.Errorf("a node that answered its probe is not in service: %+v", pool.Nodes())
	}
	if probes.Load() != 3 {
		t.Errorf("node saw %d probes, want 3", probes.Load())
	}

	refused := newPool(t, backend.Options{FailThreshold: 1}, map[string]string{"gone": refusedURL(t)})
	refused.Probe(ctx)
	if refused.Healthy("gone") {
		t.Error("a refused probe did not count as a failure")
	}
}

func TestHealthStartProbesPeriodically(t *testing.T) {
	t.Parallel()
	seen := make(chan struct{}, 16)
	node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		if req.Method == "jsonrpc.get_methods" {
			select {
			case seen <- struct{}{}:
			default:
			}
		}
		answer(w, req.ID, "result", `[]`)
	})
	opts := backend.DefaultOptions()
	opts.HealthInterval = 5 * time.Millisecond
	pool, err := backend.New(map[string]string{"hived": node.srv.URL}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool.Start(ctx)
	for i := range 3 {
		select {
		case <-seen:
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d probes arrived", i)
		}
	}
}
