package backend

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/hivegate/hivegate/internal/httpwire"
)

// hivegate talks to its backends with this small HTTP/1.1 client rather
// than net/http's Transport. A call is one POST of a body already in memory
// and one answer read to its end: the client writes the request with a
// single Write, reads and parses the answer on the caller's goroutine (no
// per-connection reader and writer goroutines, no channels, no header
// maps) and keeps the connections of each backend in a small LIFO pool.
// See h1wire.go for the message format.

const (
	// idleTimeout closes a connection left idle this long.
	idleTimeout = 90 * time.Second
	// staleCheckAfter is the idle time after which a connection is checked
	// (alive) before it is reused.
	staleCheckAfter = time.Second
	// tcpKeepAlive is the TCP keep-alive period of backend connections.
	tcpKeepAlive = 30 * time.Second
	// readBufSize is the read buffer of a connection; an answer's head and
	// a small body usually arrive in one read.
	readBufSize = 4 << 10
)

// connPool holds the connections of one backend: at most cap(slots) open
// at once (Options.MaxConnsPerBackend), the idle ones in a LIFO stack so
// the most recently used, the likeliest to be alive, is reused first.
type connPool struct {
	addr        string      // host:port to dial
	tlsConf     *tls.Config // nil for http://
	dialer      net.Dialer
	dialTimeout time.Duration
	staleAfter  time.Duration // staleCheckAfter; tests lower it
	gzips       *sync.Pool    // *gzip.Reader, shared by the Pool's backends

	// slots holds one token per connection in use or being dialed. Idle
	// connections hold none, and a connection is dialed only when no idle
	// one is left, so open connections never exceed cap(slots).
	slots chan struct{}

	mu         sync.Mutex
	idle       []*h1conn // oldest first
	pruneTimer *time.Timer
	pruneArmed bool
}

// h1conn is one connection and the state of the answer being read on it.
// It is used by one goroutine at a time: the one holding it.
type h1conn struct {
	pool      *connPool
	conn      net.Conn     // the TCP or TLS connection
	tcp       *net.TCPConn // the TCP connection under conn, for alive
	br        *bufio.Reader
	idleAt    time.Time
	deadline  time.Time       // the deadline set on conn
	stop      func() bool     // stops the context.AfterFunc of the exchange
	interrupt func()          // sets a past deadline, from a context.AfterFunc
	lazyArm   bool            // plain TCP: arming may wait (arm)
	armCtx    context.Context // the exchange's context while its arming waits
	armDL     time.Time       // and its deadline
	gz        *gzip.Reader    // the decoder of the current body (decoded)

	reused      bool // taken from the idle stack
	gotBytes    bool // a byte of the answer arrived
	writeFailed bool // the request could not be written

	// The answer's head (readHead) and the body's framing (Read).
	status         int
	http10         bool
	contentLength  int64 // -1 when not given
	chunked        bool
	closeAfter     bool // Connection: close
	keepAliveToken bool // Connection: keep-alive
	gzipped        bool // Content-Encoding: gzip
	keepAlive      bool // the connection may carry another request
	mode           bodyMode
	remaining      int64 // bodyLength: bytes left
	chunkLeft      int64 // bodyChunked: bytes left in the current chunk
	chunkEnd       bool  // bodyChunked: a chunk's data ended; its CRLF is unread
}

// newConnPool returns the connection pool of the backend at u.
func newConnPool(u *url.URL, opts Options, gzips *sync.Pool) *connPool {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	cp := &connPool{
		addr:        net.JoinHostPort(host, port),
		dialer:      net.Dialer{Timeout: opts.DialTimeout, KeepAlive: tcpKeepAlive},
		dialTimeout: opts.DialTimeout,
		staleAfter:  staleCheckAfter,
		gzips:       gzips,
		slots:       make(chan struct{}, opts.MaxConnsPerBackend),
	}
	if u.Scheme == "https" {
		conf := &tls.Config{}
		if opts.TLSConfig != nil {
			conf = opts.TLSConfig.Clone()
		}
		if conf.ServerName == "" {
			conf.ServerName = host
		}
		conf.NextProtos = []string{"http/1.1"}
		cp.tlsConf = conf
	}
	return cp
}

// roundTrip sends req (a complete request, newRequest) to the backend and
// reads the answer's head. On success the caller holds the connection: it
// reads the body (Read, decoded, Pool.drain) and then calls release. On
// failure the connection is closed.
//
// ctx bounds everything: waiting for a free connection, dialing, writing
// and reading, including the body read after roundTrip returns. Its
// deadline becomes the connection's; when it can be cancelled, a
// context.AfterFunc interrupts blocked I/O (and the connection is then
// dropped), so no goroutine is started per request. On plain TCP both are
// applied only once the exchange has run for armDelay (arm).
//
// A kept-alive connection may have been closed by the backend while idle
// (its idle timeout, a restart). Connections idle for more than a second
// are checked before reuse (alive), but a close can still cross the
// request. So when a reused connection fails before a single byte of the
// answer arrived — the write failed, or the first read met EOF or a reset —
// the request is sent once more on a freshly dialed connection. The backend
// either did not get the request or dropped it unanswered, and without this
// a restarted backend would fail one call per pooled connection. This retry
// is part of the attempt and does not use up Request.Retries; resent tells
// the caller it happened (Response.Attempts counts both exchanges). A
// request sent once (Request.Once: a broadcast) is resent only when it could
// not be written at all: a backend that read it may have acted on it.
func (cp *connPool) roundTrip(ctx context.Context, req []byte, once bool) (c *h1conn, resent bool, err error) {
	if err := cp.acquire(ctx); err != nil {
		return nil, false, err
	}
	for {
		c = nil
		if !resent {
			c = cp.takeIdle(once)
		}
		if c == nil {
			if c, err = cp.dial(ctx); err != nil {
				<-cp.slots
				return nil, resent, err
			}
		}
		if err = c.exchange(ctx, req); err == nil {
			return c, resent, nil
		}
		retry := c.reused && !resent && !c.gotBytes && ctx.Err() == nil && c.staleFailure(err) && (!once || c.writeFailed)
		c.disarm()
		c.close()
		if !retry {
			<-cp.slots
			return nil, resent, err
		}
		// The connections idle at least as long as this one are most
		// likely closed too (a restart, the backend's idle timeout).
		cp.dropIdleSince(c.idleAt)
		resent = true
	}
}

// acquire takes a connection slot, waiting while all are in use until ctx
// ends or its deadline passes (a callContext's Done does not close then).
func (cp *connPool) acquire(ctx context.Context) error {
	select {
	case cp.slots <- struct{}{}:
		return nil
	default:
	}
	var expired <-chan time.Time
	if dl, ok := ctx.Deadline(); ok {
		t := time.NewTimer(time.Until(dl))
		defer t.Stop()
		expired = t.C
	}
	select {
	case cp.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no free connection among %d: %w", cap(cp.slots), ctx.Err())
	case <-expired:
		return fmt.Errorf("no free connection among %d: %w", cap(cp.slots), context.DeadlineExceeded)
	}
}

// takeIdle pops the most recently used idle connection, skipping (and
// closing) expired ones and those idle for a while — or, with check, any —
// that turn out closed. Requests that are never resent (Request.Once) check
// every connection: a system call is cheap next to a failed broadcast.
func (cp *connPool) takeIdle(check bool) *h1conn {
	var now time.Time
	for {
		cp.mu.Lock()
		n := len(cp.idle)
		if n == 0 {
			cp.mu.Unlock()
			return nil
		}
		c := cp.idle[n-1]
		cp.idle[n-1] = nil
		cp.idle = cp.idle[:n-1]
		cp.mu.Unlock()
		if now.IsZero() {
			now = time.Now()
		}
		if idle := now.Sub(c.idleAt); idle < idleTimeout && ((idle <= cp.staleAfter && !check) || c.alive()) {
			c.reused = true
			return c
		}
		c.close()
	}
}

// dial opens a new connection, with its TLS handshake for https backends;
// the handshake is bounded by ctx and the dial timeout.
func (cp *connPool) dial(ctx context.Context) (*h1conn, error) {
	raw, err := cp.dialer.DialContext(ctx, "tcp", cp.addr)
	if err != nil {
		return nil, err
	}
	c := &h1conn{pool: cp, conn: raw}
	c.tcp, _ = raw.(*net.TCPConn)
	if cp.tlsConf != nil {
		tc := tls.Client(raw, cp.tlsConf)
		// The handshake's I/O ends at the dial timeout or ctx's deadline,
		// whichever comes first (a callContext's Done does not close at
		// its deadline); cancelling ctx interrupts it too.
		dl := time.Now().Add(cp.dialTimeout)
		if cd, ok := ctx.Deadline(); ok && cd.Before(dl) {
			dl = cd
		}
		_ = raw.SetDeadline(dl)
		err := tc.HandshakeContext(ctx)
		_ = raw.SetDeadline(time.Time{})
		if err == nil {
			if proto := tc.ConnectionState().NegotiatedProtocol; proto != "" && proto != "http/1.1" {
				err = fmt.Errorf("backend negotiated protocol %q, want http/1.1", proto)
			}
		}
		if err != nil {
			_ = raw.Close()
			return nil, fmt.Errorf("TLS handshake: %w", err)
		}
		c.conn = tc
	}
	c.lazyArm = c.tcp != nil && cp.tlsConf == nil
	c.br = bufio.NewReaderSize((*armedReader)(c), readBufSize)
	c.interrupt = func() { _ = c.conn.SetDeadline(httpwire.LongAgo()) }
	return c, nil
}

// exchange sends req under ctx and reads the answer's head.
func (c *h1conn) exchange(ctx context.Context, req []byte) error {
	c.gotBytes, c.writeFailed = false, false // gotBytes: readHead
	if err := c.arm(ctx); err != nil {
		return err
	}
	if err := c.write(req); err != nil {
		c.writeFailed = true
		return err
	}
	return c.readHead()
}

// armDelay is how long an exchange on a plain TCP connection runs before
// its context's cancellation is armed (h1serve watches a client for going
// away only after the same delay). Arming costs a context.AfterFunc and
// makes the request's context cancellable: a tenth of a fast proxied call,
// which ends well before armDelay and never pays it.
const armDelay = 10 * time.Millisecond

// arm applies ctx to the connection: its deadline, and an interruption of
// blocked I/O when ctx is cancelled (disarm stops it).
//
// On a plain TCP connection the interruption is armed lazily: the
// connection's deadline is first set armDelay ahead (or to ctx's deadline
// when that is sooner), and only when that passes in a read or a write
// (wake) are ctx's deadline and cancellation applied. A deadline already
// set between armDelay/2 and armDelay ahead is kept, so that under load a
// connection's deadline rarely moves. A TLS connection is armed at once: a
// TLS write that timed out cannot be resumed.
func (c *h1conn) arm(ctx context.Context) error {
	dl, _ := ctx.Deadline()
	if !c.lazyArm {
		return c.armNow(ctx, dl)
	}
	now := time.Now()
	due := now.Add(armDelay)
	if !dl.IsZero() && !due.Before(dl) {
		return c.armNow(ctx, dl) // the deadline comes first: nothing to defer
	}
	if c.deadline.Before(now.Add(armDelay/2)) || c.deadline.After(due) {
		if err := c.conn.SetDeadline(due); err != nil {
			return err
		}
		c.deadline = due
	}
	c.armCtx, c.armDL = ctx, dl
	return nil
}

// armNow applies ctx's deadline dl and cancellation to the connection.
func (c *h1conn) armNow(ctx context.Context, dl time.Time) error {
	if !dl.Equal(c.deadline) {
		if err := c.conn.SetDeadline(dl); err != nil {
			return err
		}
		c.deadline = dl
	}
	if ctx.Done() != nil {
		c.stop = context.AfterFunc(ctx, c.interrupt)
	}
	return nil
}

// wake handles an I/O error of an exchange whose arming waits: when it is
// the arming deadline passing, it arms the exchange's context and reports
// that the I/O may go on.
func (c *h1conn) wake(err error) bool {
	ctx := c.armCtx
	if ctx == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	c.armCtx = nil
	// The deadline goes first: once the AfterFunc is registered, a
	// cancellation may set a past one at any moment.
	return c.armNow(ctx, c.armDL) == nil
}

// write writes req, resuming when the arming deadline passes mid-write.
func (c *h1conn) write(req []byte) error {
	for {
		n, err := c.conn.Write(req)
		if err == nil || !c.wake(err) {
			return err
		}
		req = req[n:] // the rest, now under ctx's deadline
	}
}

// armedReader reads from a connection, resuming when the arming deadline
// passes mid-read; the connection's bufio.Reader reads through it.
type armedReader h1conn

// Read implements io.Reader.
func (r *armedReader) Read(p []byte) (int, error) {
	c := (*h1conn)(r)
	for {
		n, err := c.conn.Read(p)
		switch {
		case err == nil || !c.wake(err):
			return n, err
		case n > 0:
			return n, nil
		}
	}
}

// disarm stops the cancellation set up by arm; it reports false when the
// cancellation already happened (or is happening): the connection must not
// be reused.
func (c *h1conn) disarm() bool {
	c.armCtx = nil
	if c.stop == nil {
		return true
	}
	ok := c.stop()
	c.stop = nil
	return ok
}

// staleFailure reports whether err, on a connection that received nothing,
// looks like the backend closed it while it was idle.
func (c *h1conn) staleFailure(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return c.writeFailed || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// close closes the connection.
func (c *h1conn) close() { _ = c.conn.Close() }

// release ends the exchange on c. The connection goes back to the idle
// stack only when its answer was read to the end without error, allows
// keep-alive and left nothing unread, and ctx did not interrupt it;
// otherwise it is closed.
func (cp *connPool) release(c *h1conn) {
	if c.gz != nil {
		cp.gzips.Put(c.gz)
		c.gz = nil
	}
	if c.disarm() && c.keepAlive && c.mode == bodyDone && c.br.Buffered() == 0 {
		cp.put(c)
	} else {
		c.close()
	}
	<-cp.slots
}

// put pushes an idle connection and arms the pruning of expired ones.
func (cp *connPool) put(c *h1conn) {
	c.idleAt = time.Now()
	cp.mu.Lock()
	cp.idle = append(cp.idle, c)
	if !cp.pruneArmed {
		cp.pruneArmed = true
		if cp.pruneTimer == nil {
			cp.pruneTimer = time.AfterFunc(idleTimeout, cp.prune)
		} else {
			cp.pruneTimer.Reset(idleTimeout)
		}
	}
	cp.mu.Unlock()
}

// prune closes the connections idle for idleTimeout and re-arms itself for
// the next one to expire.
func (cp *connPool) prune() {
	now := time.Now()
	cp.dropIdleSince(now.Add(-idleTimeout))
	cp.mu.Lock()
	if len(cp.idle) > 0 {
		cp.pruneTimer.Reset(idleTimeout - now.Sub(cp.idle[0].idleAt))
	} else {
		cp.pruneArmed = false
	}
	cp.mu.Unlock()
}

// dropIdleSince closes the connections idle since t or longer.
func (cp *connPool) dropIdleSince(t time.Time) {
	cp.mu.Lock()
	n := 0
	for n < len(cp.idle) && !cp.idle[n].idleAt.After(t) {
		n++
	}
	old := make([]*h1conn, n)
	copy(old, cp.idle)
	rest := copy(cp.idle, cp.idle[n:])
	clear(cp.idle[rest:])
	cp.idle = cp.idle[:rest]
	cp.mu.Unlock()
	for _, c := range old {
		c.close()
	}
}

// closeIdle closes every idle connection; the pool stays usable.
func (cp *connPool) closeIdle() {
	cp.mu.Lock()
	idle := cp.idle
	cp.idle = nil
	cp.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
}
