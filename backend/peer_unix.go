//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package backend

import (
	"errors"
	"net"
	"syscall"
)

// peerClosed reports whether the backend has closed its end of nc (its FIN
// or a reset is waiting in the socket), without reading or blocking:
// conn.Write checks it before a request goes on a kept-alive connection.
// Bytes waiting (not a close) and anything it cannot tell say false.
func peerClosed(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	_ = rc.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = (n == 0 && err == nil) || errors.Is(err, syscall.ECONNRESET)
	})
	return closed
}
