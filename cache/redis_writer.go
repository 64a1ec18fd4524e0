package cache

import (
	"context"
	"errors"
	"time"
)

// Writer batching limits: one pipelined round trip sends at most this many
// values, or about this many bytes.
const (
	maxBatchOps   = 128
	maxBatchBytes = 1 << 20
)

// writeBandwidth is the slowest link a write is given time for on top of
// the timeout: a large value takes longer to send than a read of a small
// key, and a write that times out only costs the shared tier a copy.
const writeBandwidth = 50 << 20 // bytes per second

// errClosed is returned by Flush after Close.
var errClosed = errors.New("redis: closed")

// writeOp is one queued write, or (flush != nil) a marker that Flush waits on.
type writeOp struct {
	key   string
	value []byte
	ttl   time.Duration
	flush chan struct{}
}

// Set queues value to be stored under key for ttl: NoExpiry stores it
// without expiry, a negative ttl stores nothing. Set never blocks: when the
// queue is full the write is dropped and counted (RedisStats.Dropped), and
// while the primary's breaker is open the writer skips it. value is kept
// until it is sent and must not be modified (cache values and backend
// results never are).
func (r *Redis) Set(key string, value []byte, ttl time.Duration) {
	if ttl < 0 {
		return
	}
	select {
	case r.queue <- writeOp{key: key, value: value, ttl: ttl}:
	default:
		n := r.st.dropped.Add(1)
		if ok, _ := r.dropLog.allow(time.Now()); ok {
			r.log.Warn("redis write queue full: dropping writes to the shared cache",
				"queue_size", cap(r.queue), "dropped_total", n)
		}
	}
}

// Flush waits until every write queued before it has been sent (or skipped
// by an open breaker) and the shared LIB is published, or until ctx ends.
// Tests use it to make another replica's read deterministic; a gateway can
// call it before shutting down.
func (r *Redis) Flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case r.queue <- writeOp{flush: done}:
	case <-r.done:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-r.stopped:
		select {
		case <-done:
			return nil
		default:
			return errClosed
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writer sends queued writes in pipelined batches and publishes the shared
// LIB, until Close; then it sends what is still queued and returns.
func (r *Redis) writer() {
	defer close(r.stopped)
	batch := make([]writeOp, 0, maxBatchOps)
	for {
		select {
		case <-r.done:
			for {
				batch = r.collect(batch[:0])
				if len(batch) == 0 {
					r.lib.publish()
					return
				}
				r.writeBatch(batch)
			}
		case op := <-r.queue:
			batch = r.collect(append(batch[:0], op))
			r.writeBatch(batch)
			clear(batch) // drop the references to sent values
		case <-r.lib.signal:
			r.lib.publish()
		}
	}
}

// collect adds to batch what is queued, without waiting, up to the batch
// limits.
func (r *Redis) collect(batch []writeOp) []writeOp {
	size := 0
	for _, op := range batch {
		size += len(op.key) + len(op.value)
	}
	for len(batch) < maxBatchOps && size < maxBatchBytes {
		select {
		case op := <-r.queue:
			batch = append(batch, op)
			size += len(op.key) + len(op.value)
		default:
			return batch
		}
	}
	return batch
}

// writeBatch sends the writes of batch in one pipeline, publishes the LIB
// if it moved, and then releases the Flush calls waiting in batch.
func (r *Redis) writeBatch(batch []writeOp) {
	n, size := 0, 0
	for _, op := range batch {
		if op.flush == nil {
			n++
			size += len(op.key) + len(op.value)
		}
	}
	if n > 0 {
		r.writeSets(batch, n, size)
	}
	r.lib.publish()
	for _, op := range batch {
		if op.flush != nil {
			close(op.flush)
		}
	}
}

// writeSets sends the n writes (size bytes) of batch.
func (r *Redis) writeSets(batch []writeOp, n, size int) {
	ep := r.primary
	tok := ep.br.allow()
	if tok == denied {
		r.st.skipped.Add(uint64(n))
		return
	}
	timeout := r.timeout + time.Duration(size)*time.Second/writeBandwidth
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pipe := ep.client.Pipeline()
	compressed := 0
	for _, op := range batch {
		if op.flush != nil {
			continue
		}
		v, z := r.encode(op.value)
		if z {
			compressed++
		}
		pipe.Set(ctx, r.entryKey(op.key), v, op.ttl)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		r.failed(context.Background(), ep, tok, "set", err)
		return
	}
	ep.br.succeeded(tok)
	r.st.writes.Add(uint64(n))
	r.st.compressed.Add(uint64(compressed))
}
