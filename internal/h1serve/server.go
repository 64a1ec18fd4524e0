// Package h1serve is hivegate's lean HTTP/1.1 connection loop for JSON-RPC
// posts, in front of a net/http server that handles everything else.
//
// A legacy client keeps a connection open and posts one small JSON-RPC
// body after another to "/". For that exchange net/http's per-request
// machinery (a background reader goroutine per request, several deadline
// changes, header cloning and sorting, buffered writers) costs more than a
// cache hit itself. Server reads such requests itself, calls the same
// http.Handler with its own http.ResponseWriter and writes each answer
// with one system call.
//
// It serves only what it fully understands: "POST <path> HTTP/1.1" whose
// head fits in its read buffer, carries one Host and one Content-Length,
// and has no Transfer-Encoding, Expect or Upgrade. Any other connection or
// request (HTTP/2 prior knowledge, GET, chunked bodies, 100-continue, big
// headers, malformed input...) is handed, with the bytes already read, to
// the fallback http.Server at the request boundary, so that net/http's
// answer to it is exactly what it would have been without this package.
package h1serve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Server. The timeouts and the header limit mean what
// the http.Server fields of the same names mean; zero means none, as there.
type Options struct {
	// Path is the one request target served on the fast path ("/").
	Path              string
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	// Logger receives handler panics and accept errors; nil discards them.
	Logger *slog.Logger
}

// Stats counts what a Server did with its requests.
type Stats struct {
	// Served is the number of requests answered on the fast path.
	Served uint64
	// HandedOver is the number of connections given to the fallback server.
	HandedOver uint64
}

// Server serves the fast path and hands the rest to a fallback http.Server.
type Server struct {
	h        http.Handler
	fallback *http.Server
	o        Options

	served, handedOver atomic.Uint64
	shutting           atomic.Bool
	date               atomic.Pointer[dateValue]

	mu    sync.Mutex
	ln    net.Listener
	hand  *handoff
	conns map[*conn]struct{}
	// fallbackDone is closed when the fallback server's Serve returns.
	fallbackDone chan struct{}
}

// New returns a Server calling h on the fast path and fallback for the
// rest. fallback's Handler should be h too; its own timeouts apply to the
// connections it is given.
func New(h http.Handler, fallback *http.Server, o Options) *Server {
	if o.Path == "" {
		o.Path = "/"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{h: h, fallback: fallback, o: o, conns: map[*conn]struct{}{}}
}

// Stats returns the counts so far.
func (s *Server) Stats() Stats {
	return Stats{Served: s.served.Load(), HandedOver: s.handedOver.Load()}
}

// Serve accepts connections on ln until Shutdown or Close, like
// http.Server.Serve: it returns http.ErrServerClosed after them.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.ln != nil {
		s.mu.Unlock()
		return errors.New("h1serve: Serve called twice")
	}
	s.ln = ln
	s.hand = newHandoff(ln.Addr())
	s.fallbackDone = make(chan struct{})
	s.mu.Unlock()
	if s.shutting.Load() {
		_ = ln.Close()
		return http.ErrServerClosed
	}
	go func() {
		defer close(s.fallbackDone)
		_ = s.fallback.Serve(s.hand)
	}()
	var backoff time.Duration
	for {
		rwc, err := ln.Accept()
		if err != nil {
			if s.shutting.Load() {
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() { // as net/http: EMFILE and friends
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.o.Logger.Warn("accept failed; retrying", "err", err, "in", backoff)
				time.Sleep(backoff)
				continue
			}
			_ = s.fallback.Close()
			_ = s.hand.Close()
			return err
		}
		backoff = 0
		c := newConn(s, rwc)
		if !s.track(c, true) {
			_ = rwc.Close()
			continue
		}
		go c.serve()
	}
}

// track adds or removes c from the connections Shutdown closes; adding
// fails once shutting down.
func (s *Server) track(c *conn, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		if s.shutting.Load() {
			return false
		}
		s.conns[c] = struct{}{}
		return true
	}
	delete(s.conns, c)
	return true
}

// handOver gives rwc, whose next bytes are pending, to the fallback server.
func (s *Server) handOver(rwc net.Conn, pending []byte) {
	s.handedOver.Add(1)
	var nc net.Conn = rwc
	if len(pending) > 0 {
		nc = &prefixConn{Conn: rwc, prefix: pending}
	}
	s.hand.give(nc)
}

// shutdownPoll bounds the wait between two looks at the connections
// during Shutdown, as in net/http.
const shutdownPoll = 500 * time.Millisecond

// Shutdown stops accepting, closes idle connections, lets requests being
// served finish, and shuts the fallback server down too, within ctx, like
// http.Server.Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutting.Store(true)
	s.mu.Lock()
	ln, fbDone, hand := s.ln, s.fallbackDone, s.hand
	s.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	if hand != nil {
		// Connections handed over from now on are closed, even if the
		// fallback's Serve had not started (it then never closes it).
		_ = hand.Close()
	}
	fb := make(chan error, 1)
	go func() { fb <- s.fallback.Shutdown(ctx) }()
	wait := time.Millisecond
	for !s.closeIdle() {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, shutdownPoll)
	}
	err := <-fb
	if fbDone != nil && err == nil {
		<-fbDone
	}
	return err
}

// Close closes the listener and every connection at once, like
// http.Server.Close.
func (s *Server) Close() error {
	s.shutting.Store(true)
	s.mu.Lock()
	ln, hand := s.ln, s.hand
	for c := range s.conns {
		_ = c.rwc.Close()
	}
	s.mu.Unlock()
	var err error
	if ln != nil {
		err = ln.Close()
	}
	if hand != nil {
		_ = hand.Close()
	}
	return errors.Join(err, s.fallback.Close())
}

// closeIdle closes the connections waiting for a request and reports
// whether none is left.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.state.CompareAndSwap(stateIdle, stateClosed) {
			_ = c.rwc.Close()
		}
	}
	return len(s.conns) == 0
}

// handoff is the fallback server's listener: it "accepts" the connections
// the fast path gives it.
type handoff struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newHandoff(addr net.Addr) *handoff {
	return &handoff{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

// give passes c to the fallback server, or closes it when that server is
// closed.
func (l *handoff) give(c net.Conn) {
	select {
	case l.ch <- c:
	case <-l.done:
		_ = c.Close()
	}
}

// Accept implements net.Listener.
func (l *handoff) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (l *handoff) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener.
func (l *handoff) Addr() net.Addr { return l.addr }

// prefixConn is a connection whose first bytes were already read.
type prefixConn struct {
	net.Conn
	prefix []byte
}

// Read implements net.Conn.
func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// CloseWrite half-closes the connection, as net/http does after an answer
// that ends it (a 431, an unread body), when the connection can.
func (c *prefixConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
