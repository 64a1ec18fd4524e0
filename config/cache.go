package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.yaml.in/yaml/v3"
)

// CacheSettings are the `cache:` section of the modern format: the optional
// shared Redis tier that lets several hivegate replicas share one cache. A
// config without the section (or with an empty redis_url) has the tier off,
// and then the other fields do not matter.
type CacheSettings struct {
	// RedisURL turns the shared tier on: redis://[user:password@]host:port/db,
	// rediss://… (TLS) or unix:///path. Empty: off.
	RedisURL string `yaml:"redis_url" as:"redis_url"`
	// RedisReplicaURLs are read replicas of RedisURL; when given, reads go
	// to them and writes to RedisURL.
	RedisReplicaURLs []string `yaml:"redis_replica_urls" as:"redis_url"`
	// RedisPrefix namespaces every key hivegate writes.
	RedisPrefix string `yaml:"redis_prefix" as:"redis_prefix"`
	// RedisTimeout bounds each Redis operation, so that a slow Redis slows
	// a request by at most this much (milliseconds, or a duration such as
	// 50ms).
	RedisTimeout time.Duration `yaml:"redis_timeout" as:"millis" range:"1ms..10s"`
	// RedisCompressMinBytes: values of at least this many bytes are stored
	// zstd-compressed.
	RedisCompressMinBytes int64 `yaml:"redis_compress_min_bytes" range:"1..1073741824"`
	// RedisBreakerFailures is how many consecutive failed Redis operations
	// make hivegate stop using Redis for RedisBreakerCooldown.
	RedisBreakerFailures int `yaml:"redis_breaker_failures" range:"1..10000"`
	// RedisBreakerCooldown is how long hivegate leaves Redis alone after
	// the breaker opened, before trying it again (milliseconds, or a
	// duration such as 5s).
	RedisBreakerCooldown time.Duration `yaml:"redis_breaker_cooldown" as:"millis" range:"1ms..1h"`
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

// validate checks the cache section of the modern format as a whole.
func (s *CacheSettings) validate(d *decoder, path string) error {
	n := d.at(path)
	s.Pos = d.pos(d.keyAt(path))
	if s.RedisURL == "" && len(s.RedisReplicaURLs) > 0 {
		return d.errf(d.at(path+".redis_replica_urls"), path+".redis_replica_urls", "read replicas need a primary: set cache.redis_url too")
	}
	var others []string // keys given besides redis_url
	for i := 0; n.Kind == yaml.MappingNode && i < len(n.Content); i += 2 {
		if key := n.Content[i].Value; key != "redis_url" {
			others = append(others, key)
		}
	}
	if s.RedisURL == "" && len(others) > 0 {
		d.cfg.Warnings = append(d.cfg.Warnings, fmt.Sprintf("%s: cache.%s has no effect without cache.redis_url: the shared Redis tier is off", s.Pos, strings.Join(others, ", cache.")))
	}
	return nil
}

// checkRedisURL checks a Redis URL the way the Redis client will read it.
// Messages never repeat the URL's password.
func checkRedisURL(u string) error {
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
	return fmt.Errorf("bad Redis URL: %s (want redis://[user:password@]host:port/db, rediss://… or unix:///path)", detail)
}
