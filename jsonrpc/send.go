package jsonrpc

import (
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
)

// directWriteMin is the size from which a result is not copied into the
// answer's buffer but written to the ResponseWriter as it is, between the
// buffered bytes before and after it. Copying a 2.8 MB cached list_accounts
// result into a buffer bigger than the pool keeps, only to write it out,
// cost more than the rest of the request; below this size one buffered
// Write is cheaper than several.
const directWriteMin = 32 << 10

// autoContentLength is the answer size up to which net/http works out the
// Content-Length itself (it buffers that much before it would switch to
// chunked encoding); larger answers get the header from send, so that they
// are not chunked.
const autoContentLength = 2048

// response is an answer being assembled: its small parts are copied into
// buf, its large results (directWriteMin and more) are kept aside with the
// position in buf where each belongs, and all are written in order.
type response struct {
	buf   []byte
	large []largePart
	// gz is set when the answer may go gzip-encoded (the client accepts
	// it and compression is on): results with kept forms are then held
	// apart like large ones, to be spliced in compressed (compress.go).
	gz bool
}

// largePart is a result written as it is, before buf[at:]. forms, when
// not nil, keeps the result's compressed form.
type largePart struct {
	at    int
	data  []byte
	forms Deriver
}

// appendResult appends the answer {"jsonrpc":"2.0","result":…,"id":…},
// exactly as AppendResult writes it.
func (r *response) appendResult(id, result json.RawMessage) {
	if len(result) < directWriteMin {
		r.buf = AppendResult(r.buf, id, result)
		return
	}
	if len(id) == 0 {
		id = nullID
	}
	r.buf = append(r.buf, `{"jsonrpc":"2.0","result":`...)
	r.large = append(r.large, largePart{at: len(r.buf), data: result})
	r.buf = append(r.buf, `,"id":`...)
	r.buf = append(r.buf, id...)
	r.buf = append(r.buf, '}')
}

// appendResultForms is appendResult for a result whose forms are kept in
// forms (nil: none): in an answer that may be compressed, such a result is
// held apart so that its kept compressed form can be spliced in.
func (r *response) appendResultForms(id, result json.RawMessage, forms Deriver) {
	if !r.gz || forms == nil || len(result) < minFormBytes {
		r.appendResult(id, result)
		return
	}
	if len(id) == 0 {
		id = nullID
	}
	r.buf = append(r.buf, `{"jsonrpc":"2.0","result":`...)
	r.large = append(r.large, largePart{at: len(r.buf), data: result, forms: forms})
	r.buf = append(r.buf, `,"id":`...)
	r.buf = append(r.buf, id...)
	r.buf = append(r.buf, '}')
}

// len is the answer's size in bytes.
func (r *response) len() int {
	n := len(r.buf)
	for _, p := range r.large {
		n += len(p.data)
	}
	return n
}

// writeTo writes the answer to w. Errors are the connection's: the client
// went away, nothing is left to tell it.
func (r *response) writeTo(w http.ResponseWriter) {
	prev := 0
	for _, p := range r.large {
		if p.at > prev {
			_, _ = w.Write(r.buf[prev:p.at])
		}
		_, _ = w.Write(p.data)
		prev = p.at
	}
	if prev < len(r.buf) || len(r.large) == 0 {
		_, _ = w.Write(r.buf[prev:])
	}
}

// reset empties r for reuse, dropping a buffer too large to keep and the
// references to large results.
func (r *response) reset() {
	if cap(r.buf) > maxPooledBuf {
		r.buf = nil
	}
	r.buf = r.buf[:0]
	clear(r.large)
	r.large = r.large[:0]
	r.gz = false
}

// headerValues hands out the []string values of the response headers the
// handler sets on every request (Content-Type, the cache status, the
// route), built once instead of once per request. The slices are shared by
// every response: net/http copies a handler's header map before writing it
// and never modifies a value in place, and their capacity equals their
// length, so an Add to the same header appends to a copy.
type headerValues struct {
	contentType, gzip, vary []string
	known                   interner[[]string]
}

// init fills in the values every handler uses.
func (v *headerValues) init() {
	v.contentType = []string{"application/json"}
	v.gzip = []string{"gzip"}
	v.vary = []string{"Accept-Encoding"}
	for _, s := range []string{"hit", "miss", "bypass", "coalesced"} {
		v.of(s)
	}
}

// of returns the one-element header value s.
func (v *headerValues) of(s string) []string {
	if vs, ok := v.known.lookup(s); ok {
		return vs
	}
	return v.known.add(s, []string{s})
}

// maxInterned bounds the entries of an interner. Routes and method names
// are small sets; the bound only matters when clients send made-up names,
// which then cost an allocation each, as they did before interning.
const maxInterned = 1024

// maxInternedLen is the longest string an interner keeps.
const maxInternedLen = 128

// interner maps strings to values built once: header values, method
// names. Lookups are lock-free (the map is replaced, never modified, when
// a string is added) and do not allocate.
type interner[V any] struct {
	m  atomic.Pointer[map[string]V]
	mu sync.Mutex // serialises add
}

// lookup returns the value of s.
func (t *interner[V]) lookup(s string) (V, bool) {
	if m := t.m.Load(); m != nil {
		v, ok := (*m)[s]
		return v, ok
	}
	var zero V
	return zero, false
}

// lookupBytes is lookup for a key held in a byte slice.
func (t *interner[V]) lookupBytes(b []byte) (V, bool) {
	if m := t.m.Load(); m != nil {
		v, ok := (*m)[string(b)] // no allocation: the compiler looks up the bytes
		return v, ok
	}
	var zero V
	return zero, false
}

// add records v for s, unless the interner is full or s too long, and
// returns the value of s (an earlier one when s was added meanwhile).
func (t *interner[V]) add(s string, v V) V {
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
