package cache

import (
	"slices"
	"sync/atomic"
	"time"
	"unsafe"
)

// EntryOverhead is the number of bytes charged against the budget for every
// entry on top of its key and value bytes.
//
// The key and value are copied into one allocation whose full capacity (the
// allocator's size class, so rounding included) is charged; EntryOverhead
// covers the rest of what one entry costs the Go heap: the golang-lru list
// element (two list links, the list pointer, the key string header, the value
// pointer and an unused expiry time: 80 bytes), the [Entry] itself (96 bytes,
// with the pointer to its shard that charges derived forms)
// and the entry's share of the shard's map (a 24-byte slot plus control
// bytes, between about 35 and 50 bytes depending on how full the map's
// tables are).
//
// Measured with runtime.ReadMemStats (Go 1.26, amd64): 211 bytes/entry at
// 100k entries and 226 at 140k. TestEntryOverhead repeats the measurement
// and fails if the real figure exceeds this constant, which is the
// measurement rounded up.
//
// Not covered: the heap's fragmentation under churn (free slots in spans
// that still hold live entries) and the garbage collector's headroom
// (GOGC); see the package documentation.
const EntryOverhead = 232

// Entry is one cached value. An Entry is immutable once stored, apart from
// the forms derived from its value (SetDerived): Set never modifies an
// existing Entry, it replaces it, so a caller holding an Entry from Get may
// keep using it after the key was overwritten or evicted. An Entry must not
// be copied.
//
// What the cache stores is bytes (Value) and what it charges for them. A
// form derived from Value (the gzip form the JSON-RPC front end splices into
// answers, the typed message a Connect handler decodes and its encodings) is
// its maker's, kept under a key of the maker's own type, and charged to the
// cache budget like the bytes: one way to keep a form, one account of what
// it costs.
type Entry struct {
	// Value is the raw JSON-RPC result bytes. The slice is owned by the cache
	// and shared by every reader: callers must not modify it.
	Value []byte
	// Expires is when the entry stops being served; the zero time means never.
	Expires time.Time

	key   string // the key the entry is stored under; shares its allocation with Value
	cost  int64  // bytes charged against the shard budget, derived forms included
	shard *shard // the shard holding the entry (set when stored)
	forms atomic.Pointer[derivedBox]
}

// Key returns the key the entry is stored under. The string shares the
// entry's allocation, so a caller that needs the key of an entry it got
// (for a log line, say) has it without a copy.
func (e *Entry) Key() string { return e.key }

// derivedBox holds the forms derived from Value so that they can be swapped
// atomically. A box is never modified once stored; a change stores a new
// one (under the shard's lock when the entry is stored).
type derivedBox struct {
	forms []keyedForm
}

// keyedForm is one form attached with SetDerived and what it is charged.
type keyedForm struct {
	k, v any
	size int64
}

// Derived returns the form attached with SetDerived under key k, or nil.
// It is safe for concurrent use and does not allocate.
func (e *Entry) Derived(k any) any {
	if b := e.forms.Load(); b != nil {
		for i := range b.forms {
			if b.forms[i].k == k {
				return b.forms[i].v
			}
		}
	}
	return nil
}

// SetDerived attaches v, a form derived from Value, under key k (a key of
// the caller's own type, so that front ends do not collide), replacing the
// form k had, and reports whether it did. The form must depend only on
// Value and is read-only once attached: it is shared by every reader of the
// entry. k and v must be comparable (GrowDerived compares v).
//
// size is what v costs the heap, in bytes: it is charged against the cache
// budget like the entry itself (least recently used entries are evicted to
// make room; the entry itself is marked used), so that derived forms never
// take the cache past cache_max_capacity; a replaced form is no longer
// charged. A form that would take the entry past its shard's budget, or
// an entry that has left the cache, gets nothing attached (false): the
// caller serves what it made and lets it go. An entry that was never stored
// in a cache attaches v and charges nothing.
func (e *Entry) SetDerived(k, v any, size int) bool {
	s := e.shard
	if s == nil {
		for {
			old := e.forms.Load()
			if e.forms.CompareAndSwap(old, old.with(k, v, 0)) {
				return true
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := e.forms.Load()
	var was int64
	if f := old.find(k); f != nil {
		was = f.size
	}
	if !s.chargeLocked(e, int64(size)-was) {
		return false
	}
	e.forms.Store(old.with(k, v, int64(size)))
	return true
}

// GrowDerived charges n more bytes to v, the form attached under k, for
// what v keeps beside itself once attached (a Connect handler keeps the
// message's wire encodings, made on first use). It reports false, charging
// nothing, when v is no longer the form under k, the entry has left the
// cache, or the bytes would not fit in the entry's shard: the caller should
// then not keep them. The bytes are no longer charged once v is replaced.
func (e *Entry) GrowDerived(k, v any, n int) bool {
	s := e.shard
	if s == nil {
		return e.Derived(k) == v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := e.forms.Load()
	f := old.find(k)
	if f == nil || f.v != v || !s.chargeLocked(e, int64(n)) {
		return false
	}
	e.forms.Store(old.with(k, v, f.size+int64(n)))
	return true
}

// find returns the form under k, nil when there is none; b may be nil.
func (b *derivedBox) find(k any) *keyedForm {
	if b == nil {
		return nil
	}
	for i := range b.forms {
		if b.forms[i].k == k {
			return &b.forms[i]
		}
	}
	return nil
}

// with returns a new box holding b's forms with v (charged size) under k;
// b may be nil.
func (b *derivedBox) with(k, v any, size int64) *derivedBox {
	nb := &derivedBox{}
	if b != nil {
		nb.forms = make([]keyedForm, 0, len(b.forms)+1)
		for _, f := range b.forms {
			if f.k != k {
				nb.forms = append(nb.forms, f)
			}
		}
	}
	nb.forms = append(nb.forms, keyedForm{k: k, v: v, size: size})
	return nb
}

// newEntry copies key and value into one allocation and returns the copied
// key and an Entry whose Value points into it. One allocation instead of two
// saves a header and a size-class rounding per entry, and cap(buf) is exactly
// what the allocator handed out, so the charged cost includes the rounding.
//
// The returned key is a string view of buf's first bytes; buf is never
// written after this function returns, which is what unsafe.String requires.
// Because the key shares buf with the value, a shard must insert the returned
// key (not an older copy) with e, or a replaced value stays reachable.
func newEntry(key string, value []byte) (string, *Entry) {
	buf := slices.Grow([]byte(nil), len(key)+len(value)) // rounds cap up to the size class
	buf = append(append(buf, key...), value...)
	n := len(buf)
	e := &Entry{Value: buf[len(key):n:n], cost: int64(cap(buf)) + EntryOverhead}
	if len(key) > 0 {
		e.key = unsafe.String(&buf[0], len(key))
	}
	return e.key, e
}

// expired reports whether the entry must no longer be served at now.
func (e *Entry) expired(now time.Time) bool {
	return !e.Expires.IsZero() && !now.Before(e.Expires)
}
