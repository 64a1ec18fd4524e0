package stream

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The latency benchmark runs in virtual time: blocks appear on the node
// every 3 s plus a propagation delay, every upstream call takes rtt, and
// a reader's latency for block n is the virtual time it got n minus the
// time n appeared. It compares the hub's follower (Run's schedule,
// pollWait) with dhive's getBlockStream (sleep 3 s, get_dynamic_global_properties,
// then get_block for each new block). Delivery from the hub to its
// subscribers is real (goroutines reading Subs) and measured by
// BenchmarkFanOut; here it only has to happen, for every block and every
// subscriber, while the upstream calls are counted.

const (
	simInterval = 3 * time.Second
	simRTT      = 50 * time.Millisecond // one upstream call, gateway to node
	simJitter   = 500 * time.Millisecond
)

// simNode is a node in virtual time: block n appears at appear[n].
type simNode struct {
	now    time.Duration
	appear []time.Duration
	calls  int
}

func newSimNode(blocks int, seed uint64) *simNode {
	r := rand.New(rand.NewPCG(seed, 1))
	n := &simNode{appear: make([]time.Duration, blocks+1)}
	for i := 1; i <= blocks; i++ {
		n.appear[i] = time.Duration(i)*simInterval + time.Duration(r.Int64N(int64(simJitter)))
	}
	return n
}

// head is the highest block that appeared by now (after one call).
func (n *simNode) call() uint64 {
	n.calls++
	n.now += simRTT
	h := uint64(0)
	for h+1 < uint64(len(n.appear)) && n.appear[h+1] <= n.now {
		h++
	}
	return h
}

// simChain is the hub's Chain on a simNode; got records when the hub had
// each block.
type simChain struct {
	n   *simNode
	got map[uint64]time.Duration
}

func (c *simChain) Head(context.Context) (uint64, uint64, error) {
	h := c.n.call()
	return h, h - min(h, 20), nil
}

func (c *simChain) Block(_ context.Context, num uint64, _ bool) (*Block, error) {
	if num > c.n.call() {
		return nil, nil
	}
	if _, ok := c.got[num]; !ok {
		c.got[num] = c.n.now
	}
	return &Block{Num: num, ID: memID(num), Previous: memID(num - 1), Time: simEpoch.Add(time.Duration(num) * simInterval)}, nil
}

// simEpoch is the virtual time 0; block n's slot is n intervals later.
var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *simChain) VirtualOps(context.Context, uint64) ([]Op, error) { return nil, nil }

// sample is when a reader had block num.
type sample struct {
	num uint64
	at  time.Duration
}

// simLatency is the p50 and p99 of the samples' latencies.
func simLatency(appear []time.Duration, got []sample) (p50, p99 time.Duration) {
	lat := make([]time.Duration, 0, len(got))
	for _, g := range got {
		lat = append(lat, g.at-appear[g.num])
	}
	slices.Sort(lat)
	return lat[len(lat)/2], lat[len(lat)*99/100]
}

// simDhive runs dhive's getBlockStream on node until block last.
func simDhive(node *simNode, first, last uint64) []sample {
	got := make([]sample, 0, last-first+1)
	node.now = node.appear[first-1]
	seen := first
	for seen <= last {
		node.now += simInterval // await sleep(interval * 1000)
		head := node.call()     // getCurrentBlockNum: get_dynamic_global_properties
		for ; seen <= head && seen <= last; seen++ {
			node.call() // getBlock(seen)
			got = append(got, sample{seen, node.now})
		}
	}
	return got
}

// simHub runs the hub's follower on node until block last, with subs
// subscribers reading every block; it returns when the hub had each
// block.
func simHub(b testing.TB, node *simNode, first, last uint64, subs int) []sample {
	chain := &simChain{n: node, got: map[uint64]time.Duration{}}
	h := NewHub(Options{Chain: chain, MaxSubscribers: subs, Buffer: 1000, Window: 2000,
		Now: func() time.Time { return simEpoch.Add(node.now) }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	node.now = node.appear[first-1]
	if _, err := h.Step(ctx); err != nil {
		b.Fatal(err)
	}
	var delivered atomic.Int64
	var wg sync.WaitGroup
	for range subs {
		sub, err := h.Subscribe(Start{Head: true}, Reversible)
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			defer sub.Close()
			for {
				if _, err := sub.Next(ctx); err != nil {
					return
				}
				delivered.Add(1)
			}
		})
	}
	start, _ := h.Tip()
	for {
		tip, _ := h.Tip()
		if tip >= last {
			break
		}
		grew, err := h.Step(ctx)
		if err != nil {
			b.Fatal(err)
		}
		node.now += h.pollWait(grew)
	}
	tip, _ := h.Tip()
	for want := int64(subs) * int64(tip-start); delivered.Load() < want; {
		time.Sleep(time.Millisecond)
	}
	cancel()
	wg.Wait()
	got := make([]sample, 0, last-start)
	for n := start + 1; n <= last; n++ {
		got = append(got, sample{n, chain.got[n]})
	}
	return got
}

// BenchmarkBlockLatency reports, for 1,000 blocks: the p50 and p99
// latency from a block appearing on the node to a reader having it,
// through the hub (every subscriber of one gateway) and through dhive's
// polling (each client on its own); and the upstream calls per block of
// the hub with 10,000 subscribers against 10,000 polling clients.
func BenchmarkBlockLatency(b *testing.B) {
	const blocks, subs = 1000, 10000
	for _, reader := range []string{"hub", "dhive"} {
		b.Run(reader+"/"+strconv.Itoa(subs), func(b *testing.B) {
			var p50, p99 time.Duration
			var perBlock float64
			for b.Loop() {
				node := newSimNode(blocks+10, 42)
				var got []sample
				first := uint64(10)
				if reader == "hub" {
					got = simHub(b, node, first, blocks, subs)
					perBlock = float64(node.calls) / float64(len(got))
				} else {
					got = simDhive(node, first, blocks)
					perBlock = float64(node.calls) / float64(len(got)) * subs
				}
				p50, p99 = simLatency(node.appear, got)
			}
			b.ReportMetric(float64(p50.Milliseconds()), "p50-ms")
			b.ReportMetric(float64(p99.Milliseconds()), "p99-ms")
			b.ReportMetric(perBlock, "upstream-calls/block")
		})
	}
}

// TestFollowerPollsOnSlots: in virtual time, with blocks appearing up to
// 0.5 s after their slot, the follower has every block within a second of
// it appearing, for 200 blocks, with about one head poll per block. When
// it waited a full interval after seeing each block, its polls drifted
// later block after block and the p99 was a whole interval (3.1 s).
func TestFollowerPollsOnSlots(t *testing.T) {
	t.Parallel()
	node := newSimNode(220, 7)
	got := simHub(t, node, 10, 210, 3)
	p50, p99 := simLatency(node.appear, got)
	if p99 > time.Second || len(got) < 199 {
		t.Fatalf("%d blocks, latency p50 %v p99 %v; want p99 under 1s", len(got), p50, p99)
	}
	if perBlock := float64(node.calls) / float64(len(got)); perBlock > 2.5 {
		t.Fatalf("%.2f upstream calls per block, want about 2 (a head poll and get_block)", perBlock)
	}
}
