package backend_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// TestLIBTrackerSeed: a LIB learnt elsewhere (the one replicas share in
// Redis) counts only once the tracker's own nodes agree on a head, never
// above that head, and only for a minute; a later seed replaces it.
func TestLIBTrackerSeed(t *testing.T) {
	t.Parallel()
	blockTime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := &fixedClock{blockTime}
	n := newChainNode(t, "a", chainClaim{Head: 1000, LIB: 980, Time: blockTime})
	pool := newNodesPool(t, backend.Options{Now: clock.now}, map[string][]string{"hived": {n.url()}})
	tr := backend.NewLIBTracker(pool, "hived", time.Hour, nil)
	var hooked []uint64
	tr.OnUpdate(func(lib, _ uint64) { hooked = append(hooked, lib) })
	if tr.Seed(990) || tr.LastIrreversible() != 0 {
		t.Fatalf("a seed counted before the nodes agreed: LIB %d", tr.LastIrreversible())
	}
	tr.Poll(context.Background())
	steps := []struct {
		seed  uint64
		after time.Duration // clock advance before the seed
		rose  bool
		lib   uint64
	}{
		{995, 0, true, 995},                 // below the agreed head: counts
		{5000, 0, false, 980},               // above the agreed head: ignored, and it replaces 995
		{1000, 0, true, 1000},               // at most the head
		{970, 0, false, 980},                // below the agreed LIB: the agreed LIB
		{990, 0, true, 990},                 //
		{990, 61 * time.Second, false, 980}, // older than a minute: gone
	}
	for i, s := range steps {
		clock.t = clock.t.Add(s.after)
		if s.after > 0 {
			if got := tr.LastIrreversible(); got != s.lib {
				t.Errorf("step %d: after %v the LIB is %d, want %d", i, s.after, got, s.lib)
			}
			continue
		}
		if rose := tr.Seed(s.seed); rose != s.rose || tr.LastIrreversible() != s.lib {
			t.Errorf("step %d: Seed(%d) = %v, LIB %d; want %v, %d", i, s.seed, rose, tr.LastIrreversible(), s.rose, s.lib)
		}
	}
	// The first seed waited for the agreement: the poll found LIB 990.
	if want := []uint64{990, 995, 980, 1000, 980, 990}; fmt.Sprint(hooked) != fmt.Sprint(want) {
		t.Errorf("hooks saw %v, want %v", hooked, want)
	}
}
