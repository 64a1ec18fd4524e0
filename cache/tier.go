package cache

import (
	"context"
	"time"
)

// Tiered is the in-process Cache in front of the shared Redis tier. Reads
// look in the in-process cache first, then in Redis; a Redis hit is copied
// into the in-process cache for the time Redis has left on it. Writes go to
// both: the in-process cache at once, Redis in the background with the same
// TTL as its expiry (none for NoExpiry).
//
// Either tier may be nil: without Redis a Tiered is the Cache alone, and
// without a Cache (cache_max_capacity 0) every read goes to Redis.
type Tiered struct {
	local  *Cache
	shared *Redis
}

// NewTiered puts local in front of shared.
func NewTiered(local *Cache, shared *Redis) *Tiered {
	return &Tiered{local: local, shared: shared}
}

// Local returns the in-process cache, nil when there is none.
func (t *Tiered) Local() *Cache { return t.local }

// Shared returns the Redis tier, nil when there is none.
func (t *Tiered) Shared() *Redis { return t.shared }

// Fetch returns the value stored under key: from the in-process cache
// without any I/O when it is there, else from Redis (FetchShared). e is the
// in-process entry holding the value, nil when the value came from Redis
// and could not be stored in-process.
func (t *Tiered) Fetch(ctx context.Context, key string) (value []byte, e *Entry, ok bool) {
	if t.local != nil {
		if e, ok := t.local.Get(key); ok {
			return e.Value, e, true
		}
	}
	return t.FetchShared(ctx, key)
}

// FetchShared looks key up in Redis only, for a caller that has already
// missed the in-process cache. A hit is stored in the in-process cache with
// the expiry Redis has left on it (none when the Redis key has none). The
// lookup takes at most the Redis timeout and misses when Redis is slow,
// down or behind an open breaker.
func (t *Tiered) FetchShared(ctx context.Context, key string) (value []byte, e *Entry, ok bool) {
	if t.shared == nil {
		return nil, nil, false
	}
	v, ttl, ok := t.shared.Get(ctx, key)
	if !ok {
		return nil, nil, false
	}
	if t.local != nil {
		if e, stored := t.local.Store(key, v, ttl); stored {
			return e.Value, e, true
		}
	}
	return v, nil, true
}

// Store stores value under key in the in-process cache (see Cache.Store)
// and queues it for Redis with ttl as its expiry. NoExpiry (irreversible
// blocks, NO_EXPIRE) stores it without expiry; a negative ttl stores
// nothing in either tier. It returns the in-process entry, or false when
// there is none. value must not be modified afterwards.
func (t *Tiered) Store(key string, value []byte, ttl time.Duration) (*Entry, bool) {
	var e *Entry
	var ok bool
	if t.local != nil {
		e, ok = t.local.Store(key, value, ttl)
	}
	if t.shared != nil {
		t.shared.Set(key, value, ttl)
	}
	return e, ok
}

// StoreBuffer is Store for a buffer laid out as Cache.StoreBuffer takes it
// over: the key's bytes, then the value's. The in-process cache keeps buf
// without a copy; the same bytes are queued for Redis.
func (t *Tiered) StoreBuffer(buf []byte, keyLen int, ttl time.Duration) (*Entry, bool) {
	if keyLen < 0 || keyLen > len(buf) {
		return nil, false
	}
	var e *Entry
	var ok bool
	if t.local != nil {
		e, ok = t.local.StoreBuffer(buf, keyLen, ttl)
	}
	if t.shared != nil {
		t.shared.Set(string(buf[:keyLen]), buf[keyLen:], ttl)
	}
	return e, ok
}
