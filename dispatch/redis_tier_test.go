package dispatch_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/internal/redistest"
)

// TestSharedCacheAcrossReplicas: a miss on replica A is a hit on replica B
// (one upstream call in all), and the Redis key lives as long as the TTL
// policy says.
func TestSharedCacheAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	node := newCountingNode(t)
	node.lib.Store(1000)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 5s")
	a, b := newReplica(t, "A", cfg), newReplica(t, "B", cfg)
	// A learns the LIB, so that block 500 is irreversible for it.
	a.learn(t)
	if got := a.lib.LastIrreversible(); got != 1000 {
		t.Fatalf("A's LIB %d, want 1000", got)
	}
	cases := []struct {
		name, method, params string
		// Redis PTTL after A's call: -1 no expiry, -2 not stored, else the
		// most it may be.
		pttl time.Duration
	}{
		{"TTL in seconds", "cache_api.short", `["a"]`, time.Second},
		{"namespace default TTL", "cache_api.other", `["a"]`, time.Minute},
		{"NO_EXPIRE", "cache_api.no_expire", `["a"]`, -1},
		{"irreversible block", "condenser_api.get_block", `[500]`, -1},
		{"reversible block", "condenser_api.get_block", `[1500]`, cache.ReversibleTTLDuration},
		{"NO_CACHE", "cache_api.no_cache", `["a"]`, -2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			first := a.call(t, tc.method, tc.params)
			a.flush(t)
			pttl := rc.PTTL(context.Background(), a.redisKey(t, tc.method, tc.params)).Val()
			switch {
			case tc.pttl < 0 && pttl != tc.pttl:
				t.Errorf("Redis PTTL %v, want %v", pttl, tc.pttl)
			case tc.pttl > 0 && (pttl <= 0 || pttl > tc.pttl):
				t.Errorf("Redis PTTL %v, want in (0, %v]", pttl, tc.pttl)
			}
			second := b.call(t, tc.method, tc.params)
			third := b.call(t, tc.method, tc.params)
			calls := node.count(tc.method, tc.params)
			if tc.pttl == -2 {
				if first.cache != "bypass" || second.cache != "bypass" || third.cache != "bypass" || calls != 3 {
					t.Errorf("caches %q, %q, %q with %d upstream calls; want bypass every time and 3 calls", first.cache, second.cache, third.cache, calls)
				}
				return
			}
			if first.cache != "miss" || second.cache != "hit" || third.cache != "hit" || calls != 1 {
				t.Errorf("A %q, then B %q and %q, with %d upstream calls; want miss, hit, hit and 1 call", first.cache, second.cache, third.cache, calls)
			}
		})
	}
	st := b.shared.Stats()
	if want := uint64(len(cases) - 1); st.Hits != want {
		t.Errorf("B's Redis hits %d, want %d (the second call on B is an in-process hit)", st.Hits, want)
	}
}

// TestSharedNoCacheNeverReachesRedis: NO_CACHE calls are neither looked up
// in nor written to Redis.
func TestSharedNoCacheNeverReachesRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	node := newCountingNode(t)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 5s")
	a, b := newReplica(t, "A", cfg), newReplica(t, "B", cfg)
	// Each replica read the shared LIB once when it started (a miss).
	before := map[*replica]cache.RedisStats{a: a.shared.Stats(), b: b.shared.Stats()}
	for i := range 3 {
		for _, r := range []*replica{a, b} {
			if got := r.call(t, "cache_api.no_cache", fmt.Sprintf("[%d]", i)); got.cache != "bypass" {
				t.Errorf("%s: cache %q, want bypass", r.name, got.cache)
			}
		}
	}
	a.flush(t)
	b.flush(t)
	if n := srv.Client().DBSize(context.Background()).Val(); n != 0 {
		t.Errorf("Redis holds %d keys, want none", n)
	}
	for _, r := range []*replica{a, b} {
		if st, b := r.shared.Stats(), before[r]; st.Hits+st.Misses+st.Skipped+st.Writes != b.Hits+b.Misses+b.Skipped+b.Writes {
			t.Errorf("%s asked Redis: %+v (at start %+v)", r.name, st, b)
		}
	}
}

// TestSharedTTLExpiry: a short TTL expires in Redis, and then B goes
// upstream again.
func TestSharedTTLExpiry(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	node := newCountingNode(t)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 5s")
	a, b := newReplica(t, "A", cfg), newReplica(t, "B", cfg)
	const method, params = "cache_api.short", `["expiring"]`
	a.call(t, method, params)
	a.flush(t)
	if got := b.call(t, method, params); got.cache != "hit" {
		t.Fatalf("B: cache %q, want hit", got.cache)
	}
	key := a.redisKey(t, method, params)
	waitFor(t, "the key to expire in Redis", func() bool { return rc.PTTL(context.Background(), key).Val() == -2 })
	local := b.key(t, method, params)
	// B's copy expires with the Redis key (within Redis's 1ms resolution).
	waitFor(t, "B's in-process copy to expire", func() bool { _, ok := b.d.Cache().Get(local); return !ok })
	if got := b.call(t, method, params); got.cache != "miss" {
		t.Errorf("B after expiry: cache %q, want miss", got.cache)
	}
	if n := node.count(method, params); n != 2 {
		t.Errorf("%d upstream calls, want 2 (A's, and B's after expiry)", n)
	}
}

// TestSharedCompression: a large answer is stored compressed and comes back
// byte for byte on the other replica.
func TestSharedCompression(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	node := newCountingNode(t)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 5s")
	a, b := newReplica(t, "A", cfg), newReplica(t, "B", cfg)
	first := a.call(t, "cache_api.big", "[]")
	a.flush(t)
	stored := srv.Client().StrLen(context.Background(), a.redisKey(t, "cache_api.big", "[]")).Val()
	if stored == 0 || stored >= int64(len(first.Result))/4 {
		t.Errorf("STRLEN %d for a %d-byte answer, want well under a quarter", stored, len(first.Result))
	}
	second := b.call(t, "cache_api.big", "[]")
	if second.cache != "hit" || string(second.Result) != string(first.Result) {
		t.Errorf("B: cache %q, result equal %v; want a hit with the same bytes", second.cache, string(second.Result) == string(first.Result))
	}
	if st := a.shared.Stats(); st.Compressed != 1 {
		t.Errorf("A compressed %d values, want 1", st.Compressed)
	}
}

// TestSharedLIB: A learns the LIB and shares it, with an expiry; B, built
// afterwards, uses it once its own nodes agree on a head at least as high.
// The value shared is what the nodes agree on now: lower too.
func TestSharedLIB(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	node := newCountingNode(t)
	node.lib.Store(5000)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 5s")
	a := newReplica(t, "A", cfg)
	a.learn(t)
	a.flush(t)
	if got, ttl := sharedLIB(t, a); got != "5000" || ttl <= 0 || ttl > dispatch.SharedLIBTTL {
		t.Fatalf("shared LIB in Redis %q with TTL %v, want 5000 expiring within %v", got, ttl, dispatch.SharedLIBTTL)
	}
	b := newReplica(t, "B", cfg)
	if got := b.lib.LastIrreversible(); got != 0 {
		t.Fatalf("B's LIB right after start %d, want 0 until its own nodes agree", got)
	}
	node.lib.Store(4990) // B's node is a little behind what A shared
	b.learn(t)
	if got := b.lib.LastIrreversible(); got != 5000 {
		t.Fatalf("B's LIB %d, want the shared 5000 (below its nodes' head 5010)", got)
	}
	b.call(t, "condenser_api.get_block", "[4000]")
	e, ok := b.d.Cache().Get(b.key(t, "condenser_api.get_block", "[4000]"))
	if !ok || !e.Expires.IsZero() {
		t.Errorf("B's entry for irreversible block 4000: %v, %v; want stored without expiry", e, ok)
	}
	node.lib.Store(6000)
	b.learn(t)
	b.flush(t)
	if got, _ := sharedLIB(t, a); got != "6000" {
		t.Errorf("shared LIB %q, want 6000", got)
	}
	// The nodes now say less: that is what is shared.
	node.lib.Store(5500)
	a.learn(t)
	a.flush(t)
	if got, _ := sharedLIB(t, a); got != "5500" {
		t.Errorf("shared LIB %q, want 5500", got)
	}
}

// sharedLIB reads the shared LIB from Redis and its expiry.
func sharedLIB(t testing.TB, r *replica) (string, time.Duration) {
	t.Helper()
	v, ttl, ok := r.shared.Get(context.Background(), dispatch.SharedLIBKey)
	if !ok {
		return "", 0
	}
	return string(v), ttl
}

// TestSharedRedisKilledMidTraffic: with requests in flight from several
// goroutines, redis-server is killed: no request fails, the breakers open;
// once it is back they close and the replicas share again.
func TestSharedRedisKilledMidTraffic(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	node := newCountingNode(t)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 1s",
		"redis_breaker_failures: 3", "redis_breaker_cooldown: 200ms")
	replicas := []*replica{newReplica(t, "A", cfg), newReplica(t, "B", cfg)}

	var stop atomic.Bool
	var served, failed atomic.Int64
	var firstErr sync.Once
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				r := replicas[(i/2)%2]
				// Half the calls are new (a Redis lookup, then upstream);
				// the other half ask each key four times, alternating
				// replicas (in-process hits, and shared ones when the
				// other replica's write is already in Redis).
				params := fmt.Sprintf(`["new", %d, %d]`, w, i)
				if i%2 == 0 {
					params = fmt.Sprintf(`["repeated", %d, %d]`, w, i/8)
				}
				a, err := r.post(context.Background(), "cache_api.traffic", params)
				if err == nil && a.Error == nil && !jsonEqual(a.Result, nodeResult("cache_api.traffic", []byte(params), 0)) {
					err = fmt.Errorf("wrong result %s", a.Result)
				}
				if err == nil && a.Error != nil {
					err = fmt.Errorf("error %d %s", a.Error.Code, a.Error.Message)
				}
				if err != nil {
					failed.Add(1)
					firstErr.Do(func() { t.Errorf("%s %s: %v", r.name, params, err) })
					continue
				}
				served.Add(1)
			}
		})
	}
	defer func() { stop.Store(true); wg.Wait() }() // however the test ends
	// Traffic is counted, not timed: requests before the kill, then after
	// it until both breakers have opened and more requests were served.
	const span = 200
	waitFor(t, "traffic before the kill", func() bool { return served.Load()+failed.Load() >= span })
	srv.Kill()
	killedAt := served.Load()
	waitFor(t, "traffic after the kill with both breakers open", func() bool {
		return served.Load()+failed.Load() >= killedAt+span &&
			replicas[0].shared.Stats().BreakerOpens > 0 && replicas[1].shared.Stats().BreakerOpens > 0
	})
	stop.Store(true)
	wg.Wait()
	t.Logf("%d requests served, %d before the kill; %d failed", served.Load(), killedAt, failed.Load())
	if failed.Load() != 0 {
		t.Fatalf("%d requests failed while Redis went down", failed.Load())
	}
	if served.Load() == killedAt {
		t.Fatal("no request was served after the kill")
	}
	for _, r := range replicas {
		st := r.shared.Stats()
		t.Logf("%s: %+v", r.name, st)
		if st.BreakerOpens == 0 || st.Errors == 0 {
			t.Errorf("%s: the breaker never opened: %+v", r.name, st)
		}
	}

	srv.Restart()
	i := 0
	waitFor(t, "the breakers to close after Redis came back", func() bool {
		i++
		closed := true
		for _, r := range replicas {
			r.call(t, "cache_api.recover", fmt.Sprintf("[%q, %d]", r.name, i))
			closed = closed && r.shared.Stats().OpenBreakers == 0
		}
		return closed
	})
	a, b := replicas[0], replicas[1]
	a.call(t, "cache_api.after", "[1]")
	a.flush(t)
	if got := b.call(t, "cache_api.after", "[1]"); got.cache != "hit" || node.count("cache_api.after", "[1]") != 1 {
		t.Errorf("after recovery B: cache %q with %d upstream calls; want a shared hit", got.cache, node.count("cache_api.after", "[1]"))
	}
}

// TestSharedSlowRedis: a Redis that does not answer costs a request no
// more than the Redis timeout, and after a few such requests the breaker
// stops asking it at all.
func TestSharedSlowRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	node := newCountingNode(t)
	cfg := parseShared(t, node, "redis_url: "+srv.URL(), "redis_timeout: 50ms",
		"redis_breaker_failures: 3", "redis_breaker_cooldown: 1m")
	b := newReplica(t, "B", cfg)
	ctx := context.Background()
	ctl := srv.Client()
	// Paused for longer than any test takes: the server is killed at the end.
	if err := ctl.ClientPause(ctx, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	paused := make(chan struct{})
	probe := srv.Client()
	go func() {
		_ = probe.Ping(ctx).Err() // answered when the pause ends
		close(paused)
	}()
	for i := range 8 {
		start := time.Now()
		got := b.call(t, "cache_api.slow", fmt.Sprintf("[%d]", i))
		t.Logf("request %d: %q in %v", i, got.cache, time.Since(start))
	}
	select {
	case <-paused:
		t.Fatal("Redis answered before the requests finished: they waited for it")
	default:
	}
	st := b.shared.Stats()
	// Errors: the 3 that opened the breaker, and possibly a write granted
	// just before it opened.
	if st.Errors < 3 || st.OpenBreakers != 1 || st.Skipped == 0 {
		t.Errorf("stats %+v: want at least 3 timeouts, then the breaker open and Redis skipped", st)
	}
}

// TestWithoutSharedCache: WithSharedCache(nil) and ShareLIB without a tier
// leave the dispatcher without one (cache.OpenShared without a redis_url
// returns nil: see its test).
func TestWithoutSharedCache(t *testing.T) {
	t.Parallel()
	d := dispatch.New(nil, nil, nil, nil, nil, dispatch.WithSharedCache(nil))
	if d.SharedCache() != nil {
		t.Error("WithSharedCache(nil) set a shared tier")
	}
	if n, err := dispatch.ShareLIB(context.Background(), nil, nil); n != 0 || err != nil {
		t.Errorf("ShareLIB(nil, nil) = %d, %v", n, err)
	}
}
