package backend_test

import (
	"testing"

	"github.com/hivegate/hivegate/backend"
)

func TestLIBTrackerSeed(t *testing.T) {
	t.Parallel()
	tr := backend.NewLIBTracker(nil, "hived", 0, nil)
	var hooked []uint64
	tr.OnUpdate(func(lib, _ uint64) { hooked = append(hooked, lib) })
	steps := []struct {
		seed  uint64
		moved bool
		lib   uint64
	}{
		{0, false, 0},
		{500, true, 500},
		{400, false, 500}, // never backwards
		{500, false, 500},
		{700, true, 700},
	}
	for i, s := range steps {
		if moved := tr.Seed(s.seed); moved != s.moved || tr.LastIrreversible() != s.lib {
			t.Errorf("step %d: Seed(%d) = %v, LIB %d; want %v, %d", i, s.seed, moved, tr.LastIrreversible(), s.moved, s.lib)
		}
	}
	if len(hooked) != 2 || hooked[0] != 500 || hooked[1] != 700 {
		t.Errorf("hooks saw %v, want [500 700]", hooked)
	}
	// An older answer observed afterwards does not undo the seed.
	tr.Observe([]byte(`{"last_irreversible_block_num":600,"head_block_number":620}`))
	if tr.LastIrreversible() != 700 || tr.Head() != 620 {
		t.Errorf("after Observe: LIB %d head %d, want 700 and 620", tr.LastIrreversible(), tr.Head())
	}
}
