package backend

import (
	"context"
	"time"
)

// callContext bounds one upstream call by its deadline without what
// context.WithDeadline costs on every call (a timer, a cancellation context
// and its registration with the parent): a tenth of a fast proxied call.
//
// Its Done is the parent's: it does not close when the deadline passes.
// Everything a call blocks on honours the deadline itself: socket I/O
// through the connection's deadline (h1conn.arm), dialing through
// net.Dialer (which reads Deadline), the TLS handshake through the
// connection's deadline (connPool.dial), the wait for a free connection
// with a timer of its own (connPool.acquire), and a back-off is never
// longer than the time left (Pool.Call). Err reports DeadlineExceeded as
// soon as the deadline has passed.
type callContext struct {
	context.Context
	deadline time.Time
}

// withCallDeadline returns parent bounded by d (or by parent's own
// deadline when that is earlier).
func withCallDeadline(parent context.Context, d time.Time) context.Context {
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		d = cur
	}
	return &callContext{Context: parent, deadline: d}
}

// Deadline implements context.Context.
func (c *callContext) Deadline() (time.Time, bool) { return c.deadline, true }

// Err implements context.Context: the parent's error, else
// DeadlineExceeded once the deadline has passed.
func (c *callContext) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}
