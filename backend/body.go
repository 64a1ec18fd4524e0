package backend

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/hivegate/hivegate/jsonrpc"
)

// maxPooledBuf is the largest buffer put back into a pool; larger ones (big
// answers) are left to the garbage collector so the pools do not pin memory.
const maxPooledBuf = 1 << 20

// drainLimit is how much of an unwanted body (5xx, 4xx, probe answers) is
// read so the connection can be reused; beyond it the connection is dropped.
const drainLimit = 64 << 10

// errBodyClosed is returned by reads of a request body after Close.
var errBodyClosed = errors.New("backend: request body read after close")

// errTooLarge reports an answer over Options.MaxResponseBytes.
var errTooLarge = errors.New("backend: response body over the size cap")

// requestBody is the encoded JSON-RPC request of one call, in a pooled
// buffer shared by every attempt. The transport may read or close a body in
// its own goroutine after RoundTrip returned, so the buffer goes back to the
// pool only when the call and every reader handed to the transport are done
// with it (a reference count).
type requestBody struct {
	buf  *[]byte
	refs atomic.Int32
	pool *sync.Pool
}

// newRequestBody encodes {"jsonrpc":"2.0","id":id,"method":method,"params":params}
// into a pooled buffer. params is copied byte for byte; nil or empty params
// omit the member.
func (p *Pool) newRequestBody(id uint64, method string, params json.RawMessage) *requestBody {
	bp := p.reqBufs.Get().(*[]byte)
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"method":`...)
	b = jsonrpc.AppendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	b = append(b, '}')
	*bp = b
	rb := &requestBody{buf: bp, pool: &p.reqBufs}
	rb.refs.Store(1)
	return rb
}

// bytes returns the encoded request.
func (rb *requestBody) bytes() []byte { return *rb.buf }

// release drops one reference; the last one returns the buffer to the pool.
func (rb *requestBody) release() {
	if rb.refs.Add(-1) != 0 {
		return
	}
	if cap(*rb.buf) <= maxPooledBuf {
		*rb.buf = (*rb.buf)[:0]
		rb.pool.Put(rb.buf)
	}
	rb.buf = nil
}

// newReader returns a reader over the body that holds a reference until it
// is closed.
func (rb *requestBody) newReader() *bodyReader {
	rb.refs.Add(1)
	return &bodyReader{body: rb}
}

// bodyReader is one attempt's view of a requestBody. Close may race with a
// Read or WriteTo in the transport's writer goroutine; the reference is then
// released by whichever finishes last, and never while bytes are in use.
type bodyReader struct {
	body   *requestBody
	mu     sync.Mutex
	off    int
	busy   bool
	closed bool
}

// acquire returns the unread bytes and marks the reader busy.
func (r *bodyReader) acquire() ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, false
	}
	r.busy = true
	return r.body.bytes()[r.off:], true
}

// done records n bytes consumed and releases the reference if Close came
// in while the reader was busy.
func (r *bodyReader) done(n int) {
	r.mu.Lock()
	r.off += n
	r.busy = false
	closed := r.closed
	r.mu.Unlock()
	if closed {
		r.body.release()
	}
}

// Read implements io.Reader.
func (r *bodyReader) Read(p []byte) (int, error) {
	rest, ok := r.acquire()
	if !ok {
		return 0, errBodyClosed
	}
	n := copy(p, rest)
	r.done(n)
	if n == len(rest) {
		return n, io.EOF
	}
	return n, nil
}

// WriteTo implements io.WriterTo so the transport writes the body in one
// call without an intermediate copy buffer.
func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	rest, ok := r.acquire()
	if !ok {
		return 0, errBodyClosed
	}
	n, err := w.Write(rest)
	r.done(n)
	return int64(n), err
}

// Close implements io.Closer; it is idempotent.
func (r *bodyReader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	busy := r.busy
	r.mu.Unlock()
	if !busy {
		r.body.release()
	}
	return nil
}

// getRespBuf returns an empty buffer with room for at least need bytes.
func (p *Pool) getRespBuf(need int) *[]byte {
	if need > maxPooledBuf {
		b := make([]byte, 0, need)
		return &b
	}
	bp := p.respBufs.Get().(*[]byte)
	if cap(*bp) < need {
		*bp = make([]byte, 0, need)
	}
	return bp
}

// putRespBuf returns a buffer to the pool unless it is too large to keep.
func (p *Pool) putRespBuf(bp *[]byte) {
	if cap(*bp) > maxPooledBuf {
		return
	}
	*bp = (*bp)[:0]
	p.respBufs.Put(bp)
}

// chunkSize is the size of the pooled chunks that collect an answer of
// unknown length once the first buffer is full.
const chunkSize = 64 << 10

// readBody reads r to its end and stops with errTooLarge as soon as more
// than limit bytes arrived (never reading more than limit+1). It fills *bp's
// capacity first — callers size it from Content-Length when known — and then
// body is (*bp)[:n] and fresh is false. A body that goes on past it (chunked
// or compressed answers) is collected in pooled chunks and joined into a new
// buffer of the exact size (fresh true, *bp untouched), so a large answer of
// unknown length costs one allocation of its size rather than a series of
// doublings.
func (p *Pool) readBody(r io.Reader, bp *[]byte, limit int64) (body []byte, fresh bool, err error) {
	budget := limit + 1
	first, eof, err := fill(r, (*bp)[:0], budget)
	switch {
	case int64(len(first)) > limit:
		return nil, false, errTooLarge
	case err != nil:
		return nil, false, err
	case eof:
		return first, false, nil
	}
	var chunks []*[]byte
	defer func() {
		for _, c := range chunks {
			p.chunks.Put(c)
		}
	}()
	total := int64(len(first))
	for !eof {
		cp := p.chunks.Get().(*[]byte)
		chunks = append(chunks, cp)
		*cp, eof, err = fill(r, (*cp)[:0], budget-total)
		total += int64(len(*cp))
		switch {
		case total > limit:
			return nil, false, errTooLarge
		case err != nil:
			return nil, false, err
		case eof && total == int64(len(first)):
			return first, false, nil // the first buffer held it exactly
		}
	}
	body = make([]byte, 0, total)
	body = append(body, first...)
	for _, c := range chunks {
		body = append(body, *c...)
	}
	return body, true, nil
}

// fill reads from r into b's spare capacity, at most budget bytes in all. It
// stops when b is full, at EOF (eof true) or at an error.
func fill(r io.Reader, b []byte, budget int64) ([]byte, bool, error) {
	end := cap(b)
	if int64(end) > budget {
		end = int(budget)
	}
	for len(b) < end {
		n, err := r.Read(b[len(b):end])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, true, nil
		}
		if err != nil {
			return b, false, err
		}
	}
	return b, false, nil
}

// drain reads and discards up to drainLimit bytes of an unwanted body so the
// keep-alive connection can be reused, then closes it.
func drain(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, drainLimit)
	_ = body.Close()
}
