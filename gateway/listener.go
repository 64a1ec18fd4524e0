package gateway

import (
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/guard"
)

// Back-off bounds of KeepAccepting, as net/http's own accept loop uses.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// Burst bounds of KeepAccepting's log lines.
const (
	// burstQuiet is how long accepts must go without failing for a burst
	// to count as over.
	burstQuiet = 5 * time.Second
	// burstReminder is the period of the line saying that a burst goes on.
	burstReminder = time.Minute
)

// KeepAccepting returns ln with an Accept that survives running out of file
// descriptors. When the process (EMFILE) or the system (ENFILE) has none
// left, Accept waits (5 ms, doubling up to 1 s) and tries again instead of
// failing. A gateway on the internet meets this when many clients hold idle
// connections: net/http would survive it too, but it logs every single
// failure. KeepAccepting logs a burst of failures once when it starts, once
// a minute while it lasts, and once when it is over (the first accept after
// 5 s without a failure), with the number of failed accepts. Other errors,
// and Close, end Accept as before.
func KeepAccepting(ln net.Listener, logger *slog.Logger) net.Listener {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &keepAccepting{Listener: ln, log: logger, closed: make(chan struct{})}
}

type keepAccepting struct {
	net.Listener
	log       *slog.Logger
	closed    chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	inBurst  bool
	failed   int       // failed accepts of the burst
	lastFail time.Time // of the burst
	lastLog  time.Time // the burst's last line
}

// Accept waits for the next connection (see KeepAccepting).
func (l *keepAccepting) Accept() (net.Conn, error) {
	var wait time.Duration
	for {
		c, err := l.Listener.Accept()
		if err == nil {
			l.accepted()
			return c, nil
		}
		if !outOfDescriptors(err) {
			return nil, err
		}
		l.failedAccept(err)
		wait = min(max(2*wait, acceptBackoffMin), acceptBackoffMax)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-l.closed:
			t.Stop()
			return nil, net.ErrClosed
		}
	}
}

// Close closes the listener and ends an Accept that is waiting.
func (l *keepAccepting) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

func (l *keepAccepting) failedAccept(err error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case !l.inBurst:
		l.inBurst, l.failed, l.lastLog = true, 0, now
		l.log.Error("cannot accept connections: out of file descriptors; retrying with back-off (raise the open-files limit, e.g. LimitNOFILE, or lower idle_timeout)",
			"addr", l.Addr().String(), "err", err)
	case now.Sub(l.lastLog) >= burstReminder:
		l.lastLog = now
		l.log.Error("still out of file descriptors", "addr", l.Addr().String(), "failed_accepts", l.failed+1)
	}
	l.failed++
	l.lastFail = now
}

func (l *keepAccepting) accepted() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inBurst && time.Since(l.lastFail) >= burstQuiet {
		l.inBurst = false
		l.log.Warn("accepting connections again", "addr", l.Addr().String(), "failed_accepts", l.failed)
	}
}

// outOfDescriptors reports whether err says the process or the system has
// no file descriptor left.
func outOfDescriptors(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// LimitClientConns returns ln with an Accept that closes, at once, a
// connection from a TCP peer that already holds limits.max_conns_per_client
// open connections: one address cannot take the file descriptors and
// goroutines every client needs. Peers in limits.trusted_proxies (by
// default loopback and private ranges) are not counted: a reverse proxy
// brings every client through its own few addresses, and capping it would
// lock them all out. IPv6 peers are counted by /64. A refused connection
// gets no answer (it is closed before anything is read) and is logged at
// level debug.
func LimitClientConns(ln net.Listener, l config.Limits, logger *slog.Logger) net.Listener {
	l = l.WithDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	trusted := clientip.New(clientip.Options{TrustedProxies: l.TrustedProxies})
	return &clientConns{Listener: ln, counts: guard.NewClientCounts(l.MaxConnsPerClient), max: l.MaxConnsPerClient, trusted: trusted, log: logger}
}

type clientConns struct {
	net.Listener
	counts  *guard.ClientCounts
	max     int
	trusted clientip.Resolver // the peers that are not capped
	log     *slog.Logger
}

// Accept waits for the next connection from a peer under its cap (see
// LimitClientConns).
func (l *clientConns) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		peer, ok := peerAddr(c)
		if !ok || l.trusted.Trusted(peer) {
			return c, nil
		}
		k := clientip.Key(peer)
		if !l.counts.Acquire(k) {
			l.log.Debug("connection refused: too many from one client address", "remote", c.RemoteAddr().String(), "max_conns_per_client", l.max)
			_ = c.Close()
			continue
		}
		return &countedConn{Conn: c, release: func() { l.counts.Release(k) }}, nil
	}
}

// peerAddr returns the IP address of c's peer.
func peerAddr(c net.Conn) (netip.Addr, bool) {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return ta.AddrPort().Addr().Unmap().WithZone(""), true
	}
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap().WithZone(""), true
}

// countedConn is a connection counted against its peer's cap until it is
// closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and gives its place back.
func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite half-closes the connection when it can: net/http does so
// before a lingering close, which lets a client read an answer sent before
// its body was read (HTTP 413).
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
