package h1serve

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hivegate/hivegate/internal/httpwire"
)

// requestContext is a request's context. Like net/http's, it is cancelled
// when the client goes away while the handler runs, and when the handler
// returns; unlike net/http's, it costs nothing until someone asks for its
// Done channel: only then is a cancellable context made, and the
// connection is watched (a goroutine blocked in a one-byte read) once the
// body has been read and the request has run for watchDelay. A cache hit
// never asks; a call that goes upstream does, and pays for the watch only
// when it is slow.
type requestContext struct {
	context.Context // the base: values and deadline

	c       *conn
	arrived time.Time // when the request's head arrived
	inner   atomic.Pointer[innerContext]

	mu        sync.Mutex
	bodyDone  bool // the body has been read to its end
	pipelined bool // and the next request's bytes were already buffered
	ended     bool
}

// innerContext is the cancellable context made on the first Done.
type innerContext struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// Done implements context.Context.
func (r *requestContext) Done() <-chan struct{} {
	if in := r.inner.Load(); in != nil {
		return in.ctx.Done()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	in := r.inner.Load()
	if in == nil {
		ctx, cancel := context.WithCancelCause(r.Context)
		in = &innerContext{ctx: ctx, cancel: cancel}
		r.inner.Store(in)
		switch {
		case r.ended:
			cancel(context.Canceled)
		case r.bodyDone:
			r.scheduleWatchLocked()
		}
		// Otherwise bodyRead schedules it.
	}
	return in.ctx.Done()
}

// Err implements context.Context.
func (r *requestContext) Err() error {
	if in := r.inner.Load(); in != nil {
		return in.ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return context.Canceled
	}
	return nil
}

// Value implements context.Context. Once the cancellable context exists it
// answers, so that contexts derived from this one attach to it directly.
func (r *requestContext) Value(key any) any {
	if in := r.inner.Load(); in != nil {
		return in.ctx.Value(key)
	}
	return r.Context.Value(key)
}

// bodyRead records that the body was read to its end; pipelined tells
// whether more bytes (the next request) were buffered already.
func (r *requestContext) bodyRead(pipelined bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodyDone, r.pipelined = true, pipelined
	if r.inner.Load() != nil { // Done was asked for
		r.scheduleWatchLocked()
	}
}

// scheduleWatchLocked arranges for the connection to be watched for the
// client going away if the handler still runs watchDelay from now, unless
// the next request is already here (the client is).
func (r *requestContext) scheduleWatchLocked() {
	if r.pipelined || r.c.peeked {
		return
	}
	r.c.scheduleWatch(r)
}

// watchDelay is how long a request runs before its connection is watched.
// A call answered sooner never pays for the watch (a goroutine, a read
// and two deadline changes: a tenth of a fast upstream call); one that
// takes longer, as a slow node's does, learns of a client that left at
// most this late.
const watchDelay = 10 * time.Millisecond

// scheduleWatch starts the watch of r's connection once r has run for
// watchDelay (at once if it has: Done may be asked late, as the backend
// client does after the same delay), if r is still running then.
func (c *conn) scheduleWatch(r *requestContext) {
	c.wmu.Lock()
	c.wreq = r
	c.wmu.Unlock()
	delay := max(watchDelay-time.Since(r.arrived), 0)
	if c.watchTimer == nil {
		c.watchTimer = time.AfterFunc(delay, c.watchDue)
	} else {
		c.watchTimer.Reset(delay)
	}
}

// watchDue starts the watch of the request that asked for it, unless it
// has ended.
func (c *conn) watchDue() {
	c.wmu.Lock()
	r := c.wreq
	c.wmu.Unlock()
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ended && c.watchDone == nil {
		c.startWatch(r.inner.Load().cancel)
	}
}

// unscheduleWatch cancels a watch that has not started; the request has
// ended.
func (c *conn) unscheduleWatch() {
	c.wmu.Lock()
	r := c.wreq
	c.wreq = nil
	c.wmu.Unlock()
	if r != nil {
		c.watchTimer.Stop()
	}
}

// end marks the handler as returned and cancels the context.
func (r *requestContext) end() {
	r.mu.Lock()
	r.ended = true
	r.mu.Unlock()
	if in := r.inner.Load(); in != nil {
		in.cancel(context.Canceled)
	}
}

var errClientGone = errors.New("h1serve: client closed the connection")

// startWatch starts the goroutine that reads one byte from the connection
// while the handler runs: an error other than the one stopWatch causes
// means the client went away, and cancels the request.
func (c *conn) startWatch(cancel context.CancelCauseFunc) {
	c.watchDone = make(chan struct{})
	c.readDeadline = time.Time{}
	_ = c.rwc.SetReadDeadline(time.Time{})
	go func() {
		defer close(c.watchDone)
		n, err := c.rwc.Read(c.peek[:])
		if n == 1 {
			c.peeked = true // a pipelined request: not gone
			return
		}
		var ne net.Error
		if err == nil || c.aborting.Load() || errors.As(err, &ne) && ne.Timeout() {
			return
		}
		c.gone.Store(true)
		cancel(errClientGone)
	}()
}

// stopWatch stops the watcher, if one runs, and waits for it. The request
// has ended (requestContext.end).
func (c *conn) stopWatch() {
	c.unscheduleWatch()
	if c.watchDone == nil {
		return
	}
	c.aborting.Store(true)
	past := httpwire.LongAgo()
	_ = c.rwc.SetReadDeadline(past)
	<-c.watchDone
	c.aborting.Store(false)
	c.readDeadline = past
	c.watchDone = nil
}
