package dispatch_test

import (
	"testing"
	"time"

	"github.com/hivegate/hivegate/dispatch"
)

// TestLIBObserveGap: whatever the gap, a get_dynamic_global_properties
// answer passing through the gateway is one node's claim and never moves
// the LIB; the LIB is what the nodes agree on when probed.
func TestLIBObserveGap(t *testing.T) {
	t.Parallel()
	const dgpo = "condenser_api.get_dynamic_global_properties"
	for _, tc := range []struct {
		name string
		opts []dispatch.Option
	}{
		{"a gap of an hour", []dispatch.Option{dispatch.WithLIBObserveGap(time.Hour)}},
		{"no gap", []dispatch.Option{dispatch.WithLIBObserveGap(0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newCountingNode(t)
			node.lib.Store(1000)
			r := newReplica(t, "A", parseShared(t, node), tc.opts...)
			r.call(t, dgpo, "[1]")
			if got := r.lib.LastIrreversible(); got != 0 {
				t.Fatalf("after an answer passing through: LIB %d, want 0", got)
			}
			r.learn(t)
			if got := r.lib.LastIrreversible(); got != 1000 {
				t.Fatalf("after a probe: LIB %d, want 1000", got)
			}
			node.lib.Store(2000)
			r.call(t, dgpo, "[2]") // another key: a miss, answered upstream
			if n := node.count(dgpo, "[2]"); n != 1 {
				t.Fatalf("%d upstream calls for the second answer, want 1", n)
			}
			if got := r.lib.LastIrreversible(); got != 1000 {
				t.Errorf("after the second answer: LIB %d, want 1000 (until the nodes are probed)", got)
			}
		})
	}
}
