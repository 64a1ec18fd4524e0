//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package backend

import "syscall"

// alive reports whether an idle connection still looks usable: a peek at
// its socket that does not block finds nothing to read. The end of the
// stream (the backend closed it), pending bytes (nothing is expected while
// idle, so the backend sent something unasked, such as a 408 before
// closing) and any error mean it is not.
func (c *h1conn) alive() bool {
	if c.tcp == nil {
		return true
	}
	rc, err := c.tcp.SyscallConn()
	if err != nil {
		return false
	}
	alive := false
	err = rc.Control(func(fd uintptr) {
		var b [1]byte
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		alive = rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK
	})
	return err == nil && alive
}
