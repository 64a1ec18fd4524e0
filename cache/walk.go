package cache

// EntryInfo describes one cached entry for operators (Cache.Walk).
type EntryInfo struct {
	// Key is the entry's key (a method key with its params).
	Key string
	// Size is the bytes the entry is charged against the budget: key,
	// value and per-entry overhead.
	Size int64
}

// Walk calls fn with every entry of the cache, expired ones not yet
// removed included, shard after shard, until fn returns false. Each shard's
// entries are copied under its lock and fn runs after the lock is released,
// so a slow fn (writing to a client) holds up no request. It is for
// operators' views (Drone's /cache-entries), not for the request path.
func (c *Cache) Walk(fn func(EntryInfo) bool) {
	var batch []EntryInfo
	for i := range c.shards {
		s := &c.shards[i]
		batch = batch[:0]
		s.mu.Lock()
		for _, k := range s.lru.Keys() {
			if e, ok := s.lru.Peek(k); ok {
				batch = append(batch, EntryInfo{Key: k, Size: e.cost})
			}
		}
		s.mu.Unlock()
		for _, e := range batch {
			if !fn(e) {
				return
			}
		}
	}
}
