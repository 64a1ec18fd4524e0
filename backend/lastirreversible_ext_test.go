package backend_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

func TestLIBTrackerPolls(t *testing.T) {
	t.Parallel()
	type call struct{ method, params string }
	calls := make(chan call, 64)
	node := newFakeNode(t, func(n *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		select {
		case calls <- call{req.Method, string(req.Params)}:
		default:
		}
		k := uint64(n.hits.Load())
		at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(k) * 3 * time.Second).Format("2006-01-02T15:04:05")
		answer(w, req.ID, "result", `{"id":0,"head_block_number":`+strconv.FormatUint(1000+k, 10)+
			`,"time":"`+at+`","last_irreversible_block_num":`+strconv.FormatUint(980+k, 10)+`}`)
	})
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	tracker := backend.NewLIBTracker(pool, "hived", 5*time.Millisecond, nil)
	if tracker.LastIrreversible() != 0 || tracker.Head() != 0 {
		t.Fatal("a new tracker knows a block")
	}
	updates := make(chan [2]uint64, 64)
	tracker.OnUpdate(func(lib, head uint64) {
		select {
		case updates <- [2]uint64{lib, head}:
		default:
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		tracker.Run(ctx)
		close(done)
	}()
	var last [2]uint64
	for last[0] < 983 {
		select {
		case u := <-updates:
			if u[0] < last[0] || u[1] < last[1] {
				t.Fatalf("update %v went back from %v", u, last)
			}
			last = u
		case <-time.After(30 * time.Second):
			t.Fatalf("tracker stuck at %v", last)
		}
	}
	cancel()
	<-done
	if got := <-calls; got.method != "database_api.get_dynamic_global_properties" || got.params != `{}` {
		t.Errorf("tracker called %q with %s", got.method, got.params)
	}
	if tracker.LastIrreversible() < 983 || tracker.Head() < 1003 {
		t.Errorf("LIB %d head %d after polling", tracker.LastIrreversible(), tracker.Head())
	}
}

// TestLIBTrackerObserveCannotRaise: answers passing through the gateway
// are one node's claim: whatever they say, the LIB and head are what the
// nodes agree on.
func TestLIBTrackerObserveCannotRaise(t *testing.T) {
	t.Parallel()
	n := newChainNode(t, "a", honestAt(1000, 1000, time.Now()))
	pool := newPool(t, backend.Options{}, map[string]string{"hived": n.url()})
	tracker := backend.NewLIBTracker(pool, "hived", time.Hour, nil)
	for _, result := range []string{
		`{"id":0,"head_block_number":5000000,"head_block_id":"004c4b40","last_irreversible_block_num":4999980}`,
		`{"head_block_number":5000003,"current_supply":"1.000 HIVE","last_irreversible_block_num":4999983}`,
		`{"head_block_number":1000,"last_irreversible_block_num":999}`,
	} {
		tracker.Observe(json.RawMessage(result))
		if tracker.LastIrreversible() != 0 || tracker.Head() != 0 {
			t.Fatalf("before the nodes agreed, %s made LIB %d head %d", result, tracker.LastIrreversible(), tracker.Head())
		}
	}
	tracker.Poll(context.Background())
	for _, result := range []string{
		`{"head_block_number":1000000000,"last_irreversible_block_num":999999990}`,
		`{"head_block_number":1000,"last_irreversible_block_num":999}`,
		`{"head_block_number":900,"last_irreversible_block_num":880}`,
		`garbage`,
	} {
		tracker.Observe(json.RawMessage(result))
		if tracker.LastIrreversible() != 980 || tracker.Head() != 1000 {
			t.Errorf("after %s: LIB %d head %d, want the agreed 980 and 1000", result, tracker.LastIrreversible(), tracker.Head())
		}
	}
}
