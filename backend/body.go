package backend

import (
	"errors"
	"io"
)

// maxPooledBuf is the largest buffer put back into a pool; larger ones (big
// answers) are left to the garbage collector so the pools do not pin memory.
const maxPooledBuf = 1 << 20

// drainLimit is how much of an unwanted body (5xx, 4xx, probe answers) is
// read so the connection can be reused; beyond it the connection is dropped.
const drainLimit = 64 << 10

// errTooLarge reports an answer over Options.MaxResponseBytes.
var errTooLarge = errors.New("backend: response body over the size cap")

// Lease is a pooled response buffer. A Response's Lease, set when its
// Request asked to PooledResult, holds the Response's Result: the caller gives it
// back with Release once it is done with Result, and must not read Result
// afterwards. A caller that never calls Release only leaves the buffer to
// the garbage collector.
type Lease struct {
	pool *Pool
	b    []byte
	lent bool // handed out with a Response, not yet released
}

// Release gives the buffer back to its pool. It does nothing on a nil
// Lease or one already released; a Lease is used by one goroutine at a
// time.
func (l *Lease) Release() {
	if l == nil || !l.lent {
		return
	}
	l.lent = false
	l.pool.putRespBuf(l)
}

// getRespBuf returns an empty buffer with room for at least need bytes.
func (p *Pool) getRespBuf(need int) *Lease {
	if need > maxPooledBuf {
		return &Lease{pool: p, b: make([]byte, 0, need)}
	}
	l := p.respBufs.Get().(*Lease)
	if cap(l.b) < need {
		l.b = make([]byte, 0, need)
	}
	return l
}

// putRespBuf returns a buffer to the pool unless it is too large to keep.
func (p *Pool) putRespBuf(l *Lease) {
	if cap(l.b) > maxPooledBuf {
		return
	}
	l.b = l.b[:0]
	p.respBufs.Put(l)
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

// drain reads and discards up to drainLimit bytes of an unwanted body (5xx,
// 4xx, probe answers) so that the connection can be reused: the Transport
// keeps a connection whose body was read to its end. A longer body, or a
// broken one, leaves the connection to be closed with the body.
func (p *Pool) drain(body io.Reader) {
	cp := p.chunks.Get().(*[]byte)
	buf := (*cp)[:cap(*cp)]
	for total := 0; total <= drainLimit; {
		n, err := body.Read(buf)
		total += n
		if err != nil {
			break
		}
	}
	p.chunks.Put(cp)
}
