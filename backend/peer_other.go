//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package backend

// peerClosed reports whether the backend has closed its end of the
// connection; where the socket cannot be peeked at, only a failed read
// tells (conn.Write).
func (c *conn) peerClosed() bool { return false }

// peek is unused where peerClosed cannot look at the socket.
func (c *conn) peek(uintptr) {}
