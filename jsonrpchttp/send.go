package jsonrpchttp

import (
	"encoding/json"
	"net/http"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
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
	forms dispatch.Forms
}

// appendResult appends the answer {"jsonrpc":"2.0","result":…,"id":…},
// exactly as AppendResult writes it.
func (r *response) appendResult(id, result json.RawMessage) {
	if len(result) < directWriteMin {
		r.buf = jsonrpc.AppendResult(r.buf, id, result)
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
func (r *response) appendResultForms(id, result json.RawMessage, forms dispatch.Forms) {
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
	known                   jsonrpc.Interner[[]string]
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
	if vs, ok := v.known.Lookup(s); ok {
		return vs
	}
	return v.known.Add(s, []string{s})
}

// nullID is the id of answers to bodies whose id could not be read.
var nullID = json.RawMessage("null")
