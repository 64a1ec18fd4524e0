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

// decodedForm is the key a front end keeps a decoded message under.
type decodedForm struct{}

// TestEntryDerivedForms: forms under different keys (a compressed form, a
// decoded message) live side by side, each replaced on its own, under
// concurrent setters.
func TestEntryDerivedForms(t *testing.T) {
	t.Parallel()
	c := cache.New(1 << 20)
	e, ok := c.Store("k", []byte(`"v"`), cache.NoExpiry)
	if !ok {
		t.Fatal("not stored")
	}
	if e.Derived(formA{}) != nil || e.Derived(decodedForm{}) != nil {
		t.Fatal("a new entry has forms")
	}
	e.SetDerived(decodedForm{}, "decoded", 16)
	e.SetDerived(formA{}, "a1", 2)
	e.SetDerived(formB{}, "b1", 2)
	e.SetDerived(formA{}, "a2", 2)
	if e.Derived(decodedForm{}) != "decoded" || e.Derived(formA{}) != "a2" || e.Derived(formB{}) != "b1" {
		t.Errorf("Decoded %v, A %v, B %v", e.Derived(decodedForm{}), e.Derived(formA{}), e.Derived(formB{}))
	}
	e.SetDerived(decodedForm{}, "decoded again", 16)
	if e.Derived(formA{}) != "a2" || e.Derived(formB{}) != "b1" {
		t.Error("replacing one form dropped the others")
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if i%2 == 0 {
				e.SetDerived(decodedForm{}, i, 8)
			} else {
				e.SetDerived(formB{}, i, 8)
			}
		})
	}
	wg.Wait()
	if e.Derived(formA{}) != "a2" || e.Derived(decodedForm{}) == nil || e.Derived(formB{}) == nil {
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
	// Entry 0 has left the cache: a form is not attached to it and costs nothing.
	if entries[0].SetDerived(formA{}, "late", 4000) || entries[0].Derived(formA{}) != nil {
		t.Error("a form was attached to an evicted entry")
	}
	if got := c.Stats().Bytes; got != st.Bytes {
		t.Errorf("a form on an evicted entry was charged: %d bytes, want %d", got, st.Bytes)
	}
}

// TestDecodedCharged shows a decoded message kept as a form: its size and
// what GrowDerived adds count in the budget, a replaced value
// is no longer charged, a value that needs room evicts other entries (not
// its own, though it is the oldest), and a value that cannot fit, or an
// entry that has left the cache, keeps nothing and is charged nothing.
func TestDecodedCharged(t *testing.T) {
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
	base := c.Stats().Bytes
	e := entries[0] // the least recently used
	bytesIs := func(what string, want int64) {
		t.Helper()
		if got := c.Stats().Bytes; got != want {
			t.Fatalf("%s: %d bytes in use, want %d", what, got, want)
		}
	}
	first, second := new(int), new(int)
	if !e.SetDerived(decodedForm{}, first, 500) || e.Derived(decodedForm{}) != first {
		t.Fatal("a 500-byte value that fits was not attached")
	}
	bytesIs("a 500-byte value", base+500)
	if !e.GrowDerived(decodedForm{}, first, 200) {
		t.Fatal("200 more bytes for the attached value were refused")
	}
	bytesIs("grown by 200", base+700)
	if !e.SetDerived(decodedForm{}, second, 300) {
		t.Fatal("a replacing value was not attached")
	}
	bytesIs("replaced by a 300-byte value", base+300)
	if e.GrowDerived(decodedForm{}, first, 100) {
		t.Error("a value no longer attached was grown")
	}
	bytesIs("growing a replaced value", base+300)
	if e.SetDerived(decodedForm{}, first, budget) || e.Derived(decodedForm{}) != second {
		t.Error("a value larger than the shard's budget was attached")
	}
	bytesIs("a value that cannot fit", base+300)

	// Room for the next value is made by evicting the least recently used
	// other entries: 1, then 2.
	free := budget - c.Stats().Bytes
	if !e.SetDerived(decodedForm{}, first, int(free)+300+1500) {
		t.Fatal("a value that fits after evictions was not attached")
	}
	st := c.Stats()
	if st.Bytes > budget || st.Entries != 2 || st.Evictions != 2 {
		t.Fatalf("%d bytes (budget %d) in %d entries after %d evictions, want within budget, 2 entries, 2 evictions", st.Bytes, budget, st.Entries, st.Evictions)
	}
	for _, k := range []string{"0", "3"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("entry %s was evicted", k)
		}
	}
	// Entry 1 has left the cache: nothing is attached to it or charged.
	if entries[1].SetDerived(decodedForm{}, second, 10) || entries[1].Derived(decodedForm{}) != nil {
		t.Error("a value was attached to an evicted entry")
	}
	bytesIs("a value for an evicted entry", st.Bytes)
	// The entry's cost leaves with it.
	c.Delete("0")
	if got := c.Stats().Bytes; got >= st.Bytes-free {
		t.Errorf("%d bytes in use after the entry with the large value left, want less than %d", got, st.Bytes-free)
	}
}

// TestReplacedFormUncharged: a form replaced under its key (a compressed
// form made again) stops being charged, and one that cannot fit is not
// attached: the budget counts the forms an entry holds, not the forms it
// was ever given.
func TestReplacedFormUncharged(t *testing.T) {
	t.Parallel()
	const budget = 8 << 10
	c := cache.New(budget, cache.WithShards(1))
	e, ok := c.Store("k", []byte(`"v"`), cache.NoExpiry)
	if !ok {
		t.Fatal("not stored")
	}
	base := c.Stats().Bytes
	for i := range 3 {
		if !e.SetDerived(formA{}, i, 1000) {
			t.Fatalf("form %d not attached", i)
		}
	}
	if got := c.Stats().Bytes; got != base+1000 {
		t.Errorf("after replacing a 1000-byte form twice: %d bytes in use, want %d", got, base+1000)
	}
	if e.SetDerived(formB{}, "too big", budget) || e.Derived(formB{}) != nil {
		t.Error("a form larger than the budget was attached")
	}
	if got := c.Stats().Bytes; got != base+1000 {
		t.Errorf("after a refused form: %d bytes in use, want %d", got, base+1000)
	}
}
