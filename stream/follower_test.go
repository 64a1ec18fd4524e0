package stream

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// countingChain is memChain that counts its calls and knows a LIB
// (LIBKnower) without one, as the gateway's LIB tracker does.
type countingChain struct {
	memChain
	heads, blocks atomic.Int64
	lib           atomic.Uint64
	fail          atomic.Bool // the next Block call fails
}

func (c *countingChain) Head(ctx context.Context) (uint64, uint64, error) {
	c.heads.Add(1)
	return c.memChain.Head(ctx)
}

func (c *countingChain) Block(ctx context.Context, n uint64, fresh bool) (*Block, error) {
	c.blocks.Add(1)
	if c.fail.CompareAndSwap(true, false) {
		return nil, errUpstream
	}
	return c.memChain.Block(ctx, n, fresh)
}

func (c *countingChain) KnownLIB() (uint64, bool) { return c.lib.Load(), true }

// TestFollowerRounds: with a LIB of its own the follower reads the head
// on its first round only, then one get_block per block on the chain's
// slots (the hub's clock is the chain's); it reads the head again after
// a failed round and after a round of maxStep blocks of catch-up, and
// the LIB it announces is never above the head or the tip, whatever the
// tracker says.
func TestFollowerRounds(t *testing.T) {
	t.Parallel()
	chain := &countingChain{}
	chain.head.Store(1000)
	chain.lib.Store(5000) // a tracker ahead of the follower
	var now atomic.Int64  // the hub's clock: block n's slot is n*3 s
	now.Store(int64(1000 * 3 * time.Second))
	h := NewHub(Options{Chain: chain, Now: func() time.Time { return time.Unix(0, now.Load()) }})
	ctx := context.Background()
	step := func() {
		t.Helper()
		if _, err := h.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if tip, lib := h.Tip(); tip != 1000 || lib != 1000 || chain.heads.Load() != 1 || chain.blocks.Load() != 1 {
		t.Fatalf("first round: tip %d lib %d, %d head and %d block reads; want 1000, 1000, 1 and 1", tip, lib, chain.heads.Load(), chain.blocks.Load())
	}
	for i := range 10 { // one block per slot
		chain.head.Add(1)
		now.Add(int64(3 * time.Second))
		step()
		if tip, lib := h.Tip(); tip != 1001+uint64(i) || lib > tip {
			t.Fatalf("round %d: tip %d lib %d", i, tip, lib)
		}
	}
	if chain.heads.Load() != 1 || chain.blocks.Load() != 11 {
		t.Fatalf("10 blocks on their slots: %d head and %d block reads, want 1 and 11", chain.heads.Load(), chain.blocks.Load())
	}
	// 250 blocks at once (the follower was held up): maxStep per round,
	// each round after the first begins with a head read.
	chain.head.Add(250)
	now.Add(int64(250 * 3 * time.Second))
	heads := chain.heads.Load()
	for range 3 {
		step()
	}
	if tip, _ := h.Tip(); tip != 1260 || chain.heads.Load() != heads+2 {
		t.Fatalf("catch-up: tip %d after %d head reads, want 1260 after 2", tip, chain.heads.Load()-heads)
	}
	// A failed round: the next one reads the head first.
	chain.fail.Store(true)
	chain.head.Add(1)
	now.Add(int64(3 * time.Second))
	if _, err := h.Step(ctx); err == nil {
		t.Fatal("a failed block read is not the round's error")
	}
	heads = chain.heads.Load()
	step()
	if tip, _ := h.Tip(); tip != 1261 || chain.heads.Load() != heads+1 {
		t.Fatalf("after a failure: tip %d after %d head reads, want 1261 after 1", tip, chain.heads.Load()-heads)
	}
	// The tracker's LIB below the tip is the LIB.
	chain.lib.Store(1200)
	chain.head.Add(1)
	now.Add(int64(3 * time.Second))
	step()
	if _, lib := h.Tip(); lib != 1200 {
		t.Fatalf("lib %d, want the tracker's 1200", lib)
	}
}
