package backend_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// TestCordonDrainsNode: a cordoned node gets no new call while its
// backend serves through the other node, a call in flight on it finishes,
// it is reported cordoned and not in service, and uncordoning puts it
// back first in line.
func TestCordonDrainsNode(t *testing.T) {
	t.Parallel()
	var head atomic.Uint64
	head.Store(1000)
	a := newFakeNode(t, headNode("a", &head, 0))
	slow := newFakeNode(t, headNode("slow-a", &head, 300*time.Millisecond))
	b := newFakeNode(t, headNode("b", &head, 0))
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {a.srv.URL, b.srv.URL}, "slow": {slow.srv.URL, b.srv.URL}})
	pool.Probe(callCtx)

	call := func(name, want string) {
		t.Helper()
		resp, err := pool.Call(callCtx, name, backend.Request{Method: "m"})
		if err != nil || string(resp.Result) != `"`+want+`"` {
			t.Fatalf("call to %s: %s, %v; want %q", name, resp.Result, err, want)
		}
	}
	call("hived", "a") // idle: the first node
	if err := pool.Cordon("hived", 1, false); err != nil {
		t.Fatalf("Cordon(hived, 1): %v", err)
	}
	before := a.hits.Load()
	for range 5 {
		call("hived", "b")
	}
	if got := a.hits.Load() - before; got != 0 {
		t.Errorf("the cordoned node got %d calls", got)
	}
	st := pool.Nodes()[0]
	if !st.Cordoned || st.InService() || st.Reason != "cordoned" || !pool.Cordoned("hived", 1) {
		t.Errorf("cordoned node reported as %+v", st)
	}
	if !pool.Serving("hived") {
		t.Error("the backend is not serving through its other node")
	}
	if err := pool.Uncordon("hived", 1); err != nil {
		t.Fatal(err)
	}
	call("hived", "a")
	if st := pool.Nodes()[0]; st.Cordoned || !st.InService() {
		t.Errorf("uncordoned node reported as %+v", st)
	}

	// A call in flight on a node that is cordoned meanwhile finishes there.
	done := make(chan error, 1)
	go func() {
		resp, err := pool.Call(callCtx, "slow", backend.Request{Method: "m"})
		if err == nil && string(resp.Result) != `"slow-a"` {
			err = errors.New("answered by " + string(resp.Result))
		}
		done <- err
	}()
	waitFor(t, "the slow call to be in flight", func() bool {
		for _, n := range pool.Nodes() {
			if n.Backend == "slow" && n.Node == 1 && n.InFlight == 1 {
				return true
			}
		}
		return false
	})
	if err := pool.Cordon("slow", 1, false); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the call in flight when its node was cordoned: %v", err)
	}
}

// TestCordonLastNode: cordoning the last node that takes calls is refused
// with ErrLastNode (the node stays in service) unless forced; forced, the
// backend's calls fail at once with upstream_unavailable naming the
// backend, never a URL, and GET /'s rule reports it not serving.
func TestCordonLastNode(t *testing.T) {
	t.Parallel()
	var head atomic.Uint64
	head.Store(1000)
	a := newFakeNode(t, headNode("a", &head, 0))
	b := newFakeNode(t, headNode("b", &head, 0))
	c := newFakeNode(t, headNode("c", &head, 0))
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {a.srv.URL, b.srv.URL}, "solo": {c.srv.URL}})
	pool.Probe(callCtx)

	for _, tc := range []struct {
		name    string
		node    int
		wantErr error
		want    string
	}{
		{"hived", 3, backend.ErrUnknownNode, "backend hived has no node 3 (it has 2)"},
		{"nope", 1, backend.ErrUnknownNode, `no backend named "nope"`},
		{"solo", 1, backend.ErrLastNode, "backend solo node 1 is the last node that takes calls (it is its only node): cordoning it leaves solo with no node to call"},
	} {
		err := pool.Cordon(tc.name, tc.node, false)
		if !errors.Is(err, tc.wantErr) || err.Error() != tc.want {
			t.Errorf("Cordon(%s, %d) = %v, want %q (%v)", tc.name, tc.node, err, tc.want, tc.wantErr)
		}
	}
	if err := pool.Cordon("hived", 1, false); err != nil {
		t.Fatal(err)
	}
	err := pool.Cordon("hived", 2, false)
	if !errors.Is(err, backend.ErrLastNode) || !strings.Contains(err.Error(), "node 1: cordoned") {
		t.Fatalf("Cordon(hived, 2) with node 1 cordoned = %v, want ErrLastNode naming node 1 cordoned", err)
	}
	if pool.Cordoned("hived", 2) || !pool.Serving("hived") {
		t.Fatal("a refused cordon changed the node")
	}

	for _, name := range []string{"hived", "solo"} {
		node := map[string]int{"hived": 2, "solo": 1}[name]
		if err := pool.Cordon(name, node, true); err != nil {
			t.Fatalf("forced Cordon(%s, %d): %v", name, node, err)
		}
		if pool.Serving(name) {
			t.Errorf("%s: every node cordoned, yet Serving", name)
		}
		hits := a.hits.Load() + b.hits.Load() + c.hits.Load()
		_, err := pool.Call(callCtx, name, backend.Request{Method: "m"})
		je := gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
		if want := "backend " + name + " has every node cordoned by its operator"; !strings.HasSuffix(je.Message, ": "+want) {
			t.Errorf("%s: error %q, want it to end with %q", name, je.Message, want)
		}
		_, errs := pool.CallBatch(callCtx, name, []backend.Request{{Method: "m"}, {Method: "m"}})
		for _, err := range errs {
			gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
		}
		if got := a.hits.Load() + b.hits.Load() + c.hits.Load(); got != hits {
			t.Errorf("%s: %d calls reached a node with every node cordoned", name, got-hits)
		}
	}
	if pool.AllServing() {
		t.Error("AllServing with backends whose every node is cordoned")
	}
	if err := pool.Uncordon("solo", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Call(callCtx, "solo", backend.Request{Method: "m"}); err != nil {
		t.Errorf("solo after uncordon: %v", err)
	}
}
