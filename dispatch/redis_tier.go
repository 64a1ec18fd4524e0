package dispatch

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
)

// Option configures a Dispatcher built by New.
type Option func(*Dispatcher)

// WithSharedCache puts the dispatcher's in-process cache in front of a
// shared Redis tier (cache.Tiered): a call that misses the in-process cache
// is looked up in Redis (within its timeout) before it goes upstream, a
// Redis hit fills the in-process cache and is reported as CacheHit, and
// every answer stored in-process is also written to Redis in the background.
// A nil r leaves the dispatcher without a shared tier, so the result of
// OpenSharedCache can be passed whether or not the tier is configured.
func WithSharedCache(r *cache.Redis) Option {
	return func(d *Dispatcher) {
		if r != nil {
			d.tier = cache.NewTiered(d.cache, r)
		}
	}
}

// SharedCache returns the shared Redis tier, nil when there is none.
func (d *Dispatcher) SharedCache() *cache.Redis {
	if d.tier == nil {
		return nil
	}
	return d.tier.Shared()
}

// OpenSharedCache builds the shared Redis tier the config's `cache:`
// section describes, or returns nil (and no error) when it has no
// redis_url. It does not connect: a Redis that is down at start opens its
// breaker instead of stopping hivegate. The caller closes it after the
// dispatcher is done with it.
func OpenSharedCache(s config.CacheSettings, logger *slog.Logger) (*cache.Redis, error) {
	if !s.Enabled() {
		return nil, nil
	}
	r, err := cache.NewRedis(cache.RedisOptions{
		URL:              s.RedisURL,
		ReplicaURLs:      s.RedisReplicaURLs,
		Prefix:           s.RedisPrefix,
		Timeout:          s.RedisTimeout,
		CompressMinBytes: int(s.RedisCompressMinBytes),
		BreakerFailures:  s.RedisBreakerFailures,
		BreakerCooldown:  s.RedisBreakerCooldown,
		Logger:           logger,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: cache: %w", s.Pos, err)
	}
	return r, nil
}

// ShareLIB links a last-irreversible-block tracker to the LIB the replicas
// share through Redis: it seeds the tracker with the shared value (one read,
// bounded by the Redis timeout), so that a replica that just started knows
// at once which blocks are final, and from then on publishes every advance
// of the tracker. It returns the value it read (0 when none was shared
// yet); an error means Redis could not be read, and the tracker learns the
// LIB from its own polling as it would without Redis. Either argument may be
// nil, and then ShareLIB does nothing.
func ShareLIB(ctx context.Context, shared *cache.Redis, lib *backend.LIBTracker) (uint64, error) {
	if shared == nil || lib == nil {
		return 0, nil
	}
	n, err := shared.LIB().Load(ctx)
	if n > 0 {
		lib.Seed(n)
	}
	lib.OnUpdate(shared.LIB().OnUpdate)
	// A tracker that already knew more than Redis (it polled first) has no
	// advance left to report; publish what it knows now.
	shared.LIB().Publish(lib.LastIrreversible())
	return n, err
}
