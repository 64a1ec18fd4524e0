package guard

import (
	"net/netip"
	"sync"
)

// clientShards is the number of independently locked parts of a
// clientCounts, so that requests from different clients rarely wait on
// one lock.
const clientShards = 32

// ClientCounts counts what each client address holds at once (requests
// in flight, open connections) and refuses one more beyond a maximum. An
// address is forgotten when its count falls to zero, so its memory is
// bounded by what is held, not by the clients ever seen. Safe for
// concurrent use.
type ClientCounts struct {
	max    int
	shards [clientShards]struct {
		mu sync.Mutex
		m  map[netip.Addr]int
	}
}

// NewClientCounts returns counts that let each address hold limit at once.
func NewClientCounts(limit int) *ClientCounts {
	c := &ClientCounts{max: limit}
	for i := range c.shards {
		c.shards[i].m = map[netip.Addr]int{}
	}
	return c
}

// shard picks the part of c that holds a: by the address's last byte,
// which varies most between clients (IPv6 keys, reduced to their /64,
// vary in the 8th byte).
func (c *ClientCounts) shard(a netip.Addr) int {
	b := a.As16()
	return int(b[15]^b[7]^b[11]) % clientShards
}

// Acquire counts one more for a, unless a already holds the maximum.
func (c *ClientCounts) Acquire(a netip.Addr) bool {
	s := &c.shards[c.shard(a)]
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.m[a]
	if n >= c.max {
		return false
	}
	s.m[a] = n + 1
	return true
}

// Release counts one less for a, which Acquire counted.
func (c *ClientCounts) Release(a netip.Addr) {
	s := &c.shards[c.shard(a)]
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.m[a]; n > 1 {
		s.m[a] = n - 1
	} else {
		delete(s.m, a)
	}
}

// Held returns what a holds now.
func (c *ClientCounts) Held(a netip.Addr) int {
	s := &c.shards[c.shard(a)]
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[a]
}
