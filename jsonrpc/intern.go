package jsonrpc

import (
	"sync"
	"sync/atomic"
)

// maxInterned bounds the entries of an Interner. Routes and method names
// are small sets; the bound only matters when clients send made-up names,
// which then cost an allocation each, as they did before interning.
const maxInterned = 1024

// maxInternedLen is the longest string an Interner keeps.
const maxInternedLen = 128

// Interner maps strings to values built once: header values, method
// names. The zero value is empty and ready. Lookups are lock-free (the map is replaced, never modified, when
// a string is added) and do not allocate.
type Interner[V any] struct {
	m  atomic.Pointer[map[string]V]
	mu sync.Mutex // serialises add
}

// Lookup returns the value of s.
func (t *Interner[V]) Lookup(s string) (V, bool) {
	if m := t.m.Load(); m != nil {
		v, ok := (*m)[s]
		return v, ok
	}
	var zero V
	return zero, false
}

// LookupBytes is Lookup for a key held in a byte slice.
func (t *Interner[V]) LookupBytes(b []byte) (V, bool) {
	if m := t.m.Load(); m != nil {
		v, ok := (*m)[string(b)] // no allocation: the compiler looks up the bytes
		return v, ok
	}
	var zero V
	return zero, false
}

// Add records v for s, unless the interner is full or s too long, and
// returns the value of s (an earlier one when s was added meanwhile).
func (t *Interner[V]) Add(s string, v V) V {
	if len(s) > maxInternedLen {
		return v
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var old map[string]V
	if p := t.m.Load(); p != nil {
		old = *p
	}
	if have, ok := old[s]; ok {
		return have
	}
	if len(old) >= maxInterned {
		return v
	}
	m := make(map[string]V, len(old)+1)
	for k, x := range old {
		m[k] = x
	}
	m[s] = v
	t.m.Store(&m)
	return v
}
