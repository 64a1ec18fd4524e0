package cache_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/internal/redistest"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// newRedis returns a Redis tier on srv, closed when the test ends. Unless
// opts says otherwise its timeout is a generous 5s: tests that are not
// about timeouts must not fail because a loaded machine took more than the
// default 50ms to answer.
func newRedis(t testing.TB, srv *redistest.Server, opts cache.RedisOptions) *cache.Redis {
	t.Helper()
	if opts.URL == "" {
		opts.URL = srv.URL()
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	r, err := cache.NewRedis(opts)
	if err != nil {
		t.Fatalf("NewRedis: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// flush waits until r's queued writes are in Redis.
func flush(t testing.TB, r *cache.Redis) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Flush(ctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// jsonValue is a JSON result of about n bytes that compresses well, like
// real block and account data.
func jsonValue(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"ops":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"vote_operation","value":{"voter":"alice%d","author":"bob","weight":10000}}`, i%97)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func TestRedisRoundTrip(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	r := newRedis(t, srv, cache.RedisOptions{Prefix: "rt:"})
	ctx := context.Background()
	cases := []struct {
		name       string
		value      []byte
		ttl        time.Duration
		compressed bool
	}{
		{"small value with a TTL", []byte(`{"head_block_number":1}`), time.Minute, false},
		{"small value without expiry", []byte(`[1,2,3]`), cache.NoExpiry, false},
		{"large value compressed", jsonValue(64 << 10), time.Minute, true},
		{"large value without expiry", jsonValue(8 << 10), cache.NoExpiry, true},
		{"at the threshold", jsonValue(cache.DefaultRedisCompressMinBytes)[:cache.DefaultRedisCompressMinBytes], time.Minute, true},
		{"one byte under the threshold", jsonValue(cache.DefaultRedisCompressMinBytes)[:cache.DefaultRedisCompressMinBytes-1], time.Minute, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			key := "hived.condenser_api.x.params=" + tc.name
			r.Set(key, tc.value, tc.ttl)
			flush(t, r)
			raw, err := rc.Get(ctx, "rt:c:"+key).Bytes()
			if err != nil {
				t.Fatalf("the value is not in Redis under the prefixed key: %v", err)
			}
			if got := raw[0] == 1; got != tc.compressed {
				t.Errorf("header byte %d, want compressed=%v", raw[0], tc.compressed)
			}
			if tc.compressed && len(raw) >= len(tc.value) {
				t.Errorf("STRLEN %d, want less than the value's %d bytes", len(raw), len(tc.value))
			}
			if !tc.compressed && len(raw) != len(tc.value)+1 {
				t.Errorf("STRLEN %d, want the value's %d bytes and a header byte", len(raw), len(tc.value))
			}
			pttl := rc.PTTL(ctx, "rt:c:"+key).Val()
			switch {
			case tc.ttl == cache.NoExpiry && pttl != -1:
				t.Errorf("PTTL %v, want -1 (no expiry)", pttl)
			case tc.ttl > 0 && (pttl <= 0 || pttl > tc.ttl):
				t.Errorf("PTTL %v, want in (0, %v]", pttl, tc.ttl)
			}
			v, ttl, ok := r.Get(ctx, key)
			if !ok || !bytes.Equal(v, tc.value) {
				t.Fatalf("Get = %d bytes, %v; want the %d bytes stored", len(v), ok, len(tc.value))
			}
			if (tc.ttl == cache.NoExpiry) != (ttl == cache.NoExpiry) || ttl > tc.ttl && tc.ttl > 0 {
				t.Errorf("Get ttl %v, stored with %v", ttl, tc.ttl)
			}
		})
	}
	if _, _, ok := r.Get(ctx, "never stored"); ok {
		t.Error("Get of a key never stored hit")
	}
	st := r.Stats()
	if st.Hits != uint64(len(cases)) || st.Misses != 1 || st.Errors != 0 || st.Writes != uint64(len(cases)) || st.Compressed != 3 {
		t.Errorf("stats %+v, want %d hits, 1 miss, no errors, %d writes, 3 compressed", st, len(cases), len(cases))
	}
}

func TestRedisCompressMinBytes(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	value := jsonValue(600)
	cases := []struct {
		name       string
		min        int
		compressed bool
	}{
		{"default 1024 leaves 600 bytes raw", 0, false},
		{"100 compresses 600 bytes", 100, true},
		{"exactly the value's size compresses it", len(value), true},
		{"negative never compresses", -1, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRedis(t, srv, cache.RedisOptions{Prefix: fmt.Sprintf("cm%d:", i), CompressMinBytes: tc.min})
			r.Set("k", value, time.Minute)
			flush(t, r)
			raw, err := rc.Get(context.Background(), fmt.Sprintf("cm%d:c:k", i)).Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if got := raw[0] == 1; got != tc.compressed {
				t.Errorf("compressed %v (STRLEN %d), want %v", got, len(raw), tc.compressed)
			}
			if v, _, ok := r.Get(context.Background(), "k"); !ok || !bytes.Equal(v, value) {
				t.Errorf("round trip lost the value")
			}
		})
	}
}

func TestRedisExpiry(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	r := newRedis(t, srv, cache.RedisOptions{})
	ctx := context.Background()
	r.Set("short", []byte(`"soon gone"`), 200*time.Millisecond)
	flush(t, r)
	if _, ttl, ok := r.Get(ctx, "short"); !ok || ttl <= 0 || ttl > 200*time.Millisecond {
		t.Fatalf("Get = %v, ttl %v; want a hit with at most 200ms left", ok, ttl)
	}
	waitFor(t, "the key to expire in Redis", func() bool {
		return rc.PTTL(ctx, cache.DefaultRedisPrefix+"c:short").Val() == -2
	})
	if _, _, ok := r.Get(ctx, "short"); ok {
		t.Error("Get hit after the key expired in Redis")
	}
}

func TestRedisCorruptValue(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	r := newRedis(t, srv, cache.RedisOptions{})
	ctx := context.Background()
	for name, raw := range map[string]string{
		"empty":          "",
		"unknown header": "\x07{}",
		"bad zstd":       "\x01not zstd at all",
	} {
		rc.Set(ctx, cache.DefaultRedisPrefix+"c:"+name, raw, 0)
		if v, _, ok := r.Get(ctx, name); ok {
			t.Errorf("%s: Get hit with %q, want a miss", name, v)
		}
	}
	if st := r.Stats(); st.Errors != 3 || st.Misses != 3 || st.OpenBreakers != 0 {
		t.Errorf("stats %+v, want 3 errors and misses, breaker closed (Redis itself works)", st)
	}
}

func TestRedisReplicaReads(t *testing.T) {
	t.Parallel()
	primary := redistest.Start(t)
	t.Run("reads go to the replica", func(t *testing.T) {
		t.Parallel()
		// A standalone server stands in for the replica, so that what a
		// read finds tells which server it went to.
		other := redistest.Start(t)
		r := newRedis(t, primary, cache.RedisOptions{Prefix: "standalone:", ReplicaURLs: []string{other.URL()}})
		ctx := context.Background()
		r.Set("k", []byte(`"on the primary"`), cache.NoExpiry)
		flush(t, r)
		if _, _, ok := r.Get(ctx, "k"); ok {
			t.Fatal("Get found the value the replica does not have: the read went to the primary")
		}
		other.Client().Set(ctx, "standalone:c:k", "\x00\"on the replica\"", 0)
		if v, _, ok := r.Get(ctx, "k"); !ok || string(v) != `"on the replica"` {
			t.Fatalf("Get = %q, %v; want the replica's value", v, ok)
		}
	})
	t.Run("a real replica serves what the primary was sent", func(t *testing.T) {
		t.Parallel()
		replica := redistest.Start(t, "--replicaof", "127.0.0.1", strings.TrimPrefix(primary.Addr(), "127.0.0.1:"))
		r := newRedis(t, primary, cache.RedisOptions{Prefix: "replicated:", ReplicaURLs: []string{replica.URL()}})
		ctx := context.Background()
		r.Set("k", []byte(`"replicated"`), cache.NoExpiry)
		flush(t, r)
		rc := replica.Client()
		waitFor(t, "the replica to receive the key", func() bool {
			return rc.Exists(ctx, "replicated:c:k").Val() == 1
		})
		if v, _, ok := r.Get(ctx, "k"); !ok || string(v) != `"replicated"` {
			t.Fatalf("Get = %q, %v; want the replicated value", v, ok)
		}
	})
}

func TestRedisSharedLIB(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	a := newRedis(t, srv, cache.RedisOptions{Prefix: "lib:"})
	b := newRedis(t, srv, cache.RedisOptions{Prefix: "lib:"})
	ctx := context.Background()
	if n, err := b.LIB().Load(ctx); n != 0 || err != nil {
		t.Fatalf("Load before any publish = %d, %v; want 0, nil", n, err)
	}
	steps := []struct {
		who  *cache.Redis
		lib  uint64
		want uint64
	}{
		{a, 100, 100},
		{b, 90, 100}, // a lagging replica never moves it back
		{b, 120, 120},
		{a, 110, 120},
	}
	for i, s := range steps {
		s.who.LIB().OnUpdate(s.lib, s.lib+20)
		flush(t, s.who)
		if got := rc.Get(ctx, "lib:lib").Val(); got != fmt.Sprint(s.want) {
			t.Errorf("step %d: Redis holds %q, want %d", i, got, s.want)
		}
		for _, r := range []*cache.Redis{a, b} {
			if n, err := r.LIB().Load(ctx); n != s.want || err != nil {
				t.Errorf("step %d: Load = %d, %v; want %d", i, n, err, s.want)
			}
		}
	}
	if key := a.LIB().Key(); key != "lib:lib" {
		t.Errorf("Key() = %q", key)
	}
	if st := a.Stats(); st.LIB != 120 || st.LIBPublished != 1 {
		t.Errorf("stats %+v, want LIB 120 after one successful publish (a's 110 was below what it knew)", st)
	}
}

func TestRedisBreaker(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	var logs syncbuf.Buffer
	r := newRedis(t, srv, cache.RedisOptions{BreakerFailures: 3, BreakerCooldown: 100 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	r.Set("k", []byte(`"v"`), cache.NoExpiry)
	flush(t, r)
	srv.Kill()
	for i := range 3 {
		if _, _, ok := r.Get(ctx, "k"); ok {
			t.Fatalf("read %d hit with Redis killed", i)
		}
	}
	st := r.Stats()
	if st.Errors != 3 || st.BreakerOpens != 1 || st.OpenBreakers != 1 {
		t.Fatalf("after 3 failures: stats %+v, want 3 errors and the breaker open", st)
	}
	// While open, nothing is tried until the cooldown is over.
	if _, _, ok := r.Get(ctx, "k"); ok {
		t.Fatal("hit with the breaker open")
	}
	r.Set("k2", []byte(`"v"`), cache.NoExpiry)
	flush(t, r)
	srv.Restart()
	r.Set("k", []byte(`"back"`), cache.NoExpiry)
	waitFor(t, "the breaker to close after the cooldown", func() bool {
		_, _, ok := r.Get(ctx, "missing")
		return r.Stats().OpenBreakers == 0 && !ok
	})
	r.Set("k", []byte(`"back"`), cache.NoExpiry)
	flush(t, r)
	if v, _, ok := r.Get(ctx, "k"); !ok || string(v) != `"back"` {
		t.Errorf("after recovery Get = %q, %v", v, ok)
	}
	if st := r.Stats(); st.Skipped == 0 || st.BreakerOpens < 1 {
		t.Errorf("stats %+v, want skipped operations while the breaker was open", st)
	}
	// The log tells the story without a line per failed operation.
	text := logs.String()
	for _, want := range []struct {
		msg      string
		min, max int
	}{
		{"redis operation failed", 1, 2}, // rate-limited: one per 10s
		{"redis unreachable", 1, 1},
		{"redis reachable again", 1, 1},
	} {
		if n := strings.Count(text, want.msg); n < want.min || n > want.max {
			t.Errorf("%d log lines %q, want %d..%d; log:\n%s", n, want.msg, want.min, want.max, text)
		}
	}
}

func TestRedisSlowDoesNotBlock(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	r := newRedis(t, srv, cache.RedisOptions{Timeout: 50 * time.Millisecond, BreakerFailures: 2, BreakerCooldown: time.Minute})
	ctx := context.Background()
	r.Set("k", []byte(`"v"`), cache.NoExpiry)
	flush(t, r)
	asleep := make(chan error, 1)
	ctl := srv.Client()
	// Paused for longer than any test takes: the server is killed at the end.
	if err := ctl.ClientPause(ctx, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	probe := srv.Client()
	go func() {
		// Returns once the pause is over, or the server is killed.
		asleep <- probe.Ping(ctx).Err()
	}()
	for i := range 5 {
		if _, _, ok := r.Get(ctx, "k"); ok {
			t.Errorf("read %d hit while Redis is paused", i)
		}
	}
	select {
	case err := <-asleep:
		t.Fatalf("Redis answered (%v) before the reads gave up: they waited for it", err)
	default:
	}
	if st := r.Stats(); st.Errors != 2 || st.OpenBreakers != 1 || st.Skipped != 3 {
		t.Errorf("stats %+v, want 2 timeouts, then the breaker open and 3 reads skipped", st)
	}
}

func TestRedisQueueFull(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	r := newRedis(t, srv, cache.RedisOptions{QueueSize: 4, Timeout: 5 * time.Second})
	ctx := context.Background()
	// With Redis paused, the writer is stuck on its first batch and the
	// queue fills up.
	if err := srv.Client().ClientPause(ctx, 2*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 100 {
		r.Set(fmt.Sprint(i), []byte(`"v"`), time.Minute)
	}
	t.Logf("100 Sets against a paused Redis took %v", time.Since(start))
	flush(t, r)
	st := r.Stats()
	if st.Dropped < 90 || st.Writes+st.Dropped != 100 {
		t.Errorf("stats %+v: want at least 90 of 100 writes dropped and the rest written", st)
	}
}

func TestNewRedisErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts cache.RedisOptions
	}{
		{"no URL", cache.RedisOptions{}},
		{"bad scheme", cache.RedisOptions{URL: "http://127.0.0.1:6379"}},
		{"bad db", cache.RedisOptions{URL: "redis://127.0.0.1:6379/x"}},
		{"bad replica", cache.RedisOptions{URL: "redis://127.0.0.1:6379", ReplicaURLs: []string{"nope://"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := cache.NewRedis(tc.opts)
			if err == nil {
				_ = r.Close()
				t.Fatal("NewRedis accepted the options")
			}
		})
	}
	t.Run("password not in the error", func(t *testing.T) {
		t.Parallel()
		_, err := cache.NewRedis(cache.RedisOptions{URL: "redis://u:s3cret@127.0.0.1:x/0"})
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error %v", err)
		}
	})
}

// waitFor polls cond until it holds, failing the test after 10 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
