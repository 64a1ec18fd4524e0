package dispatch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/redistest"
)

// parseNodes is parseShared with a backend of the given nodes.
func parseNodes(t testing.TB, nodes []*countingNode, cacheKeys ...string) *config.Config {
	t.Helper()
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.url
	}
	return parseShared(t, &countingNode{url: "[" + strings.Join(urls, ", ") + "]"}, cacheKeys...)
}

// farAhead is the get_dynamic_global_properties answer of a node that
// claims head 1,000,000,000 with a plausible-looking block time.
func farAhead() *string {
	s := fmt.Sprintf(`{"head_block_number":1000000000,"time":%q,"last_irreversible_block_num":999999990}`, time.Now().UTC().Format("2006-01-02T15:04:05"))
	return &s
}

// TestTrustLiarNeverCachedAsIrreversible: a node claiming head
// 1,000,000,000 (LIB 999,999,990) beside honest nodes at head 1000 (LIB
// 980): with or without Redis, block 1500 (beyond the real head) is never
// cached as irreversible, in process or in Redis; block 500 is.
func TestTrustLiarNeverCachedAsIrreversible(t *testing.T) {
	t.Parallel()
	for _, nodes := range []int{2, 3} {
		for _, withRedis := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d nodes, redis %v", nodes, withRedis), func(t *testing.T) {
				t.Parallel()
				var keys []string
				var srv *redistest.Server
				if withRedis {
					srv = redistest.Start(t)
					keys = []string{"redis_url: " + srv.URL(), "redis_timeout: 5s"}
				}
				var ns []*countingNode
				for range nodes {
					n := newCountingNode(t)
					n.lib.Store(980)
					ns = append(ns, n)
				}
				ns[0].lie.Store(farAhead()) // first in config order: calls go to it when in service
				r := newReplica(t, "A", parseNodes(t, ns, keys...))
				r.learn(t)
				if lib := r.lib.LastIrreversible(); lib > 1000 {
					t.Fatalf("LIB %d above the real head 1000", lib)
				}
				for _, tc := range []struct {
					block        string
					irreversible bool
				}{{"[1500]", false}, {"[500]", true}} {
					r.call(t, "condenser_api.get_block", tc.block)
					e, ok := r.d.Cache().Get(r.key(t, "condenser_api.get_block", tc.block))
					if !ok {
						t.Fatalf("block %s not cached at all", tc.block)
					}
					if e.Expires.IsZero() != tc.irreversible {
						t.Errorf("block %s cached with expiry %v; want irreversible %v", tc.block, e.Expires, tc.irreversible)
					}
					if withRedis {
						r.flush(t)
						pttl := srv.Client().PTTL(context.Background(), r.redisKey(t, "condenser_api.get_block", tc.block)).Val()
						if (pttl == -1) != tc.irreversible || pttl == -2 {
							t.Errorf("block %s in Redis with PTTL %v; want irreversible %v", tc.block, pttl, tc.irreversible)
						}
					}
				}
			})
		}
	}
}

// TestSharedLIBPoisoned: Redis holds a LIB far above the real head (a
// replica misled by a lying node wrote it, without expiry). A replica
// that starts afterwards does not trust it: block 1500, beyond its nodes'
// head 1000, is not cached as irreversible.
func TestSharedLIBPoisoned(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	node := newCountingNode(t)
	node.lib.Store(980)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 5s")
	misled := newReplica(t, "misled", cfg)
	rc := srv.Client()
	ctx := context.Background()
	// Both the key hivegate used to share the LIB under and the one it
	// shares it under now hold the poisoned value, without expiry.
	if err := rc.Set(ctx, misled.shared.LIB().Key(), "999999990", 0).Err(); err != nil {
		t.Fatal(err)
	}
	misled.shared.Set("#shared-lib", []byte("999999990"), cache.NoExpiry)
	misled.flush(t)

	b := newReplica(t, "B", cfg)
	b.learn(t)
	if lib := b.lib.LastIrreversible(); lib != 980 {
		t.Errorf("B's LIB %d, want its nodes' 980", lib)
	}
	b.call(t, "condenser_api.get_block", "[1500]")
	e, ok := b.d.Cache().Get(b.key(t, "condenser_api.get_block", "[1500]"))
	if !ok || e.Expires.IsZero() {
		t.Errorf("block 1500, beyond the head: cached %v, expiry %v; want cached with an expiry", ok, e.Expires)
	}
}

// TestSharedLIBExpires: the LIB a replica shares in Redis expires; no key
// holds it without expiry.
func TestSharedLIBExpires(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	node := newCountingNode(t)
	node.lib.Store(5000)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 5s")
	a := newReplica(t, "A", cfg)
	a.learn(t)
	a.flush(t)
	ctx := context.Background()
	rc := srv.Client()
	keys := rc.Keys(ctx, "*").Val()
	var shared int
	for _, k := range keys {
		if strings.Contains(k, "get_dynamic_global_properties") {
			continue // the cached answer of the learning call
		}
		shared++
		if pttl := rc.PTTL(ctx, k).Val(); pttl <= 0 || pttl > time.Minute {
			t.Errorf("key %q (%q) has PTTL %v, want an expiry within a minute", k, rc.Get(ctx, k).Val(), pttl)
		}
	}
	if shared == 0 {
		t.Errorf("no shared LIB in Redis (keys %q)", keys)
	}
}
