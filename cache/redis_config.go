package cache

import (
	"fmt"
	"log/slog"

	"github.com/hivegate/hivegate/config"
)

// OpenShared builds the shared Redis tier the config's `cache:` section
// describes, or returns nil (and no error) when it has no redis_url. It
// does not connect: a Redis that is down at start opens its breaker
// instead of stopping hivegate. The gateway assembles it and hands it to
// the dispatcher (dispatch.WithSharedCache), and closes it after the
// dispatcher is done with it.
func OpenShared(s config.CacheSettings, logger *slog.Logger) (*Redis, error) {
	if !s.Enabled() {
		return nil, nil
	}
	r, err := NewRedis(RedisOptions{
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
