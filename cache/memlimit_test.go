package cache_test

import (
	"math"
	"runtime/debug"
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

// TestApplyMemoryLimit shows a cache budget setting the soft memory
// limit and, with it, the collector's percentage; GOMEMLIMIT and GOGC, when
// set, win; without an in-process cache neither is touched.
func TestApplyMemoryLimit(t *testing.T) {
	// Not parallel: the limit and the percentage are the process's.
	const capacity = 256 << 20
	testCases := []struct {
		name      string
		capacity  int64
		env       map[string]string
		wantLimit int64 // 0: the limit is left as it was
		wantGC    int   // 0: the percentage is left as it was
	}{
		{"budget", capacity, nil, cache.SuggestedMemoryLimit(capacity), cache.GCPercentUnderLimit},
		{"GOGC set", capacity, map[string]string{"GOGC": "150"}, cache.SuggestedMemoryLimit(capacity), 0},
		{"GOMEMLIMIT set", capacity, map[string]string{"GOMEMLIMIT": "1GiB"}, 0, 0},
		{"no in-process cache", 0, nil, 0, 0},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			const before, beforeGC = math.MaxInt64, 77
			oldLimit, oldGC := debug.SetMemoryLimit(before), debug.SetGCPercent(beforeGC)
			t.Cleanup(func() {
				debug.SetMemoryLimit(oldLimit)
				debug.SetGCPercent(oldGC)
			})
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			limit, gc := cache.ApplyMemoryLimit(tc.capacity)
			if limit != tc.wantLimit || gc != tc.wantGC {
				t.Fatalf("set limit %d and percentage %d, want %d and %d", limit, gc, tc.wantLimit, tc.wantGC)
			}
			wantLimit, wantGC := tc.wantLimit, tc.wantGC
			if wantLimit == 0 {
				wantLimit = before
			}
			if wantGC == 0 {
				wantGC = beforeGC
			}
			if now := debug.SetMemoryLimit(-1); now != wantLimit {
				t.Errorf("runtime limit %d, want %d", now, wantLimit)
			}
			if now := debug.SetGCPercent(beforeGC); now != wantGC {
				t.Errorf("runtime percentage %d, want %d", now, wantGC)
			}
			if tc.wantLimit > 0 && tc.wantLimit <= tc.capacity {
				t.Errorf("limit %d, not above the budget %d", tc.wantLimit, tc.capacity)
			}
		})
	}
}
