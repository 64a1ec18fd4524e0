package stream

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memChain is an in-memory chain for the fan-out benchmark: what it
// measures is the hub and its subscribers, not the nodes.
type memChain struct{ head atomic.Uint64 }

func memID(n uint64) string { return fmt.Sprintf("%08x%032x", n, n*0x9e3779b97f4a7c15) }

func (c *memChain) Head(context.Context) (uint64, uint64, error) {
	h := c.head.Load()
	return h, h - 20, nil
}

func (c *memChain) Block(_ context.Context, n uint64, _ bool) (*Block, error) {
	if n > c.head.Load() {
		return nil, nil
	}
	return &Block{Num: n, ID: memID(n), Previous: memID(n - 1), Time: time.Unix(int64(n)*3, 0)}, nil
}

func (c *memChain) VirtualOps(context.Context, uint64) ([]Op, error) { return nil, nil }

// BenchmarkFanOut measures one block delivered to every subscriber
// (each a goroutine reading its Sub, as a stream handler does): CPU per
// subscriber per block, and the memory a subscriber holds.
func BenchmarkFanOut(b *testing.B) {
	for _, subs := range []int{1000, 10000} {
		b.Run(strconv.Itoa(subs), func(b *testing.B) {
			chain := &memChain{}
			chain.head.Store(1000)
			h := NewHub(Options{Chain: chain, MaxSubscribers: subs, Buffer: 1000, Window: 2000})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if _, err := h.Step(ctx); err != nil {
				b.Fatal(err)
			}
			var delivered, target atomic.Int64
			reached := make(chan struct{}, 1)
			var wg sync.WaitGroup
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range subs {
				sub, err := h.Subscribe(Start{Head: true}, Reversible)
				if err != nil {
					b.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer sub.Close()
					for {
						if _, err := sub.Next(ctx); err != nil {
							return
						}
						if delivered.Add(1) == target.Load() {
							reached <- struct{}{}
						}
					}
				}()
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			perSub := float64(after.HeapInuse+after.StackInuse-before.HeapInuse-before.StackInuse) / float64(subs)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				target.Store(int64(subs) * int64(i+1))
				chain.head.Add(1)
				if _, err := h.Step(ctx); err != nil {
					b.Fatal(err)
				}
				<-reached
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(subs), "ns/sub-block")
			b.ReportMetric(perSub, "bytes/sub")
			cancel()
			wg.Wait()
		})
	}
}

// TestRunEndEndsSubscriptions: when the follower stops (the gateway shuts
// down) a waiting subscriber ends at once with ErrClosed and its place.
func TestRunEndEndsSubscriptions(t *testing.T) {
	t.Parallel()
	chain := &memChain{}
	chain.head.Store(1000)
	h := NewHub(Options{Chain: chain, BlockInterval: time.Hour})
	if _, err := h.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	sub, err := h.Subscribe(Start{Block: 1000}, Reversible)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if ev, err := sub.Next(t.Context()); err != nil || ev.Block.Num != 1000 {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan struct{})
	go func() { h.Run(ctx); close(ran) }()
	cancel()
	<-ran
	if _, err := sub.Next(t.Context()); !errors.Is(err, ErrClosed) || sub.Place().Num != 1000 {
		t.Fatalf("after Run: %v at %+v, want ErrClosed at block 1000", err, sub.Place())
	}
}
