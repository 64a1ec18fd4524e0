package cache_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/cache"
)

type formA struct{}
type formB struct{}

// TestEntryDerivedForms: keyed forms and the decoded value live side by side,
// each replaced on its own, under concurrent setters.
func TestEntryDerivedForms(t *testing.T) {
	t.Parallel()
	c := cache.New(1 << 20)
	e, ok := c.Store("k", []byte(`"v"`), cache.NoExpiry)
	if !ok {
		t.Fatal("not stored")
	}
	if e.Derived(formA{}) != nil || e.Decoded() != nil {
		t.Fatal("a new entry has forms")
	}
	e.SetDecoded("decoded")
	e.SetDerived(formA{}, "a1", 2)
	e.SetDerived(formB{}, "b1", 2)
	e.SetDerived(formA{}, "a2", 2)
	if e.Decoded() != "decoded" || e.Derived(formA{}) != "a2" || e.Derived(formB{}) != "b1" {
		t.Errorf("Decoded %v, A %v, B %v", e.Decoded(), e.Derived(formA{}), e.Derived(formB{}))
	}
	e.SetDecoded("decoded again")
	if e.Derived(formA{}) != "a2" || e.Derived(formB{}) != "b1" {
		t.Error("SetDecoded dropped the keyed forms")
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if i%2 == 0 {
				e.SetDecoded(i)
			} else {
				e.SetDerived(formB{}, i, 8)
			}
		})
	}
	wg.Wait()
	if e.Derived(formA{}) != "a2" || e.Decoded() == nil || e.Derived(formB{}) == nil {
		t.Error("a form was lost under concurrent setters")
	}
}

// TestDerivedFormsCharged shows derived forms counted in the budget: the
// bytes in use grow by a form's size, a form that takes the shard past its
// budget evicts the least recently used entries, and an entry that has
// left the cache is charged nothing.
func TestDerivedFormsCharged(t *testing.T) {
	t.Parallel()
	const budget = 8 << 10
	c := cache.New(budget, cache.WithShards(1))
	value := []byte(`"` + strings.Repeat("x", 1000) + `"`)
	var entries []*cache.Entry
	for i := range 4 {
		e, ok := c.Store(strconv.Itoa(i), value, cache.NoExpiry)
		if !ok {
			t.Fatalf("entry %d not stored", i)
		}
		entries = append(entries, e)
	}
	before := c.Stats()
	entries[3].SetDerived(formA{}, "form", 500)
	if got := c.Stats(); got.Bytes != before.Bytes+500 || got.Entries != 4 {
		t.Fatalf("after a 500-byte form: %d bytes in %d entries, want %d in 4", got.Bytes, got.Entries, before.Bytes+500)
	}
	// Room for one more form of this size at most: the next ones evict
	// from the oldest entry on.
	free := budget - c.Stats().Bytes
	entries[3].SetDerived(formB{}, "big", int(free)+1)
	st := c.Stats()
	if st.Bytes > budget || st.Evictions != 1 || st.Entries != 3 {
		t.Fatalf("a form past the budget: %d bytes (budget %d), %d evictions, %d entries; want within the budget after 1 eviction", st.Bytes, budget, st.Evictions, st.Entries)
	}
	if _, ok := c.Get("0"); ok {
		t.Error("the least recently used entry survived the form that needed its room")
	}
	// Entry 0 has left the cache: a form attached to it now costs nothing.
	entries[0].SetDerived(formA{}, "late", 4000)
	if got := c.Stats().Bytes; got != st.Bytes {
		t.Errorf("a form on an evicted entry was charged: %d bytes, want %d", got, st.Bytes)
	}
}
