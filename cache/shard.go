package cache

import (
	"math"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// cacheLinePad separates neighbouring shards in the shard slice so that two
// cores locking different shards do not bounce one cache line between them.
const cacheLinePad = 64

// shard is one independently locked LRU holding a slice of the budget.
type shard struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[string, *Entry]
	bytes  int64 // sum of the cost of the entries in lru
	budget int64 // bytes this shard may hold

	hits, misses, evictions, expired uint64

	_ [cacheLinePad]byte
}

// init prepares s to hold at most budget bytes.
func (s *shard) init(budget int64) {
	s.budget = budget
	// The LRU is bounded by bytes, not by count: give simplelru a count it
	// never reaches. Its eviction callback runs for every removal (eviction,
	// expiry, Delete), which keeps the byte total exact in one place.
	l, err := simplelru.NewLRU[string, *Entry](math.MaxInt, func(_ string, e *Entry) {
		s.bytes -= e.cost
	})
	if err != nil {
		// Only a non-positive size makes NewLRU fail.
		panic("cache: simplelru.NewLRU: " + err.Error())
	}
	s.lru = l
}

// get returns the live entry for key and marks it most recently used. An
// expired entry is removed and reported as a miss.
func (s *shard) get(key string, now func() time.Time) (*Entry, bool) {
	s.mu.Lock()
	e, ok := s.lru.Get(key)
	if !ok {
		s.misses++
		s.mu.Unlock()
		return nil, false
	}
	if !e.Expires.IsZero() && e.expired(now()) {
		s.lru.Remove(key)
		s.expired++
		s.misses++
		s.mu.Unlock()
		return nil, false
	}
	s.hits++
	s.mu.Unlock()
	return e, true
}

// set stores e under key, which must be the key newEntry returned with e,
// and evicts least recently used entries until the shard is within its
// budget. The caller guarantees e.cost <= s.budget, so e itself is never
// evicted here.
func (s *shard) set(key string, e *Entry) {
	s.mu.Lock()
	// Remove rather than overwrite: simplelru would keep the old key string,
	// which shares its allocation with the old value, and would skip the
	// eviction callback that keeps the byte total.
	s.lru.Remove(key)
	e.shard = s
	s.lru.Add(key, e)
	s.bytes += e.cost
	for s.bytes > s.budget {
		if _, _, ok := s.lru.RemoveOldest(); !ok {
			break
		}
		s.evictions++
	}
	s.mu.Unlock()
}

// chargeLocked adds n bytes (n may be negative) to the cost of e, which
// must still be the shard's entry for its key, and reports whether it did.
// It refuses a charge that would take e alone past the shard's budget;
// otherwise it marks e most recently used and evicts the least recently
// used other entries until the shard is within its budget. s.mu is held.
func (s *shard) chargeLocked(e *Entry, n int64) bool {
	cur, ok := s.lru.Get(e.key) // marks e used: the eviction below keeps it
	if !ok || cur != e || e.cost+n > s.budget {
		return false
	}
	e.cost += n
	s.bytes += n
	for s.bytes > s.budget {
		if _, _, ok := s.lru.RemoveOldest(); !ok {
			break
		}
		s.evictions++
	}
	return true
}

// remove deletes key and reports whether it was present.
func (s *shard) remove(key string) bool {
	s.mu.Lock()
	ok := s.lru.Remove(key)
	s.mu.Unlock()
	return ok
}

// removeExpired deletes every entry that has expired at now and returns how
// many it removed.
func (s *shard) removeExpired(now time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.lru.Keys() {
		if e, ok := s.lru.Peek(k); ok && e.expired(now) {
			s.lru.Remove(k)
			n++
		}
	}
	s.expired += uint64(n)
	return n
}

// addStats adds the shard's figures to st.
func (s *shard) addStats(st *Stats) {
	s.mu.Lock()
	st.Entries += int64(s.lru.Len())
	st.Bytes += s.bytes
	st.Hits += s.hits
	st.Misses += s.misses
	st.Evictions += s.evictions
	st.Expired += s.expired
	s.mu.Unlock()
}
