package cache_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
)

// keyed returns key and value laid out in one allocation, as
// backend.Request.ResultPrefix returns a result.
func keyed(key, value string) []byte {
	buf := slices.Grow([]byte(nil), len(key)+len(value))
	return append(append(buf, key...), value...)
}

func TestStoreBuffer(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	c := cache.New(64<<10, cache.WithShards(1), cache.WithClock(clock.Now))
	buf := keyed("k", `{"a":1}`)
	e, ok := c.StoreBuffer(buf, 1, time.Minute)
	if !ok || string(e.Value) != `{"a":1}` || e.Key() != "k" || !e.Expires.Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("StoreBuffer = %+v, %v", e, ok)
	}
	if &e.Value[0] != &buf[1] {
		t.Error("StoreBuffer copied the buffer it was to take over")
	}
	if cap(e.Value) != len(e.Value) {
		t.Errorf("cap(Value) = %d, len %d: appending to it would write into the buffer", cap(e.Value), len(e.Value))
	}
	if got, _ := c.Get("k"); got != e {
		t.Error("Get returns another entry than the one StoreBuffer returned")
	}
	if st := c.Stats(); st.Bytes != int64(cap(buf))+cache.EntryOverhead || st.Entries != 1 {
		t.Errorf("Stats = %+v, want one entry charged cap(buf) + EntryOverhead = %d", st, int64(cap(buf))+cache.EntryOverhead)
	}
	// The same key and value cost what Store charges for them.
	if want := entryCost(t, "k", []byte(`{"a":1}`)); c.Stats().Bytes != want {
		t.Errorf("StoreBuffer charged %d, Store charges %d", c.Stats().Bytes, want)
	}
}

func TestStoreBufferNotStored(t *testing.T) {
	t.Parallel()
	const capacity = 64 << 10
	big := string(make([]byte, capacity/2))
	testCases := []struct {
		name   string
		buf    []byte
		keyLen int
		ttl    time.Duration
	}{
		{"negative ttl", keyed("k", "x"), 1, -1},
		{"larger than a shard", keyed("k", big), 1, cache.NoExpiry},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := cache.New(capacity, cache.WithShards(2))
			c.Set("k", []byte("old"), cache.NoExpiry)
			if e, ok := c.StoreBuffer(tc.buf, tc.keyLen, tc.ttl); ok || e != nil {
				t.Errorf("StoreBuffer = %v, %v; want nil, false", e, ok)
			}
			if e, ok := c.Get("k"); ok {
				t.Errorf("Get = %q: want a miss, neither the new nor the old value", e.Value)
			}
			if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 {
				t.Errorf("Stats = %+v, want empty", st)
			}
		})
	}
	c := cache.New(capacity)
	for _, keyLen := range []int{-1, 4} {
		if e, ok := c.StoreBuffer(keyed("k", "v"), keyLen, cache.NoExpiry); ok || e != nil {
			t.Errorf("StoreBuffer with key length %d of a 2-byte buffer = %v, %v; want nil, false", keyLen, e, ok)
		}
	}
}

func TestGetBytes(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	c := cache.New(1<<20, cache.WithClock(clock.Now))
	c.Set("appbase.condenser_api.get_block.params=[1]", []byte("{}"), time.Hour)
	buf := []byte("appbase.condenser_api.get_block.params=[1]")
	e, ok := c.GetBytes(buf)
	if !ok || string(e.Value) != "{}" || e.Key() != string(buf) {
		t.Fatalf("GetBytes = %+v, %v", e, ok)
	}
	// The key is not kept: overwriting the buffer changes nothing.
	copy(buf, "XXXXXXX")
	if e2, ok := c.Get("appbase.condenser_api.get_block.params=[1]"); !ok || e2 != e || e.Key() != "appbase.condenser_api.get_block.params=[1]" {
		t.Errorf("after the lookup buffer changed: Get = %+v, %v, Key %q", e2, ok, e.Key())
	}
	if _, ok := c.GetBytes([]byte("appbase.condenser_api.get_block.params=[2]")); ok {
		t.Error("GetBytes hit a key never stored")
	}
	clock.Advance(2 * time.Hour)
	if _, ok := c.GetBytes([]byte("appbase.condenser_api.get_block.params=[1]")); ok {
		t.Error("GetBytes hit an expired entry")
	}
	if st := c.Stats(); st.Hits != 2 || st.Misses != 2 || st.Expired != 1 || st.Entries != 0 {
		t.Errorf("Stats = %+v, want 2 hits, 2 misses, 1 expired, no entries", st)
	}
}

func TestGetBytesHitDoesNotAllocate(t *testing.T) {
	// Not parallel: AllocsPerRun counts allocations process-wide.
	clock := newFakeClock()
	c := cache.New(1<<20, cache.WithClock(clock.Now))
	key := []byte("appbase.condenser_api.get_block.params=[2]")
	c.Set(string(key), []byte("{}"), time.Hour)
	if n := testing.AllocsPerRun(1000, func() { c.GetBytes(key) }); n != 0 {
		t.Errorf("GetBytes hit: %v allocations, want 0", n)
	}
}
