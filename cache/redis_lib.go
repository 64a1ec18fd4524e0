package cache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// raiseLIBScript sets KEYS[1] to ARGV[1] unless it already holds a number
// at least as large, and returns the value it holds afterwards: the shared
// LIB only moves forward, whichever replica writes and in what order.
const raiseLIBScript = `
local cur = redis.call('GET', KEYS[1])
if cur and tonumber(cur) and tonumber(cur) >= tonumber(ARGV[1]) then
  return cur
end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`

// errBreakerOpen is returned by SharedLIB.Load while the primary's breaker
// is open.
var errBreakerOpen = errors.New("redis: circuit breaker open")

// SharedLIB is the last irreversible block shared through Redis (under
// Prefix+"lib"): every replica raises it when its own tracker moves
// forward, and a replica that starts reads it so that it knows at once
// which blocks are final instead of treating every block as reversible
// until its first poll.
//
// Hook it to a tracker with backend.LIBTracker.OnUpdate(shared.OnUpdate),
// after seeding the tracker with Load.
type SharedLIB struct {
	r       *Redis
	key     string
	script  *redis.Script
	known   atomic.Uint64 // highest value read from or written to Redis
	pending atomic.Uint64 // highest value asked to be published
	signal  chan struct{} // wakes the writer; capacity 1
}

// newSharedLIB returns the shared LIB of r.
func newSharedLIB(r *Redis) *SharedLIB {
	return &SharedLIB{
		r:      r,
		key:    r.prefix + "lib",
		script: redis.NewScript(raiseLIBScript),
		signal: make(chan struct{}, 1),
	}
}

// Key returns the Redis key holding the shared LIB.
func (l *SharedLIB) Key() string { return l.key }

// Known returns the highest LIB this replica read from or wrote to Redis,
// 0 when none.
func (l *SharedLIB) Known() uint64 { return l.known.Load() }

// Load reads the shared LIB from the primary, bounded by the timeout. It
// returns 0 and no error when no replica has published one yet, and an
// error when Redis cannot be reached.
func (l *SharedLIB) Load(ctx context.Context) (uint64, error) {
	ep := l.r.primary
	tok := ep.br.allow()
	if tok == denied {
		l.r.st.skipped.Add(1)
		return 0, errBreakerOpen
	}
	opCtx, cancel := context.WithTimeout(ctx, l.r.timeout)
	defer cancel()
	s, err := ep.client.Get(opCtx, l.key).Result()
	if errors.Is(err, redis.Nil) {
		ep.br.succeeded(tok)
		return 0, nil
	}
	if err != nil {
		l.r.failed(ctx, ep, tok, "lib get", err)
		return 0, fmt.Errorf("reading the shared LIB from %s: %w", ep.addr, err)
	}
	ep.br.succeeded(tok)
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the shared LIB under %q is not a block number: %q", l.key, s)
	}
	raiseTo(&l.known, n)
	return n, nil
}

// Publish raises the shared LIB to lib, in the background: it returns at
// once and the writer sends the highest value asked for. Values at or
// below what Redis is known to hold are not sent.
func (l *SharedLIB) Publish(lib uint64) {
	if lib <= l.known.Load() || !raiseTo(&l.pending, lib) {
		return
	}
	select {
	case l.signal <- struct{}{}:
	default: // the writer is already due to publish
	}
}

// OnUpdate is Publish with the signature of backend.LIBTracker.OnUpdate's
// hook; the head block is not shared.
func (l *SharedLIB) OnUpdate(lib, _ uint64) { l.Publish(lib) }

// publish sends the pending LIB if it is above the known one. It runs on
// the writer goroutine.
func (l *SharedLIB) publish() {
	v := l.pending.Load()
	if v <= l.known.Load() {
		return
	}
	ep := l.r.primary
	tok := ep.br.allow()
	if tok == denied {
		l.r.st.skipped.Add(1)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.r.timeout)
	defer cancel()
	res, err := l.script.Run(ctx, ep.client, []string{l.key}, strconv.FormatUint(v, 10)).Text()
	if err != nil {
		l.r.failed(context.Background(), ep, tok, "lib publish", err)
		return
	}
	ep.br.succeeded(tok)
	l.r.st.libPublished.Add(1)
	if n, err := strconv.ParseUint(res, 10, 64); err == nil {
		raiseTo(&l.known, n)
	} else {
		raiseTo(&l.known, v)
	}
}

// raiseTo raises v to n if n is larger and reports whether it did.
func raiseTo(v *atomic.Uint64, n uint64) bool {
	for {
		old := v.Load()
		if n <= old {
			return false
		}
		if v.CompareAndSwap(old, n) {
			return true
		}
	}
}
