package cache_test

import (
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
	e.SetDerived(formA{}, "a1")
	e.SetDerived(formB{}, "b1")
	e.SetDerived(formA{}, "a2")
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
				e.SetDerived(formB{}, i)
			}
		})
	}
	wg.Wait()
	if e.Derived(formA{}) != "a2" || e.Decoded() == nil || e.Derived(formB{}) == nil {
		t.Error("a form was lost under concurrent setters")
	}
}
