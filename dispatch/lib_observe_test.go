package dispatch_test

import (
	"testing"
	"time"

	"github.com/hivegate/hivegate/dispatch"
)

// TestLIBObserveGap shows which upstream get_dynamic_global_properties
// answers the LIB tracker reads: with a gap, the first of the gap only;
// with none, every one.
func TestLIBObserveGap(t *testing.T) {
	t.Parallel()
	const dgpo = "condenser_api.get_dynamic_global_properties"
	for _, tc := range []struct {
		name    string
		opts    []dispatch.Option
		wantLIB uint64 // after the second answer (LIB 2000)
	}{
		{"a gap of an hour", []dispatch.Option{dispatch.WithLIBObserveGap(time.Hour)}, 1000},
		{"no gap", []dispatch.Option{dispatch.WithLIBObserveGap(0)}, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newCountingNode(t)
			node.lib.Store(1000)
			r := newReplica(t, "A", parseShared(t, node), tc.opts...)
			r.call(t, dgpo, "[1]")
			if got := r.lib.LastIrreversible(); got != 1000 {
				t.Fatalf("after the first answer: LIB %d, want 1000", got)
			}
			node.lib.Store(2000)
			r.call(t, dgpo, "[2]") // another key: a miss, answered upstream
			if n := node.count(dgpo, "[2]"); n != 1 {
				t.Fatalf("%d upstream calls for the second answer, want 1", n)
			}
			if got := r.lib.LastIrreversible(); got != tc.wantLIB {
				t.Errorf("after the second answer: LIB %d, want %d", got, tc.wantLIB)
			}
		})
	}
}
