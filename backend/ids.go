package backend

import (
	crand "crypto/rand"
	"math/rand/v2"
	"sync"
)

// Upstream JSON-RPC ids are random, so that no node can tell the id of a
// call it has not been sent. With ids that count up, a node that saw call
// N could answer N+1 before it was asked: over a WebSocket connection
// shared by many calls, or on a kept-alive HTTP connection the next call
// reuses, that answer reached the next call and was cached. Each call
// attempt takes a new id (an answer to an earlier attempt cannot complete
// a later one), and an answer is accepted only by the exchange that sent
// its id (checkSingle, checkBatch, wsNode.read).
//
// The ids are 64 bits from a ChaCha8 generator seeded from crypto/rand
// (cryptographically strong, about 20ns a draw), written as JSON strings
// of their decimal value: a JSON number above 2^53 loses its low bits in
// a JavaScript-based node, and hived (which takes an integer or a string
// id), hivemind and HAfAH echo a string id as it came. An answer carrying
// the same number as a JSON number is accepted too (idMatches).

// idSource draws the upstream ids of one Pool.
type idSource struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

// newIDSource returns a generator seeded from crypto/rand.
func newIDSource() *idSource {
	var seed [32]byte
	_, _ = crand.Read(seed[:]) // never fails (crypto/rand.Read's contract)
	return &idSource{r: rand.NewChaCha8(seed)}
}

// next returns a random id, never 0.
func (s *idSource) next() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if id := s.r.Uint64(); id != 0 {
			return id
		}
	}
}

// newID returns a new upstream request id: random, never 0.
func (p *Pool) newID() uint64 { return p.ids.next() }
