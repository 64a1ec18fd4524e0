package stream

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestHistoryRate: subscribers reading history (behind the window) read
// at most Options.HistoryRate blocks a second all together, however many
// they are and however fast they take what they get, as a subscriber
// whose filter lets nothing through does. Unpaced, one subscriber from
// block 1 of a 100,000-block chain asked the nodes for every block at
// once (each one an upstream call past any rate limit or quota, and a
// cache entry).
func TestHistoryRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rate int
		subs int
	}{
		{name: "one subscriber", rate: 50, subs: 1},
		{name: "three share the rate", rate: 50, subs: 3},
		{name: "the default", rate: 0, subs: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				chain := &countingChain{}
				chain.head.Store(100_000)
				h := NewHub(Options{Chain: chain, Window: 100, HistoryRate: tc.rate})
				ctx, cancel := context.WithCancel(t.Context())
				if _, err := h.Step(ctx); err != nil {
					t.Fatal(err)
				}
				followerReads := chain.blocks.Load()
				done := make(chan struct{}, tc.subs)
				for range tc.subs {
					s, err := h.Subscribe(Start{Block: 1}, Reversible)
					if err != nil {
						t.Fatal(err)
					}
					go func() {
						defer func() { s.Close(); done <- struct{}{} }()
						for {
							if _, err := s.Next(ctx); err != nil {
								if !errors.Is(err, context.Canceled) {
									t.Errorf("Next: %v", err)
								}
								return
							}
						}
					}()
				}
				const seconds = 2
				time.Sleep(seconds * time.Second)
				synctest.Wait()
				read := chain.blocks.Load() - followerReads
				rate := int64(tc.rate)
				if rate == 0 {
					rate = DefaultHistoryRate
				}
				// A full bucket (the burst, one second's worth) and then
				// the rate; the reads are waited for in order.
				if max := rate + seconds*rate; read > max || read < seconds*rate {
					t.Errorf("%d subscribers read %d blocks of history in %d s, want %d to %d (rate %d/s)",
						tc.subs, read, seconds, seconds*rate, max, rate)
				}
				cancel()
				for range tc.subs {
					<-done
				}
			})
		})
	}
}
