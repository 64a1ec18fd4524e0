package cache_test

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
)

// fakeClock is a settable clock for expiry tests.
type fakeClock struct{ now atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.now.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.now.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.now.Add(int64(d)) }

// entryCost returns what one entry of key and value is charged.
func entryCost(t *testing.T, key string, value []byte) int64 {
	t.Helper()
	c := cache.New(1<<30, cache.WithShards(1))
	c.Set(key, value, cache.NoExpiry)
	return c.Stats().Bytes
}

func TestGetSet(t *testing.T) {
	t.Parallel()
	c := cache.New(1 << 20)
	if _, ok := c.Get("k"); ok {
		t.Fatal("hit in an empty cache")
	}
	c.Set("k", []byte(`{"a":1}`), cache.NoExpiry)
	e, ok := c.Get("k")
	if !ok || string(e.Value) != `{"a":1}` || !e.Expires.IsZero() {
		t.Fatalf("Get = %+v, %v", e, ok)
	}
	st := c.Stats()
	want := cache.Stats{Entries: 1, Bytes: st.Bytes, Capacity: 1 << 20, Hits: 1, Misses: 1}
	if st != want {
		t.Errorf("Stats = %+v, want %+v", st, want)
	}
	if least := int64(len("k")+len(`{"a":1}`)) + cache.EntryOverhead; st.Bytes < least {
		t.Errorf("Bytes = %d, want at least %d", st.Bytes, least)
	}
}

func TestStore(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	c := cache.New(64<<10, cache.WithShards(1), cache.WithClock(clock.Now))
	e, ok := c.Store("k", []byte("v"), time.Minute)
	if !ok || string(e.Value) != "v" || !e.Expires.Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("Store = %+v, %v", e, ok)
	}
	if got, _ := c.Get("k"); got != e {
		t.Error("Get returns another entry than the one Store returned")
	}
	if e, ok := c.Store("k", make([]byte, 128<<10), cache.NoExpiry); ok || e != nil {
		t.Errorf("Store of a value over the budget = %v, %v; want nil, false", e, ok)
	}
	if st := c.Stats(); st.Hits != 1 || st.Misses != 0 || st.Entries != 0 {
		t.Errorf("Stats = %+v, want the one Get hit and no entries", st)
	}
}

func TestSetCopiesKeyAndValue(t *testing.T) {
	t.Parallel()
	c := cache.New(1 << 20)
	key := []byte("key-1")
	val := []byte("value-1")
	c.Set(string(key), val, cache.NoExpiry)
	copy(val, "XXXXXXX")
	e, ok := c.Get("key-1")
	if !ok || string(e.Value) != "value-1" {
		t.Fatalf("Get = %q, %v; want the value as it was when Set", e.Value, ok)
	}
	if cap(e.Value) != len(e.Value) {
		t.Errorf("cap(Value) = %d, len %d: appending to it would write into the key's buffer", cap(e.Value), len(e.Value))
	}
}

func TestLRUOrder(t *testing.T) {
	t.Parallel()
	val := bytes.Repeat([]byte("v"), 100)
	cost := entryCost(t, "a", val)
	// Room for exactly three entries in one shard.
	c := cache.New(3*cost, cache.WithShards(1))
	for _, k := range []string{"a", "b", "c"} {
		c.Set(k, val, cache.NoExpiry)
	}
	if _, ok := c.Get("a"); !ok { // a becomes most recently used; b is now oldest
		t.Fatal("a missing before any eviction")
	}
	c.Set("d", val, cache.NoExpiry)
	checks := []struct {
		key string
		hit bool
	}{{"b", false}, {"a", true}, {"c", true}, {"d", true}} // reads a, c, d in this order
	for _, ch := range checks {
		if _, ok := c.Get(ch.key); ok != ch.hit {
			t.Errorf("Get(%q) hit = %v, want %v", ch.key, ok, ch.hit)
		}
	}
	c.Set("e", val, cache.NoExpiry) // evicts the least recently read: a
	if _, ok := c.Get("a"); ok {
		t.Error("a survived although it was the least recently used")
	}
	st := c.Stats()
	if st.Evictions != 2 || st.Entries != 3 || st.Bytes != 3*cost {
		t.Errorf("Stats = %+v, want 2 evictions, 3 entries, %d bytes", st, 3*cost)
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	c := cache.New(1<<20, cache.WithClock(clock.Now))
	c.Set("ttl", []byte("1"), 10*time.Second)
	c.Set("forever", []byte("2"), cache.NoExpiry)
	c.Set("never", []byte("3"), -1)

	e, ok := c.Get("ttl")
	if !ok || !e.Expires.Equal(clock.Now().Add(10*time.Second)) {
		t.Fatalf("Get(ttl) = %+v, %v; want expiry in 10s", e, ok)
	}
	if _, ok := c.Get("never"); ok {
		t.Error("entry with negative ttl was stored")
	}
	clock.Advance(10*time.Second - 1)
	if _, ok := c.Get("ttl"); !ok {
		t.Error("entry expired before its ttl")
	}
	clock.Advance(1)
	if _, ok := c.Get("ttl"); ok {
		t.Error("entry served at its expiry time")
	}
	clock.Advance(100 * 365 * 24 * time.Hour)
	if _, ok := c.Get("forever"); !ok {
		t.Error("NoExpiry entry expired")
	}
	st := c.Stats()
	if st.Expired != 1 || st.Entries != 1 || st.Bytes != entryCost(t, "forever", []byte("2")) {
		t.Errorf("Stats = %+v, want 1 expired and only the NoExpiry entry left", st)
	}
}

func TestRemoveExpired(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	c := cache.New(1<<20, cache.WithClock(clock.Now), cache.WithShards(4))
	for i := range 10 {
		ttl := time.Duration(i+1) * time.Second
		if i%2 == 0 {
			ttl = cache.NoExpiry
		}
		c.Set(fmt.Sprint(i), []byte("x"), ttl)
	}
	clock.Advance(5 * time.Second) // expires keys 1 and 3 (ttl 2 s, 4 s)
	if n := c.RemoveExpired(); n != 2 {
		t.Errorf("RemoveExpired = %d, want 2", n)
	}
	if st := c.Stats(); st.Entries != 8 || st.Expired != 2 || st.Hits+st.Misses != 0 {
		t.Errorf("Stats = %+v, want 8 entries, 2 expired, no lookups", st)
	}
}

func TestOverwrite(t *testing.T) {
	t.Parallel()
	small, large := []byte("small"), bytes.Repeat([]byte("L"), 5000)
	c := cache.New(1 << 20)
	c.Set("k", small, cache.NoExpiry)
	old, _ := c.Get("k")
	if got, want := c.Stats().Bytes, entryCost(t, "k", small); got != want {
		t.Fatalf("Bytes = %d, want %d", got, want)
	}
	c.Set("k", large, time.Hour)
	if got, want := c.Stats().Bytes, entryCost(t, "k", large); got != want {
		t.Errorf("after growing: Bytes = %d, want %d", got, want)
	}
	c.Set("k", small, cache.NoExpiry)
	if got, want := c.Stats().Bytes, entryCost(t, "k", small); got != want {
		t.Errorf("after shrinking: Bytes = %d, want %d", got, want)
	}
	if st := c.Stats(); st.Entries != 1 || st.Evictions != 0 {
		t.Errorf("Stats = %+v, want one entry and no evictions", st)
	}
	// An entry handed out before is never changed by later writes.
	if string(old.Value) != "small" {
		t.Errorf("old entry changed to %q", old.Value)
	}
}

func TestNotStored(t *testing.T) {
	t.Parallel()
	const capacity = 64 << 10
	testCases := []struct {
		name  string
		value []byte
		ttl   time.Duration
	}{
		{"negative ttl", []byte("x"), -1},
		{"larger than a shard", make([]byte, capacity/2), cache.NoExpiry},
		{"larger than the cache", make([]byte, 2*capacity), time.Second},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := cache.New(capacity, cache.WithShards(2))
			c.Set("k", []byte("old"), cache.NoExpiry)
			c.Set("k", tc.value, tc.ttl)
			if e, ok := c.Get("k"); ok {
				t.Errorf("Get = %q: want a miss, neither the new nor the old value", e.Value)
			}
			if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 {
				t.Errorf("Stats = %+v, want empty", st)
			}
		})
	}
}

func TestZeroCapacity(t *testing.T) {
	t.Parallel()
	c := cache.New(0)
	c.Set("k", []byte("v"), cache.NoExpiry)
	if _, ok := c.Get("k"); ok {
		t.Error("a zero-capacity cache stored an entry")
	}
	if st := c.Stats(); st.Capacity != 0 || st.Entries != 0 {
		t.Errorf("Stats = %+v", st)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	c := cache.New(1 << 20)
	c.Set("k", []byte("v"), cache.NoExpiry)
	if !c.Delete("k") {
		t.Error("Delete of a stored key = false")
	}
	if c.Delete("k") {
		t.Error("Delete of a missing key = true")
	}
	if st := c.Stats(); st.Entries != 0 || st.Bytes != 0 || st.Evictions != 0 {
		t.Errorf("Stats = %+v, want empty with no evictions", st)
	}
}

// TestDecoded: a form kept with an entry is seen by its next reader and
// does not survive a new value under the key.
func TestDecoded(t *testing.T) {
	t.Parallel()
	c := cache.New(1 << 20)
	c.Set("k", []byte("v"), cache.NoExpiry)
	e, _ := c.Get("k")
	if e.Derived(decodedForm{}) != nil {
		t.Fatalf("Decoded of a new entry = %v", e.Derived(decodedForm{}))
	}
	type decoded struct{ n int }
	e.SetDerived(decodedForm{}, &decoded{n: 7}, 8)
	e2, _ := c.Get("k")
	if d, ok := e2.Derived(decodedForm{}).(*decoded); !ok || d.n != 7 {
		t.Errorf("Decoded seen by the next reader = %v", e2.Derived(decodedForm{}))
	}
	c.Set("k", []byte("w"), cache.NoExpiry)
	if e3, _ := c.Get("k"); e3.Derived(decodedForm{}) != nil {
		t.Errorf("Decoded survived a new value: %v", e3.Derived(decodedForm{}))
	}
}

func TestGetHitDoesNotAllocate(t *testing.T) {
	// Not parallel: AllocsPerRun counts allocations process-wide.
	clock := newFakeClock()
	c := cache.New(1<<20, cache.WithClock(clock.Now))
	c.Set("appbase.condenser_api.get_block.params=[1]", []byte("{}"), cache.NoExpiry)
	c.Set("appbase.condenser_api.get_block.params=[2]", []byte("{}"), time.Hour)
	for _, key := range []string{"appbase.condenser_api.get_block.params=[1]", "appbase.condenser_api.get_block.params=[2]"} {
		if n := testing.AllocsPerRun(1000, func() { c.Get(key) }); n != 0 {
			t.Errorf("Get(%q) hit: %v allocations, want 0", key, n)
		}
	}
}

// TestConcurrent hammers one small cache from many goroutines; run it with
// -race. Every value names its key, so a hit returning another key's value
// or a torn value is caught.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	const capacity = 256 << 10
	c := cache.New(capacity, cache.WithShards(4))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20_000 {
				key := fmt.Sprintf("key-%d", (i*7+g)%500)
				switch i % 10 {
				case 0, 1, 2:
					ttl := cache.NoExpiry
					if i%3 == 0 {
						ttl = time.Millisecond
					}
					c.Set(key, bytes.Repeat([]byte(key+";"), 1+i%40), ttl)
				case 3:
					c.Delete(key)
				case 4:
					if i%1000 == 4 {
						c.RemoveExpired()
						c.Stats()
					}
				default:
					if e, ok := c.Get(key); ok {
						if !bytes.HasPrefix(e.Value, []byte(key+";")) || len(e.Value)%(len(key)+1) != 0 {
							t.Errorf("Get(%q) = %q", key, e.Value)
							return
						}
						if v := len(e.Value); e.SetDerived(decodedForm{}, v, 8) {
							e.GrowDerived(decodedForm{}, v, 4)
						}
						_ = e.Derived(decodedForm{})
					}
				}
			}
		})
	}
	wg.Wait()
	st := c.Stats()
	if st.Bytes > capacity || st.Bytes < 0 || st.Hits == 0 {
		t.Errorf("Stats = %+v: want 0 <= Bytes <= %d and some hits", st, capacity)
	}
	// The byte total must still match the entries: emptying the cache must
	// bring it back to exactly zero.
	for i := range 500 {
		c.Delete(fmt.Sprintf("key-%d", i))
	}
	if st := c.Stats(); st.Bytes != 0 || st.Entries != 0 {
		t.Errorf("after deleting every key: Stats = %+v, want 0 bytes and 0 entries", st)
	}
}
