package cache_test

import (
	"math"
	"testing"

	"github.com/hivegate/hivegate/cache"
)

func TestSuggestedMemoryLimit(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	cases := []struct {
		capacity, want int64
	}{
		{-1, 0},
		{0, 0},
		{1, 1 + 48*mib},
		{256 * mib, 368 * mib},
		{4 << 30, 5<<30 + 48*mib},
		{math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 / 5 * 4, math.MaxInt64},
	}
	for _, tc := range cases {
		if got := cache.SuggestedMemoryLimit(tc.capacity); got != tc.want {
			t.Errorf("SuggestedMemoryLimit(%d) = %d, want %d", tc.capacity, got, tc.want)
		}
	}
	// Within the resident-memory target of issue 8 (1.3 × capacity +
	// 64 MiB), with room for what is resident beside the Go heap.
	for _, capacity := range []int64{16 * mib, 256 * mib, 8 << 30} {
		if limit, target := cache.SuggestedMemoryLimit(capacity), capacity*13/10+64*mib; limit > target-16*mib {
			t.Errorf("capacity %d: limit %d leaves less than 16 MiB below the target %d", capacity, limit, target)
		}
	}
}
