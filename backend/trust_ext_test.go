package backend_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// newNodesPoolOpts is newNodesPool with the options as given (prober off).
func trustPool(t testing.TB, urls []string) *backend.Pool {
	t.Helper()
	return newNodesPool(t, backend.Options{MaxLagBlocks: 20}, map[string][]string{"hived": urls})
}

// firstUpdate runs a LIB tracker of the pool's "hived" backend until its
// first update and returns the LIB and head it reported.
func firstUpdate(t *testing.T, pool *backend.Pool) (lib, head uint64) {
	t.Helper()
	tracker := backend.NewLIBTracker(pool, "hived", time.Hour, slog.New(slog.DiscardHandler))
	got := make(chan [2]uint64, 1)
	tracker.OnUpdate(func(l, h uint64) {
		select {
		case got <- [2]uint64{l, h}:
		default:
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		tracker.Run(ctx)
		close(done)
	}()
	defer func() {
		cancel()
		<-done
	}()
	select {
	case u := <-got:
		return u[0], u[1]
	case <-time.After(10 * time.Second):
		t.Fatal("the LIB tracker reported nothing")
		return 0, 0
	}
}

// TestTrustOneLiar: two or three nodes behind one backend, one of which
// lies. The liar, not the honest nodes, goes out of service; calls go to
// the honest nodes; the LIB the cache trusts is the honest one, never
// above the real head (1000).
func TestTrustOneLiar(t *testing.T) {
	t.Parallel()
	const realHead = 1000
	lies := []struct {
		name string
		// fresh: the nodes have never agreed before the lie (no anchor).
		fresh bool
		claim func(now time.Time) chainClaim
	}{
		{"far ahead", false, func(now time.Time) chainClaim {
			return chainClaim{Head: 1_000_000_000, LIB: 999_999_990, Time: now.Truncate(time.Second)}
		}},
		{"far ahead at start", true, func(now time.Time) chainClaim {
			return chainClaim{Head: 1_000_000_000, LIB: 999_999_990, Time: now.Truncate(time.Second)}
		}},
		{"behind with a fresh block time", false, func(now time.Time) chainClaim {
			return chainClaim{Head: 500, LIB: 480, Time: now.Truncate(time.Second)}
		}},
		{"LIB above head", false, func(now time.Time) chainClaim {
			return chainClaim{Head: realHead, LIB: 5000, Time: now.Truncate(time.Second)}
		}},
		{"LIB above head at start", true, func(now time.Time) chainClaim {
			return chainClaim{Head: realHead, LIB: 5000, Time: now.Truncate(time.Second)}
		}},
		{"block time in the future", false, func(now time.Time) chainClaim {
			return chainClaim{Head: realHead + 1, LIB: realHead - 19, Time: now.Add(time.Hour).Truncate(time.Second)}
		}},
		{"block time in the future at start", true, func(now time.Time) chainClaim {
			return chainClaim{Head: realHead + 1, LIB: realHead - 19, Time: now.Add(time.Hour).Truncate(time.Second)}
		}},
	}
	for _, nodes := range []int{2, 3} {
		for _, lie := range lies {
			t.Run(strconv.Itoa(nodes)+" nodes, liar "+lie.name, func(t *testing.T) {
				t.Parallel()
				liar := nodes / 2 // the second of two, the middle of three
				now := time.Now()
				var cn []*chainNode
				var urls []string
				for i := range nodes {
					n := newChainNode(t, "node"+strconv.Itoa(i), honestAt(realHead, realHead, now))
					cn = append(cn, n)
					urls = append(urls, n.url())
				}
				pool := trustPool(t, urls)
				if !lie.fresh {
					pool.Probe(callCtx) // the nodes agree on head 1000
				}
				cn[liar].set(lie.claim(now))
				pool.Probe(callCtx)
				states := pool.Nodes()
				for i, st := range states {
					if i == liar && st.InService() {
						t.Errorf("the liar is in service: %+v", st)
					}
					if i != liar && (!st.InService() || !st.Up) {
						t.Errorf("honest node %d is out of service: %+v", i+1, st)
					}
				}
				for range 2 * nodes {
					resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m"})
					if err != nil {
						t.Fatal(err)
					}
					if string(resp.Result) == strconv.Quote(cn[liar].name) {
						t.Fatalf("a call went to the liar")
					}
				}
				lib, head := firstUpdate(t, pool)
				if lib != realHead-20 || head != realHead {
					t.Errorf("trusted LIB %d head %d, want %d and %d", lib, head, realHead-20, realHead)
				}
			})
		}
	}
}

// waitLIB polls the tracker until its LIB is want (waitFor).
func waitLIB(t *testing.T, tracker *backend.LIBTracker, want uint64) {
	t.Helper()
	waitFor(t, fmt.Sprintf("LIB %d", want), func() bool { return tracker.LastIrreversible() == want })
}

// TestTrustLIBComesDown: a LIB the nodes no longer agree on is
// recomputed, not kept because it is higher.
func TestTrustLIBComesDown(t *testing.T) {
	t.Parallel()
	now := time.Now()
	n := newChainNode(t, "a", chainClaim{Head: 1000, LIB: 999, Time: now.Truncate(time.Second)})
	pool := trustPool(t, []string{n.url()})
	tracker := backend.NewLIBTracker(pool, "hived", 10*time.Millisecond, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		tracker.Run(ctx)
		close(done)
	}()
	defer func() {
		cancel()
		<-done
	}()
	waitLIB(t, tracker, 999)
	n.set(honestAt(1000, 1000, now)) // the node's LIB was wrong: 980
	waitLIB(t, tracker, 980)
}

// TestTrustLiarStaysOutWhenProbeFails: a node judged implausible does not
// come back into service by failing its next probe.
func TestTrustLiarStaysOutWhenProbeFails(t *testing.T) {
	t.Parallel()
	now := time.Now()
	honest := newChainNode(t, "honest", honestAt(1000, 1000, now))
	var failing atomic.Bool
	liar := newChainNode(t, "liar", chainClaim{Head: 1000, LIB: 5000, Time: now.Truncate(time.Second)})
	front := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, r *http.Request, req rpcRequest) {
		if failing.Load() && req.Method == "database_api.get_dynamic_global_properties" {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		if req.Method == "database_api.get_dynamic_global_properties" {
			answer(w, req.ID, "result", liar.dgpo())
			return
		}
		answer(w, req.ID, "result", `"liar"`)
	})
	pool := trustPool(t, []string{front.srv.URL, honest.url()})
	pool.Probe(callCtx)
	failing.Store(true)
	pool.Probe(callCtx)
	if st := pool.Nodes()[0]; st.InService() || st.Serving {
		t.Fatalf("the liar is back in service after a failed probe: %+v", st)
	}
	for range 3 {
		if resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m"}); err != nil || string(resp.Result) != `"honest"` {
			t.Fatalf("%s, %v; want the honest node's answer", resp.Result, err)
		}
	}
}
