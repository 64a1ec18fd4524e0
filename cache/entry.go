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
// its derived forms (SetDecoded, SetDerived): Set never modifies an existing Entry, it replaces it, so
// a caller holding an Entry from Get may keep using it after the key was
// overwritten or evicted. An Entry must not be copied.
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

// derivedBox holds the values derived from Value so that they can be swapped
// atomically: the one of SetDecoded and the keyed ones of SetDerived. A box is
// never modified once stored; a change stores a new one.
type derivedBox struct {
	v     any
	vSize int64 // what v is charged (SetDecoded, GrowDecoded); changed under the shard's lock only
	forms []keyedForm
}

// keyedForm is one value attached with SetDerived.
type keyedForm struct{ k, v any }

// Decoded returns the value attached with SetDecoded, or nil if none was attached.
// It is safe for concurrent use and does not allocate.
func (e *Entry) Decoded() any {
	if b := e.forms.Load(); b != nil {
		return b.v
	}
	return nil
}

// Derived returns the value attached with SetDerived under key k, or nil.
// It is safe for concurrent use and does not allocate.
func (e *Entry) Derived(k any) any {
	if b := e.forms.Load(); b != nil {
		for _, f := range b.forms {
			if f.k == k {
				return f.v
			}
		}
	}
	return nil
}

// SetDerived attaches a value derived from Value under key k (a key of the
// caller's own type, so that front ends do not collide), beside the one of
// SetDecoded: for example the gzip-encoded form of the result the JSON-RPC
// front end sends to clients that accept it, so that a hit is not
// compressed again. The value depends only on Value and is read-only once
// attached. size is what it costs the heap, in bytes: it is charged against
// the cache budget like the entry itself (least recently used entries are
// evicted to make room, possibly this one), so that derived forms never
// take the cache past cache_max_capacity. A form replaced under the same k
// stays charged until the entry goes.
func (e *Entry) SetDerived(k, v any, size int) {
	if e.shard != nil && size > 0 {
		e.shard.charge(e, int64(size))
	}
	for {
		old := e.forms.Load()
		nb := &derivedBox{forms: make([]keyedForm, 0, 1)}
		if old != nil {
			nb.v, nb.vSize = old.v, old.vSize
			for _, f := range old.forms {
				if f.k != k {
					nb.forms = append(nb.forms, f)
				}
			}
		}
		nb.forms = append(nb.forms, keyedForm{k, v})
		if e.forms.CompareAndSwap(old, nb) {
			return
		}
	}
}

// SetDecoded attaches a value derived from Value (for example the decoded
// protobuf message a Connect handler builds from the JSON result) so that it
// is not recomputed on every hit, and reports whether it did. The attached
// value must depend only on Value and is read-only once attached: it is
// shared by every reader of the entry.
//
// size is what v costs the heap, in bytes. Like a form of SetDerived, it is
// charged against the cache budget (least recently used entries are evicted
// to make room; the entry itself is marked used): a decoded message is
// several times larger than its JSON and, uncharged, took the process far
// past cache_max_capacity. A value replaced by a later SetDecoded is no
// longer charged. A value that would take the entry past its shard's
// budget, or an entry that has left the cache, gets nothing attached (false):
// the caller serves what it decoded and lets it go. An entry that was never
// stored in a cache attaches v and charges nothing. v must be comparable
// (a pointer, say): GrowDecoded compares it.
func (e *Entry) SetDecoded(v any, size int) bool {
	s := e.shard
	if s == nil {
		e.swapDecoded(v, 0)
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var old int64
	if b := e.forms.Load(); b != nil {
		old = b.vSize
	}
	if !s.chargeLocked(e, int64(size)-old) {
		return false
	}
	e.swapDecoded(v, int64(size))
	return true
}

// GrowDecoded charges n more bytes to the value attached with SetDecoded,
// when v is still that value, for what v keeps beside itself once attached
// (a Connect handler keeps the message's wire encodings, made on first
// use). It reports false, charging nothing, when v is no longer attached,
// the entry has left the cache, or the bytes would not fit in the entry's
// shard: the caller should then not keep them. The bytes are no longer
// charged once v is replaced.
func (e *Entry) GrowDecoded(v any, n int) bool {
	s := e.shard
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b := e.forms.Load()
	if b == nil || b.v != v || !s.chargeLocked(e, int64(n)) {
		return false
	}
	e.swapDecoded(v, b.vSize+int64(n))
	return true
}

// swapDecoded stores a box with v (charged size) and the current keyed
// forms; SetDerived may replace the box concurrently, hence the loop.
func (e *Entry) swapDecoded(v any, size int64) {
	for {
		old := e.forms.Load()
		nb := &derivedBox{v: v, vSize: size}
		if old != nil {
			nb.forms = old.forms
		}
		if e.forms.CompareAndSwap(old, nb) {
			return
		}
	}
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
