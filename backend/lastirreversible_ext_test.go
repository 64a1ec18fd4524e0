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
		answer(w, req.ID, "result", `{"id":0,"head_block_number":`+strconv.FormatUint(1000+k, 10)+
			`,"time":"2024-01-01T00:00:00","last_irreversible_block_num":`+strconv.FormatUint(980+k, 10)+`}`)
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

func TestLIBTrackerObserveOnlyMovesForward(t *testing.T) {
	t.Parallel()
	pool := newPool(t, backend.Options{}, map[string]string{})
	tracker := backend.NewLIBTracker(pool, "hived", 0, nil)
	var hookCalls int
	tracker.OnUpdate(func(uint64, uint64) { hookCalls++ })
	steps := []struct {
		name              string
		result            string
		wantLIB, wantHead uint64
		wantHooks         int
	}{
		{"database_api shape", `{"id":0,"head_block_number":5000000,"head_block_id":"004c4b40","last_irreversible_block_num":4999980}`, 4999980, 5000000, 1},
		{"condenser_api shape", `{"head_block_number":5000003,"current_supply":"1.000 HIVE","last_irreversible_block_num":4999983}`, 4999983, 5000003, 2},
		{"lagging backend", `{"head_block_number":4000000,"last_irreversible_block_num":3999980}`, 4999983, 5000003, 2},
		{"same values", `{"head_block_number":5000003,"last_irreversible_block_num":4999983}`, 4999983, 5000003, 2},
		{"only head moves", `{"head_block_number":5000004,"last_irreversible_block_num":4999983}`, 4999983, 5000004, 3},
		{"not an object", `[1,2]`, 4999983, 5000004, 3},
		{"garbage", `{"head_block_number":`, 4999983, 5000004, 3},
		{"strings instead of numbers", `{"head_block_number":"9","last_irreversible_block_num":"9"}`, 4999983, 5000004, 3},
		{"unrelated result", `{"accounts":[]}`, 4999983, 5000004, 3},
	}
	for _, s := range steps {
		tracker.Observe(json.RawMessage(s.result))
		if tracker.LastIrreversible() != s.wantLIB || tracker.Head() != s.wantHead || hookCalls != s.wantHooks {
			t.Errorf("%s: LIB %d head %d hooks %d; want %d %d %d", s.name,
				tracker.LastIrreversible(), tracker.Head(), hookCalls, s.wantLIB, s.wantHead, s.wantHooks)
		}
	}
}
