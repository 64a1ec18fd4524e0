package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// CacheSettings are the `cache:` section of the modern format: the optional
// shared Redis tier that lets several hivegate replicas share one cache. A
// config without the section (or with an empty redis_url) has the tier off,
// and then the other fields do not matter.
type CacheSettings struct {
	// RedisURL turns the shared tier on: redis://[user:password@]host:port/db,
	// rediss://… (TLS) or unix:///path. Empty: off.
	RedisURL string
	// RedisReplicaURLs are read replicas of RedisURL; when given, reads go
	// to them and writes to RedisURL.
	RedisReplicaURLs []string
	// RedisPrefix namespaces every key hivegate writes.
	RedisPrefix string
	// RedisTimeout bounds each Redis operation, so that a slow Redis slows
	// a request by at most this much.
	RedisTimeout time.Duration
	// RedisCompressMinBytes: values of at least this many bytes are stored
	// zstd-compressed.
	RedisCompressMinBytes int64
	// RedisBreakerFailures is how many consecutive failed Redis operations
	// make hivegate stop using Redis for RedisBreakerCooldown.
	RedisBreakerFailures int
	// RedisBreakerCooldown is how long hivegate leaves Redis alone after
	// the breaker opened, before trying it again.
	RedisBreakerCooldown time.Duration
	// Pos is where the section was given (zero when it was not).
	Pos Pos
}

// Defaults and bounds of the cache section.
const (
	DefaultRedisPrefix           = "hivegate:"
	DefaultRedisTimeout          = 50 * time.Millisecond
	DefaultRedisCompressMinBytes = 1024
	DefaultRedisBreakerFailures  = 5
	DefaultRedisBreakerCooldown  = 5 * time.Second
	// MaxRedisTimeout bounds redis_timeout: the shared tier is a shortcut,
	// not something worth making a client wait seconds for.
	MaxRedisTimeout = 10 * time.Second
	// MaxRedisBreakerCooldown bounds redis_breaker_cooldown.
	MaxRedisBreakerCooldown = time.Hour
	// MaxRedisBreakerFailures bounds redis_breaker_failures.
	MaxRedisBreakerFailures = 10000
	// MaxRedisCompressMinBytes bounds redis_compress_min_bytes (1 GiB: in
	// effect, never compress).
	MaxRedisCompressMinBytes = 1 << 30
)

// Enabled reports whether the shared Redis tier is configured.
func (s CacheSettings) Enabled() bool { return s.RedisURL != "" }

// defaultCacheSettings are the cache section's values before its keys are read.
func defaultCacheSettings() CacheSettings {
	return CacheSettings{
		RedisPrefix:           DefaultRedisPrefix,
		RedisTimeout:          DefaultRedisTimeout,
		RedisCompressMinBytes: DefaultRedisCompressMinBytes,
		RedisBreakerFailures:  DefaultRedisBreakerFailures,
		RedisBreakerCooldown:  DefaultRedisBreakerCooldown,
	}
}

// cacheSection reads the `cache:` section; k is its key node.
func (d *decoder) cacheSection(cfg *Config, k, n *node) error {
	s := defaultCacheSettings()
	s.Pos = d.pos(k)
	if n.kind == kindScalar && n.null {
		cfg.Cache = s
		return nil
	}
	var replicasAt *node
	var others []string // keys given besides redis_url
	err := d.fields(n, "cache", func(key string, kn, v *node) (bool, error) {
		path := "cache." + key
		var err error
		switch key {
		case "redis_url":
			if s.RedisURL, err = d.str(v, path); err == nil && s.RedisURL != "" {
				err = d.redisURL(v, path, s.RedisURL)
			}
			return true, err
		case "redis_replica_urls":
			replicasAt = v
			if s.RedisReplicaURLs, err = d.strings(v, path); err != nil {
				return true, err
			}
			for i, u := range s.RedisReplicaURLs {
				if err := d.redisURL(v.vals[i], path, u); err != nil {
					return true, err
				}
			}
		case "redis_prefix":
			if s.RedisPrefix, err = d.str(v, path); err == nil && s.RedisPrefix == "" {
				err = d.errf(v, path, "empty prefix: give the keys a namespace (the default is %q)", DefaultRedisPrefix)
			}
		case "redis_timeout":
			s.RedisTimeout, err = d.millis(v, path, MaxRedisTimeout)
		case "redis_compress_min_bytes":
			s.RedisCompressMinBytes, err = d.integer(v, path)
			if err == nil && (s.RedisCompressMinBytes < 1 || s.RedisCompressMinBytes > MaxRedisCompressMinBytes) {
				err = d.errf(v, path, "redis_compress_min_bytes %d out of range 1..%d", s.RedisCompressMinBytes, MaxRedisCompressMinBytes)
			}
		case "redis_breaker_failures":
			var f int64
			f, err = d.integer(v, path)
			if err == nil && (f < 1 || f > MaxRedisBreakerFailures) {
				err = d.errf(v, path, "redis_breaker_failures %d out of range 1..%d", f, MaxRedisBreakerFailures)
			}
			s.RedisBreakerFailures = int(f)
		case "redis_breaker_cooldown":
			s.RedisBreakerCooldown, err = d.millis(v, path, MaxRedisBreakerCooldown)
		default:
			return false, nil
		}
		others = append(others, key)
		return true, err
	})
	if err != nil {
		return err
	}
	if s.RedisURL == "" && len(s.RedisReplicaURLs) > 0 {
		return d.errf(replicasAt, "cache.redis_replica_urls", "read replicas need a primary: set cache.redis_url too")
	}
	if s.RedisURL == "" && len(others) > 0 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: cache.%s has no effect without cache.redis_url: the shared Redis tier is off", s.Pos, strings.Join(others, ", cache.")))
	}
	cfg.Cache = s
	return nil
}

// redisURL checks a Redis URL the way the Redis client will read it.
// Messages never repeat the URL's password.
func (d *decoder) redisURL(n *node, key, u string) error {
	_, err := redis.ParseURL(u)
	if err == nil {
		return nil
	}
	detail := err.Error()
	if pu, perr := url.Parse(u); perr == nil {
		detail = strings.ReplaceAll(detail, u, pu.Redacted())
	} else {
		detail = "not a URL" // url.Parse's own message quotes the URL, password and all
	}
	return d.errf(n, key, "bad Redis URL: %s (want redis://[user:password@]host:port/db, rediss://… or unix:///path)", detail)
}

// millis reads a positive duration written as whole milliseconds (an
// integer) or as a Go duration string ("50ms", "1.5s"), at most max.
func (d *decoder) millis(n *node, key string, max time.Duration) (time.Duration, error) {
	var v time.Duration
	switch {
	case n.kind == kindScalar && n.tag == tagInt:
		ms, err := d.integer(n, key)
		if err != nil {
			return 0, err
		}
		if ms < 1 || ms > max.Milliseconds() {
			return 0, d.errf(n, key, "%d ms out of range 1..%d ms", ms, max.Milliseconds())
		}
		v = time.Duration(ms) * time.Millisecond
	case n.kind == kindScalar && n.tag == tagStr:
		var err error
		if v, err = time.ParseDuration(n.str); err != nil {
			return 0, d.errf(n, key, "want milliseconds or a duration such as 50ms or 2s, got %q", n.str)
		}
	default:
		return 0, d.errf(n, key, "want milliseconds or a duration such as 50ms or 2s, got %s", describe(n))
	}
	if v <= 0 || v > max {
		return 0, d.errf(n, key, "%v out of range: want more than 0 and at most %v", v, max)
	}
	return v, nil
}
