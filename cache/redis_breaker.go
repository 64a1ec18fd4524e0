package cache

import (
	"sync/atomic"
	"time"
)

// token is what breaker.allow grants an operation.
type token uint8

const (
	// denied: the breaker is open; do not try.
	denied token = iota
	// normal: the breaker is closed.
	normal
	// probe: the cooldown is over and this operation is the one that tries
	// the endpoint again; its outcome closes or re-opens the breaker.
	probe
)

// breaker is a circuit breaker over one Redis endpoint. It opens after
// threshold consecutive failures; while open it denies every operation for
// cooldown, then grants exactly one probe. A successful probe closes it, a
// failed one opens it for another cooldown. It is lock-free: allow is one
// atomic load while closed.
type breaker struct {
	threshold int64
	cooldown  time.Duration
	now       func() time.Time
	onOpen    func(failures int64, err error) // closed → open; may be nil
	onClose   func()                          // open → closed; may be nil

	consecutive atomic.Int64  // failures in a row while closed
	openUntil   atomic.Int64  // Unix nanoseconds; 0 while closed
	probing     atomic.Bool   // a probe is in flight
	opens       atomic.Uint64 // closed → open transitions
}

// allow says whether an operation may go ahead and in what role.
func (b *breaker) allow() token {
	until := b.openUntil.Load()
	if until == 0 {
		return normal
	}
	if b.now().UnixNano() < until {
		return denied
	}
	if b.probing.CompareAndSwap(false, true) {
		return probe
	}
	return denied
}

// succeeded records an operation that worked. Only a probe closes an open
// breaker: an operation granted before the breaker opened proves little
// about the endpoint now.
func (b *breaker) succeeded(tok token) {
	switch {
	case tok == probe:
		b.consecutive.Store(0)
		b.openUntil.Store(0)
		b.probing.Store(false)
		if b.onClose != nil {
			b.onClose()
		}
	case b.openUntil.Load() == 0:
		b.consecutive.Store(0)
	}
}

// failed records an operation that failed with err.
func (b *breaker) failed(tok token, err error) {
	if tok == probe {
		b.openUntil.Store(b.now().Add(b.cooldown).UnixNano())
		b.probing.Store(false)
		return
	}
	n := b.consecutive.Add(1)
	if n >= b.threshold && b.openUntil.CompareAndSwap(0, b.now().Add(b.cooldown).UnixNano()) {
		b.opens.Add(1)
		if b.onOpen != nil {
			b.onOpen(n, err)
		}
	}
}

// abandoned records an operation that ended without a verdict on the
// endpoint (its caller went away); a probe's turn passes to the next one.
func (b *breaker) abandoned(tok token) {
	if tok == probe {
		b.probing.Store(false)
	}
}

// isOpen reports whether the breaker is open (cooling down or probing).
func (b *breaker) isOpen() bool { return b.openUntil.Load() != 0 }
