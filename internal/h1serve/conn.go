package h1serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Connection states, for Shutdown: an idle connection waits for the first
// byte of a request and may be closed at any time.
const (
	stateIdle int32 = iota
	stateActive
	stateClosed
)

// readBufSize is the read buffer of a connection, as net/http's: a request
// head that does not fit is handed over.
const readBufSize = 4 << 10

// conn is one client connection on the fast path.
type conn struct {
	s      *Server
	rwc    net.Conn
	ctx    context.Context // the base of every request's context
	br     *bufio.Reader
	remote string
	state  atomic.Int32

	// The read and write deadlines last set (zero: none).
	readDeadline, writeDeadline time.Time

	// w is the response writer, reused by every request.
	w response

	// The disconnect watcher (watch.go): started only when a handler asks
	// for its request context's Done channel, as a cache miss does, and
	// still runs watchDelay later. wreq is the request it is due for.
	wmu        sync.Mutex
	wreq       *requestContext
	watchTimer *time.Timer
	watchDone  chan struct{}
	aborting   atomic.Bool
	gone       atomic.Bool // the client closed or reset the connection
	peek       [1]byte
	peeked     bool
}

func newConn(s *Server, rwc net.Conn) *conn {
	c := &conn{s: s, rwc: rwc, remote: rwc.RemoteAddr().String()}
	// The values net/http puts in every request's context.
	c.ctx = context.WithValue(context.WithValue(context.Background(),
		http.ServerContextKey, s.fallback), http.LocalAddrContextKey, rwc.LocalAddr())
	c.br = bufio.NewReaderSize(connReader{c}, readBufSize)
	c.w.c = c
	c.w.hdr = http.Header{}
	return c
}

// connReader reads from the connection, first giving back the byte the
// disconnect watcher may have read.
type connReader struct{ c *conn }

func (r connReader) Read(p []byte) (int, error) {
	c := r.c
	if c.peeked && len(p) > 0 {
		c.peeked = false
		p[0] = c.peek[0]
		return 1, nil
	}
	return c.rwc.Read(p)
}

// serve runs the connection's request loop.
func (c *conn) serve() {
	handedOver := false
	defer func() {
		if v := recover(); v != nil && v != http.ErrAbortHandler {
			buf := make([]byte, 16<<10)
			buf = buf[:runtime.Stack(buf, false)]
			c.s.o.Logger.Error("panic serving request", "remote", c.remote, "panic", v, "stack", string(buf))
		}
		c.unscheduleWatch()
		c.s.track(c, false)
		if !handedOver {
			_ = c.rwc.Close()
		}
	}()
	first := true
	for {
		if !c.waitRequest(first) {
			return
		}
		head, ok, err := c.readHead()
		if err != nil {
			return
		}
		if !ok {
			handedOver = c.handOver()
			return
		}
		if !c.serveRequest(head) {
			return
		}
		first = false
		if c.s.shutting.Load() || !c.state.CompareAndSwap(stateActive, stateIdle) {
			return
		}
	}
}

// waitRequest waits for the start of the next request (its first byte, or
// its first 4 after an earlier request) under the idle timeout (the
// read-header timeout before the first request), and marks the connection
// active. It reports false when the connection is done.
func (c *conn) waitRequest(first bool) bool {
	// As net/http: the first request's head must come within the
	// read-header timeout (else the read timeout) of the connection; later
	// ones wait under the idle timeout (else the read timeout).
	d := c.s.o.IdleTimeout
	if first {
		d = c.s.o.ReadHeaderTimeout
	}
	if d <= 0 {
		d = c.s.o.ReadTimeout
	}
	// A byte the watcher read (peeked) does not make 4: the rest is read
	// under this deadline too, which replaces the past one that stopped
	// the watcher.
	if c.br.Buffered() < 4 {
		c.setReadDeadline(d, time.Now())
	}
	if first {
		if _, err := c.br.Peek(1); err != nil {
			return false
		}
	} else {
		// As net/http between requests: the next one starts with 4
		// bytes (fewer, then the end: the connection just closes), of
		// which the CR or LF some clients send after a POST body are
		// skipped.
		b, err := c.br.Peek(4)
		if err != nil {
			return false
		}
		n := 0
		for n < len(b) && (b[n] == '\r' || b[n] == '\n') {
			n++
		}
		_, _ = c.br.Discard(n)
	}
	return c.state.CompareAndSwap(stateIdle, stateActive)
}

// readHead reads the request head and parses it; ok is false when the
// request is not one for the fast path. err ends the connection.
func (c *conn) readHead() (h head, ok bool, err error) {
	arrived := time.Now()
	h.arrived = arrived
	// The head must come within the read-header timeout (or the read
	// timeout) of its first byte.
	limit := c.s.o.ReadHeaderTimeout
	if limit <= 0 || (c.s.o.ReadTimeout > 0 && c.s.o.ReadTimeout < limit) {
		limit = c.s.o.ReadTimeout
	}
	scanned := 0
	for {
		buf, _ := c.br.Peek(c.br.Buffered())
		if i := bytes.Index(buf[max(scanned-3, 0):], crlfcrlf); i >= 0 {
			end := max(scanned-3, 0) + i + len(crlfcrlf)
			if mh := c.s.o.MaxHeaderBytes; mh > 0 && end > mh {
				return h, false, nil // net/http decides
			}
			h.req = new(request)
			ok = parseHead(buf[:end], c.s.o.Path, &h, h.req.vals[:], &h.req.url)
			if ok {
				_, _ = c.br.Discard(end)
			}
			return h, ok, nil
		}
		if bareLF(buf[max(scanned-1, 0):]) {
			return h, false, nil // a line not ended by CRLF: net/http decides
		}
		scanned = len(buf)
		if scanned >= readBufSize {
			return h, false, nil
		}
		if !isRequestPrefix(buf, c.s.o.Path) {
			return h, false, nil // not ours: hand over without waiting for more
		}
		c.setReadDeadline(limit, arrived)
		if _, err := c.br.Peek(scanned + 1); err != nil {
			// A head cut short by the client's end of stream: net/http
			// answers it (400).
			if errors.Is(err, io.EOF) && scanned > 0 {
				return h, false, nil
			}
			return h, false, err
		}
	}
}

var crlfcrlf = []byte("\r\n\r\n")

// bareLF reports whether b holds a LF not preceded by a CR, or a CR not
// followed by a LF (a CR at b's end may still be).
func bareLF(b []byte) bool {
	for i, c := range b {
		switch {
		case c == '\n' && (i == 0 || b[i-1] != '\r'):
			return true
		case c == '\r' && i+1 < len(b) && b[i+1] != '\n':
			return true
		}
	}
	return false
}

// handOver gives the connection and the bytes read from it to the fallback
// server. It reports whether the connection now belongs to it.
func (c *conn) handOver() bool {
	pending, _ := c.br.Peek(c.br.Buffered())
	pending = bytes.Clone(pending)
	if c.peeked {
		// The watcher read it after the buffered bytes (it starts only
		// once they are consumed).
		pending = append(pending, c.peek[0])
	}
	c.s.track(c, false)
	if !c.state.CompareAndSwap(stateActive, stateClosed) {
		return false
	}
	_ = c.rwc.SetDeadline(time.Time{})
	c.s.handOver(c.rwc, pending)
	return true
}

// serveRequest calls the handler for one request and writes its answer.
// It reports whether the connection may serve another request.
func (c *conn) serveRequest(h head) bool {
	// The body must come within the read timeout of the first byte.
	if h.contentLength > int64(c.br.Buffered()) {
		c.setReadDeadline(c.s.o.ReadTimeout, h.arrived)
	}
	c.setWriteDeadline(c.s.o.WriteTimeout, h.arrived)

	rc, body := &h.req.rc, &h.req.body
	rc.Context, rc.c, rc.arrived = c.ctx, c, h.arrived
	body.c, body.rc, body.remaining = c, rc, h.contentLength
	if h.contentLength == 0 {
		rc.bodyRead(c.br.Buffered() > 0)
	}
	base := http.Request{
		Method:        http.MethodPost,
		URL:           h.url,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h.header,
		Body:          body,
		ContentLength: h.contentLength,
		Host:          h.host,
		RemoteAddr:    c.remote,
		RequestURI:    c.s.o.Path,
		Close:         h.close,
	}
	// WithContext's copy is made on the stack (it does not escape) and
	// copied into the request's own allocation.
	req := &h.req.req
	*req = *base.WithContext(rc)
	w := &c.w
	w.reset(body, h.close)
	c.handle(w, req, rc)
	c.s.served.Add(1)
	if body.remaining > 0 && !body.discard() {
		w.closeAfter = true
	}
	if c.gone.Load() {
		w.closeAfter = true
	}
	if !w.finish() {
		return false
	}
	return !w.closeAfter
}

// handle calls the handler; its request context is cancelled and the
// connection's watch stopped when it returns or panics.
func (c *conn) handle(w *response, req *http.Request, rc *requestContext) {
	defer c.stopWatch()
	defer rc.end()
	c.s.h.ServeHTTP(w, req)
}

// setReadDeadline sets the read deadline to from+d (none when d is 0),
// unless the one set already is at most 1/64 of d earlier: deadlines move
// on every request, and setting one costs a timer update.
func (c *conn) setReadDeadline(d time.Duration, from time.Time) {
	if t, ok := nextDeadline(c.readDeadline, d, from); ok {
		c.readDeadline = t
		_ = c.rwc.SetReadDeadline(t)
	}
}

// setWriteDeadline is setReadDeadline for writes.
func (c *conn) setWriteDeadline(d time.Duration, from time.Time) {
	if t, ok := nextDeadline(c.writeDeadline, d, from); ok {
		c.writeDeadline = t
		_ = c.rwc.SetWriteDeadline(t)
	}
}

// nextDeadline returns the deadline to set for d from from, and whether it
// differs enough from cur to be worth setting.
func nextDeadline(cur time.Time, d time.Duration, from time.Time) (time.Time, bool) {
	if d <= 0 {
		return time.Time{}, !cur.IsZero()
	}
	t := from.Add(d)
	if !cur.IsZero() && !cur.After(t) && t.Sub(cur) <= d/64 {
		return cur, false
	}
	return t, true
}

// body is a request body of a known length.
type body struct {
	c         *conn
	rc        *requestContext
	remaining int64
	closed    bool
}

// Read implements io.Reader; the last bytes come with io.EOF.
func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.remaining <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.remaining {
		p = p[:b.remaining]
	}
	n, err := b.c.br.Read(p)
	b.remaining -= int64(n)
	if b.remaining == 0 {
		b.rc.bodyRead(b.c.br.Buffered() > 0)
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// Close implements io.Closer.
func (b *body) Close() error {
	b.closed = true
	return nil
}

// discard drops what the handler left of the body when it is already in
// the read buffer, and reports whether the connection can go on.
func (b *body) discard() bool {
	if b.remaining > int64(b.c.br.Buffered()) {
		return false
	}
	_, err := b.c.br.Discard(int(b.remaining))
	b.remaining = 0
	return err == nil
}
