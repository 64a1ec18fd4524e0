package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/hivegate/hivegate/cache"
)

// TestApplyMemoryLimit shows cache_max_capacity sets the soft memory limit,
// and that GOMEMLIMIT, when set, wins.
func TestApplyMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })

	const capacity = 256 << 20
	got := applyMemoryLimit(capacity)
	if want := cache.SuggestedMemoryLimit(capacity); got != want || got <= capacity {
		t.Fatalf("limit %d, want %d (above the budget %d)", got, want, capacity)
	}
	if now := debug.SetMemoryLimit(-1); now != got {
		t.Fatalf("runtime limit %d, want %d", now, got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	if got := applyMemoryLimit(capacity); got != 0 {
		t.Fatalf("with GOMEMLIMIT set, applyMemoryLimit set %d", got)
	}
	if now := debug.SetMemoryLimit(-1); now != math.MaxInt64 {
		t.Fatalf("with GOMEMLIMIT set the runtime limit changed to %d", now)
	}
}
