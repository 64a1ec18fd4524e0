package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/internal/redistest"
)

func TestTiered(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rc := srv.Client()
	ctx := context.Background()
	// Replica A stores; replica B, with its own in-process cache, fetches.
	sharedA := newRedis(t, srv, cache.RedisOptions{})
	sharedB := newRedis(t, srv, cache.RedisOptions{})
	a := cache.NewTiered(cache.New(1<<20), sharedA)
	b := cache.NewTiered(cache.New(1<<20), sharedB)

	cases := []struct {
		name string
		key  string
		ttl  time.Duration
	}{
		{"with a TTL", "ttl", time.Minute},
		{"without expiry", "forever", cache.NoExpiry},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			value := []byte(`{"key":"` + tc.key + `"}`)
			if e, ok := a.Store(tc.key, value, tc.ttl); !ok || string(e.Value) != string(value) {
				t.Fatalf("Store = %v, %v", e, ok)
			}
			flush(t, sharedA)
			if _, _, ok := b.Fetch(ctx, tc.key+"-other"); ok {
				t.Fatal("Fetch of an unknown key hit")
			}
			left := tc.ttl
			if tc.ttl > 0 {
				// Redis has less time left than the TTL A stored with: B's
				// copy must expire when the Redis key does.
				left = 5 * time.Second
				if err := rc.PExpire(ctx, cache.DefaultRedisPrefix+"c:"+tc.key, left).Err(); err != nil {
					t.Fatal(err)
				}
			}
			before := time.Now()
			v, e, ok := b.Fetch(ctx, tc.key)
			after := time.Now()
			if !ok || string(v) != string(value) || e == nil {
				t.Fatalf("Fetch on B = %q, %v, %v; want A's value and an in-process entry", v, e, ok)
			}
			switch {
			case tc.ttl == cache.NoExpiry && !e.Expires.IsZero():
				t.Errorf("B's entry expires at %v, want never", e.Expires)
			case tc.ttl > 0 && (e.Expires.Before(before.Add(left-time.Second)) || e.Expires.After(after.Add(left))):
				t.Errorf("B's entry expires %v after the fetch, want the %v Redis had left", e.Expires.Sub(before), left)
			}
			hits := sharedB.Stats().Hits
			if local, ok := b.Local().Get(tc.key); !ok || local != e {
				t.Error("the Redis hit was not stored in B's in-process cache")
			}
			if _, _, ok := b.Fetch(ctx, tc.key); !ok || sharedB.Stats().Hits != hits {
				t.Error("a second Fetch on B went to Redis instead of the in-process cache")
			}
		})
	}

	t.Run("negative TTL stores nothing", func(t *testing.T) {
		a.Store("neg", []byte(`1`), -time.Second)
		flush(t, sharedA)
		if _, _, ok := b.Fetch(ctx, "neg"); ok {
			t.Error("a value stored with a negative TTL reached Redis")
		}
	})
	t.Run("Redis only", func(t *testing.T) {
		only := cache.NewTiered(nil, sharedB)
		if only.Local() != nil || only.Shared() != sharedB {
			t.Fatal("accessors")
		}
		if e, ok := only.Store("only", []byte(`2`), time.Minute); ok || e != nil {
			t.Errorf("Store without a local cache = %v, %v; want no entry", e, ok)
		}
		flush(t, sharedB)
		if v, e, ok := only.Fetch(ctx, "only"); !ok || string(v) != "2" || e != nil {
			t.Errorf("Fetch = %q, %v, %v", v, e, ok)
		}
	})
	t.Run("local only", func(t *testing.T) {
		local := cache.NewTiered(cache.New(1<<20), nil)
		local.Store("l", []byte(`3`), time.Minute)
		if v, _, ok := local.Fetch(ctx, "l"); !ok || string(v) != "3" {
			t.Errorf("Fetch = %q, %v", v, ok)
		}
		if _, _, ok := local.FetchShared(ctx, "l"); ok {
			t.Error("FetchShared without Redis hit")
		}
	})
}
