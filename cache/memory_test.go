package cache

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// The tests in this file measure the Go heap, so they do not call
// t.Parallel: top-level sequential tests run alone, before any parallel test
// resumes.

// heapAlloc returns HeapAlloc after a full collection.
func heapAlloc() (alloc, inuse uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, ms.HeapInuse
}

// TestEntryOverhead measures what an entry costs the heap beyond the bytes
// the cache already charges for its key and value, and checks that
// EntryOverhead covers it.
func TestEntryOverhead(t *testing.T) {
	for _, n := range []int{100_000, 140_000} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		keys := make([]string, n)
		lens := make([]int, n)
		for i := range keys {
			// Keys of the shape the router builds, with params of varying length.
			keys[i] = fmt.Sprintf("appbase.condenser_api.get_block.params=[%d,%q]", i, strings.Repeat("x", r.IntN(64)))
			lens[i] = 100 + r.IntN(1900)
		}
		src := make([]byte, 2048)

		before, _ := heapAlloc()
		c := New(1<<40, WithShards(16))
		for i, k := range keys {
			c.Set(k, src[:lens[i]], NoExpiry)
		}
		after, _ := heapAlloc()

		var payload int64 // len(key) + len(value) over all entries
		for i, k := range keys {
			e, ok := c.Get(k)
			if !ok || len(e.Value) != lens[i] {
				t.Fatalf("n=%d: key %q missing or wrong", n, k)
			}
			payload += int64(len(k) + lens[i])
		}
		// Stats().Bytes = sum of cap(key+value allocation) + n*EntryOverhead.
		charged := c.Stats().Bytes - int64(n)*EntryOverhead
		if charged < payload || charged > payload+payload/8 {
			t.Errorf("n=%d: charged key+value bytes %d, want between %d and %d (allocator rounding)", n, charged, payload, payload+payload/8)
		}
		perEntry := float64(int64(after)-int64(before)-charged) / float64(n)
		t.Logf("n=%d: measured overhead %.1f bytes/entry, EntryOverhead %d", n, perEntry, EntryOverhead)
		if perEntry > EntryOverhead {
			t.Errorf("n=%d: measured overhead %.1f bytes/entry exceeds EntryOverhead %d", n, perEntry, EntryOverhead)
		}
		if perEntry < EntryOverhead*3/4 {
			t.Errorf("n=%d: measured overhead %.1f bytes/entry is far below EntryOverhead %d: lower the constant", n, perEntry, EntryOverhead)
		}
		runtime.KeepAlive(c)
	}
}

// TestMemoryBounded fills a 32 MiB cache with about 300 MiB of entries of
// varied sizes and checks that both the accounted bytes and the real heap
// stay near the budget.
func TestMemoryBounded(t *testing.T) {
	const capacity = 32 << 20
	const total = 300 << 20
	testCases := []struct {
		name     string
		maxShift int // sizes are log-distributed from 16 B to 16<<maxShift B
	}{
		{name: "mixed up to 256 KiB", maxShift: 14},
		{name: "small up to 2 KiB", maxShift: 7},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(tc.maxShift)))
			src := make([]byte, 32<<tc.maxShift)
			for i := range src {
				src[i] = byte('a' + i%26)
			}
			c := New(capacity)

			var inserted int64
			for i := 0; inserted < total; i++ {
				// Many small results, some blocks, a few block ranges.
				size := 16 << r.IntN(tc.maxShift+1)
				size += r.IntN(size)
				key := fmt.Sprintf("hived.block_api.get_block.params={\"block_num\":%d}", i)
				ttl := NoExpiry
				if i%3 == 0 {
					ttl = ReversibleTTLDuration
				}
				c.Set(key, src[:size], ttl)
				inserted += int64(size)
				if i%100 == 0 {
					// Mix in hits so the LRU order is not plain insertion order.
					c.Get(fmt.Sprintf("hived.block_api.get_block.params={\"block_num\":%d}", i-r.IntN(i+1)/4))
				}
			}

			st := c.Stats()
			alloc, inuse := heapAlloc()
			t.Logf("inserted %d MiB; stats %+v; HeapAlloc %.1f MiB; HeapInuse %.1f MiB", inserted>>20, st, float64(alloc)/(1<<20), float64(inuse)/(1<<20))
			if st.Bytes > capacity {
				t.Errorf("Stats().Bytes = %d, over capacity %d", st.Bytes, capacity)
			}
			if st.Evictions == 0 || st.Hits == 0 {
				t.Errorf("stats %+v: want evictions and hits after inserting %d bytes into %d", st, inserted, capacity)
			}
			// The race detector's allocator leaves more holes, so the heap
			// bound is checked in normal builds only.
			if limit := uint64(capacity*13/10 + 16<<20); !raceEnabled && inuse > limit {
				t.Errorf("HeapInuse = %d, over %d (capacity*1.3 + 16 MiB)", inuse, limit)
			}
			runtime.KeepAlive(c)
		})
	}
}
