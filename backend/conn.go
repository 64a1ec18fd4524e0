package backend

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// hivegate calls its backends through net/http's Transport (transport.go).
// The Transport hands a kept-alive connection to the next request as soon
// as an answer's body has been read to its end, which is before hivegate
// has checked that answer. A connection whose answer turns out wrong (a
// response to another request, garbage, an answer over the size cap) may be
// out of step with the backend: the next bytes on it can belong to no
// request at all. Such a connection must carry nothing more.
//
// The Transport has no hook for that, so hivegate dials its own
// connections and wraps them (conn): every call that gets a connection
// (httptrace's GotConn) is counted as one of its users, and a write waits
// until every earlier user has released it (release) — microseconds after
// its body was read, once its answer was checked. A connection released as
// rejected is closed, and the write that waited fails before a byte is
// written; the Transport then sends that request again on another
// connection (it does so for any request of which nothing was written).
// Nothing here reads or writes HTTP: the Transport does.

// A request is written on a kept-alive connection only while the backend
// has not closed it: a node that closes an idle connection (its keep-alive
// timeout, or a close after an answer without "Connection: close") would
// otherwise get the request written into a closed connection, and the
// call would fail or need a retry. Before the first write of a request on
// a connection that carried an earlier one, conn.Write checks whether the
// backend's end is closed (a read saw it, or the socket holds its FIN);
// then nothing is written and the Transport sends the request on another
// connection. A request that was written is never sent again by the
// Transport (exchange.go): its resend is one of the call's retries.

// errRejectedConn is the error of a write on a connection whose previous
// answer was rejected.
var errRejectedConn = errors.New("backend: connection closed after a rejected answer")

// errPeerClosed is the error of a write on a kept-alive connection the
// backend has closed.
var errPeerClosed = errors.New("backend: kept-alive connection closed by the backend")

// conn is a backend connection as dialed by hivegate (see above).
type conn struct {
	net.Conn
	received atomic.Int64 // bytes read from the backend since the dial

	// readFailed is set once a read returned an error (the backend's
	// close, a reset).
	readFailed atomic.Bool
	// raw is the socket, for peerClosed (nil where it cannot be had);
	// peekFn is the peek method as a value made once, peerGone its result
	// and peekBuf its buffer (all under mu), so that a check allocates
	// nothing.
	raw      syscall.RawConn
	peekFn   func(fd uintptr)
	peerGone bool
	peekBuf  [1]byte

	mu       sync.Mutex
	released *sync.Cond // signalled by release
	users    int        // calls holding the connection (got, not released)
	rejected bool
	// idle is set by a release: the next write starts a new request on a
	// connection that carried an earlier one.
	idle bool
}

// dialer dials backend connections wrapped in conn.
type dialer struct {
	net.Dialer
}

// DialContext dials addr and wraps the connection.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc := &conn{Conn: c}
	tc.released = sync.NewCond(&tc.mu)
	if sc, ok := c.(syscall.Conn); ok {
		tc.raw, _ = sc.SyscallConn()
	}
	tc.peekFn = tc.peek
	return tc, nil
}

// Read reads from the connection and counts what arrived.
func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.received.Add(int64(n))
	if err != nil {
		c.readFailed.Store(true)
	}
	return n, err
}

// Write waits until every earlier user of the connection has released it,
// then writes; on a rejected connection, and at the start of a request on
// a kept-alive connection the backend has closed, it writes nothing and
// fails.
func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	for c.users > 1 && !c.rejected {
		c.released.Wait()
	}
	rejected := c.rejected
	if !rejected && c.idle {
		c.idle = false
		if c.readFailed.Load() || c.peerClosed() {
			c.rejected = true
			_ = c.Conn.Close()
			c.mu.Unlock()
			return 0, errPeerClosed
		}
	}
	c.mu.Unlock()
	if rejected {
		return 0, errRejectedConn
	}
	return c.Conn.Write(p)
}

// got records a new user of the connection (a call it was handed to).
func (c *conn) got() {
	c.mu.Lock()
	c.users++
	c.mu.Unlock()
}

// release ends a user's hold on the connection. A rejected connection is
// closed at once: nothing more is written on it.
func (c *conn) release(reject bool) {
	c.mu.Lock()
	c.users--
	c.idle = true
	if reject && !c.rejected {
		c.rejected = true
		_ = c.Conn.Close()
	}
	c.mu.Unlock()
	c.released.Broadcast()
}

// netConnOf returns the conn under a connection the Transport handed out:
// the conn itself, or the one under a TLS connection.
func netConnOf(nc net.Conn) *conn {
	for nc != nil {
		switch c := nc.(type) {
		case *conn:
			return c
		case interface{ NetConn() net.Conn }:
			nc = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// tcpKeepAlive is the TCP keep-alive period of backend connections.
const tcpKeepAlive = 30 * time.Second
