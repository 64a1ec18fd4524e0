package cache

import (
	"hash/maphash"
	"time"
	"unsafe"
)

// NoExpiry is the ttl that stores an entry without expiry.
const NoExpiry time.Duration = 0

// Cache is a byte-bounded, sharded LRU cache of raw JSON-RPC result bytes
// with per-entry expiry. It is safe for concurrent use.
//
// Every entry costs the allocated size of one copy of its key and value
// (len(key) + len(value), rounded up to the allocator's size class) plus
// EntryOverhead bytes. The capacity is split evenly across the shards; a
// shard evicts its least recently used entries as soon as it holds more than
// its share. Expired entries are removed when they are looked up or by
// RemoveExpired; until then they count against the budget and are evicted
// in LRU order like any other entry.
type Cache struct {
	shards   []shard
	mask     uint64
	seed     maphash.Seed
	now      func() time.Time
	capacity int64
}

// Stats is a snapshot of a Cache's counters.
type Stats struct {
	// Entries is the number of stored entries, including expired ones not
	// yet removed.
	Entries int64
	// Bytes is the budget in use: the sum of every entry's cost.
	Bytes int64
	// Capacity is the configured budget in bytes.
	Capacity int64
	// Hits counts Get calls that returned an entry.
	Hits uint64
	// Misses counts Get calls that returned none, including expired entries.
	Misses uint64
	// Evictions counts entries removed to stay within the budget.
	Evictions uint64
	// Expired counts entries removed because their time had passed.
	Expired uint64
}

// New returns a Cache holding at most capacityBytes bytes. A capacity of
// zero or less gives a cache that stores nothing.
func New(capacityBytes int64, opts ...Option) *Cache {
	o := options{now: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	capacityBytes = max(capacityBytes, 0)
	n := shardCount(o.shards, capacityBytes)
	c := &Cache{
		shards:   make([]shard, n),
		mask:     uint64(n - 1),
		seed:     maphash.MakeSeed(),
		now:      o.now,
		capacity: capacityBytes,
	}
	for i := range c.shards {
		c.shards[i].init(capacityBytes / int64(n))
	}
	return c
}

// shardFor returns the shard that owns key.
func (c *Cache) shardFor(key string) *shard {
	return &c.shards[maphash.String(c.seed, key)&c.mask]
}

// Get returns the entry stored under key and marks it most recently used.
// An expired entry is removed and reported as a miss. A hit does not
// allocate.
func (c *Cache) Get(key string) (*Entry, bool) {
	return c.shardFor(key).get(key, c.now)
}

// GetBytes is Get for a key held in a byte slice, such as one built in a
// reused buffer: the lookup neither copies key nor keeps it, so a hit does
// not allocate and key may be overwritten as soon as GetBytes returns. The
// key the entry is stored under is the Entry's Key.
func (c *Cache) GetBytes(key []byte) (*Entry, bool) {
	// The string views key's bytes only for the lookup: neither the map
	// lookup, the LRU's move to the front nor the removal of an expired
	// entry stores the key they are given (the LRU removes an entry by
	// the key stored with it).
	k := unsafe.String(unsafe.SliceData(key), len(key))
	return c.shardFor(k).get(k, c.now)
}

// Set stores a copy of value under key, replacing any entry there. A ttl
// greater than zero expires the entry after ttl; NoExpiry (zero) keeps it
// until it is evicted; a negative ttl stores nothing. A value whose cost
// exceeds one shard's share of the capacity is not stored either. Whenever
// Set does not store the value it removes any older entry for key, so a Get
// after Set never returns a value older than the one passed.
//
// Key and value are copied so that the cache never keeps a larger buffer
// alive (for example the request or response body they were sliced from)
// without counting it.
func (c *Cache) Set(key string, value []byte, ttl time.Duration) {
	c.Store(key, value, ttl)
}

// Store is Set returning the stored entry, or false when the value was not
// stored. A caller that serves the value it just cached can use the entry
// (and attach its decoded form) without a second lookup, which would also count as a
// hit.
func (c *Cache) Store(key string, value []byte, ttl time.Duration) (*Entry, bool) {
	s := c.shardFor(key)
	if ttl < 0 || int64(len(key))+int64(len(value))+EntryOverhead > s.budget {
		s.remove(key)
		return nil, false
	}
	k, e := newEntry(key, value)
	if e.cost > s.budget {
		s.remove(key)
		return nil, false
	}
	if ttl > 0 {
		e.Expires = c.now().Add(ttl)
	}
	s.set(k, e)
	return e, true
}

// StoreBuffer is Store for a key and value the caller has already laid out
// the way an entry holds them: buf is the key's bytes followed by the
// value's, and the cache takes buf over instead of copying it (a backend
// answer read with backend.Request.ResultPrefix set to the key is such a
// buffer). buf must be an allocation of its own, as make or append return
// it, since cap(buf) is what the entry is charged; the caller must not
// modify it afterwards, and may keep reading the value in it.
func (c *Cache) StoreBuffer(buf []byte, keyLen int, ttl time.Duration) (*Entry, bool) {
	if keyLen < 0 || keyLen > len(buf) {
		return nil, false
	}
	var key string
	if keyLen > 0 {
		// buf is never written again: the key can share it.
		key = unsafe.String(&buf[0], keyLen)
	}
	s := c.shardFor(key)
	n := len(buf)
	e := &Entry{Value: buf[keyLen:n:n], key: key, cost: int64(cap(buf)) + EntryOverhead}
	if ttl < 0 || e.cost > s.budget {
		s.remove(key)
		return nil, false
	}
	if ttl > 0 {
		e.Expires = c.now().Add(ttl)
	}
	s.set(key, e)
	return e, true
}

// Delete removes the entry stored under key and reports whether there was one.
func (c *Cache) Delete(key string) bool {
	return c.shardFor(key).remove(key)
}

// RemoveExpired removes every expired entry and returns how many it removed.
// It visits one shard at a time, holding that shard's lock while it scans
// it; call it from a periodic janitor, not on the request path.
func (c *Cache) RemoveExpired() int {
	now := c.now()
	n := 0
	for i := range c.shards {
		n += c.shards[i].removeExpired(now)
	}
	return n
}

// Stats returns a snapshot of the cache's counters. Shards are read one
// after another, so the figures are not one atomic snapshot under load.
func (c *Cache) Stats() Stats {
	st := Stats{Capacity: c.capacity}
	for i := range c.shards {
		c.shards[i].addStats(&st)
	}
	return st
}
