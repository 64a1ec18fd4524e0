//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package backend

import "syscall"

// peerClosed reports whether the backend has closed its end of the
// connection (its FIN or a reset is waiting in the socket), without
// reading or blocking: conn.Write checks it, with mu held, before a request
// goes on a kept-alive connection. Bytes waiting (not a close) and anything
// it cannot tell say false.
func (c *conn) peerClosed() bool {
	if c.raw == nil {
		return false
	}
	c.peerGone = false
	_ = c.raw.Control(c.peekFn)
	return c.peerGone
}

// peek is peerClosed's look at the socket fd.
func (c *conn) peek(fd uintptr) {
	n, _, err := syscall.Recvfrom(int(fd), c.peekBuf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	c.peerGone = (n == 0 && err == nil) || err == syscall.ECONNRESET
}
