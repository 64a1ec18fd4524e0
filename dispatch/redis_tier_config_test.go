package dispatch_test

import (
	"context"
	"fmt"
	"github.com/hivegate/hivegate/internal/redistest"
	"testing"
	"time"
)

// TestSharedConfigKeys shows that each key of the `cache:` section changes
// what the replicas do: each case builds two configs that differ in one key
// and checks what that key is for.
func TestSharedConfigKeys(t *testing.T) {
	t.Parallel()
	const method = "cache_api.config"
	cases := []struct {
		name string
		// keys of the cache section, given the primary's and an extra
		// (standalone) server's URLs; nil leaves the section empty.
		with, without func(primary, other string) []string
		// check runs A's call, then B's, and says whether the key's
		// effect is seen.
		check func(t *testing.T, env *keyEnv) bool
	}{
		{
			name:    "redis_url shares the cache",
			with:    func(p, _ string) []string { return []string{"redis_url: " + p, "redis_timeout: 5s"} },
			without: func(_, _ string) []string { return nil },
			check: func(t *testing.T, env *keyEnv) bool {
				env.a.call(t, method, "[1]")
				env.flushA(t)
				return env.b.call(t, method, "[1]").cache == "hit" && env.node.count(method, "[1]") == 1
			},
		},
		{
			name: "redis_replica_urls sends reads to the replica",
			with: func(p, o string) []string {
				return []string{"redis_url: " + p, "redis_replica_urls: [\"" + o + "\"]", "redis_timeout: 5s"}
			},
			without: func(p, _ string) []string { return []string{"redis_url: " + p, "redis_timeout: 5s"} },
			check: func(t *testing.T, env *keyEnv) bool {
				// The "replica" is a standalone server that never gets A's
				// write, so B misses exactly when it reads from it.
				env.a.call(t, method, "[2]")
				env.flushA(t)
				return env.b.call(t, method, "[2]").cache == "miss"
			},
		},
		{
			name: "redis_prefix namespaces the keys",
			with: func(p, _ string) []string {
				return []string{"redis_url: " + p, "redis_prefix: 'replicas-eu:'", "redis_timeout: 5s"}
			},
			without: func(p, _ string) []string { return []string{"redis_url: " + p, "redis_timeout: 5s"} },
			check: func(t *testing.T, env *keyEnv) bool {
				env.a.call(t, method, "[3]")
				env.flushA(t)
				keys := env.srv.Client().Keys(context.Background(), "replicas-eu:c:*").Val()
				return len(keys) == 1
			},
		},
		{
			name:    "redis_timeout bounds the wait for a paused Redis",
			with:    func(p, _ string) []string { return []string{"redis_url: " + p, "redis_timeout: 50"} },
			without: func(p, _ string) []string { return []string{"redis_url: " + p, "redis_timeout: 10s"} },
			check: func(t *testing.T, env *keyEnv) bool {
				env.srv.Client().Set(context.Background(), env.b.redisKey(t, method, "[4]"), "\x00"+nodeResult(method, []byte("[4]"), 0), 0)
				// With 50ms B gives up on Redis and goes upstream however
				// long the pause; with 10s it waits out a 2s pause and hits.
				pause := 2 * time.Second
				if env.keySet {
					pause = time.Minute // the server is killed when the test ends
				}
				if err := env.srv.Client().ClientPause(context.Background(), pause).Err(); err != nil {
					t.Fatal(err)
				}
				return env.b.call(t, method, "[4]").cache == "miss"
			},
		},
		{
			name: "redis_compress_min_bytes sets what is compressed",
			with: func(p, _ string) []string {
				return []string{"redis_url: " + p, "redis_compress_min_bytes: 16", "redis_timeout: 5s"}
			},
			without: func(p, _ string) []string { return []string{"redis_url: " + p, "redis_timeout: 5s"} },
			check: func(t *testing.T, env *keyEnv) bool {
				params := `["a parameter long enough for the answer to pass sixteen bytes and compress: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]`
				env.a.call(t, method, params)
				env.flushA(t)
				raw, err := env.srv.Client().Get(context.Background(), env.a.redisKey(t, method, params)).Bytes()
				if err != nil {
					t.Fatal(err)
				}
				return raw[0] == 1 // the zstd header
			},
		},
		{
			name: "redis_breaker_failures sets when the breaker opens",
			with: func(p, _ string) []string {
				return []string{"redis_url: " + p, "redis_breaker_failures: 2", "redis_timeout: 5s"}
			},
			without: func(p, _ string) []string {
				return []string{"redis_url: " + p, "redis_breaker_failures: 100", "redis_timeout: 5s"}
			},
			check: func(t *testing.T, env *keyEnv) bool {
				env.srv.Kill()
				for i := range 3 {
					env.a.call(t, method, fmt.Sprintf(`["down", %d]`, i))
				}
				return env.a.shared.Stats().OpenBreakers == 1
			},
		},
		{
			name: "redis_breaker_cooldown sets when Redis is tried again",
			with: func(p, _ string) []string {
				return []string{"redis_url: " + p, "redis_breaker_failures: 1", "redis_breaker_cooldown: 50ms", "redis_timeout: 5s"}
			},
			without: func(p, _ string) []string {
				return []string{"redis_url: " + p, "redis_breaker_failures: 1", "redis_breaker_cooldown: 1h", "redis_timeout: 5s"}
			},
			check: func(t *testing.T, env *keyEnv) bool {
				env.srv.Kill()
				env.a.call(t, method, `["cooldown", 0]`)
				if env.a.shared.Stats().OpenBreakers != 1 {
					t.Fatal("the breaker did not open")
				}
				env.srv.Restart()
				// Calls for 2 seconds, stopping as soon as the breaker
				// closes: with 50ms it does, with 1h it cannot.
				for i := 1; i < 200; i++ {
					env.a.call(t, method, fmt.Sprintf(`["cooldown", %d]`, i))
					if env.a.shared.Stats().OpenBreakers == 0 {
						return true
					}
					time.Sleep(10 * time.Millisecond)
				}
				return false
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, set := range []bool{true, false} {
				keys := tc.without
				if set {
					keys = tc.with
				}
				env := newKeyEnv(t, keys)
				env.keySet = set
				if got := tc.check(t, env); got != set {
					t.Errorf("with the key set %v: effect seen %v", set, got)
				}
			}
		})
	}
}

// keyEnv is one run of a config-key case: a Redis, an extra standalone
// Redis, a node, and replicas A and B built from the case's cache keys.
type keyEnv struct {
	keySet     bool // the run with the key set
	srv, other *redistest.Server
	node       *countingNode
	a, b       *replica
}

func newKeyEnv(t *testing.T, keys func(primary, other string) []string) *keyEnv {
	t.Helper()
	env := &keyEnv{srv: redistest.Start(t), other: redistest.Start(t), node: newCountingNode(t)}
	cfg := parseShared(t, env.node, keys(env.srv.URL(), env.other.URL())...)
	env.a, env.b = newReplica(t, "A", cfg), newReplica(t, "B", cfg)
	return env
}

// flushA waits for A's writes, if A has a shared tier.
func (env *keyEnv) flushA(t *testing.T) {
	t.Helper()
	if env.a.shared != nil {
		env.a.flush(t)
	}
}
