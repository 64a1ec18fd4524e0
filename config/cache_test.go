package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

// cacheDefaults are the cache section's values when only redis_url is given.
var cacheDefaults = config.CacheSettings{
	RedisURL:              "redis://127.0.0.1:6379/0",
	RedisPrefix:           config.DefaultRedisPrefix,
	RedisTimeout:          config.DefaultRedisTimeout,
	RedisCompressMinBytes: config.DefaultRedisCompressMinBytes,
	RedisBreakerFailures:  config.DefaultRedisBreakerFailures,
	RedisBreakerCooldown:  config.DefaultRedisBreakerCooldown,
	Pos:                   config.Pos{File: "c.yaml", Line: 5},
}

// TestCacheSection checks that every key of the cache section sets its
// field (the dispatch package's TestSharedConfigKeys shows each changes
// what the replicas do).
func TestCacheSection(t *testing.T) {
	t.Parallel()
	with := func(f func(*config.CacheSettings)) config.CacheSettings {
		s := cacheDefaults
		f(&s)
		return s
	}
	cases := []struct {
		name, section string
		want          config.CacheSettings
	}{
		{"redis_url alone: the defaults", "  redis_url: redis://127.0.0.1:6379/0\n", cacheDefaults},
		{"replicas", "  redis_url: redis://127.0.0.1:6379/0\n  redis_replica_urls:\n    - redis://10.0.0.2:6379/0\n    - rediss://user:pw@10.0.0.3:6380/1\n",
			with(func(s *config.CacheSettings) {
				s.RedisReplicaURLs = []string{"redis://10.0.0.2:6379/0", "rediss://user:pw@10.0.0.3:6380/1"}
			})},
		{"prefix", "  redis_url: redis://127.0.0.1:6379/0\n  redis_prefix: 'eu:'\n",
			with(func(s *config.CacheSettings) { s.RedisPrefix = "eu:" })},
		{"timeout in milliseconds", "  redis_url: redis://127.0.0.1:6379/0\n  redis_timeout: 20\n",
			with(func(s *config.CacheSettings) { s.RedisTimeout = 20 * time.Millisecond })},
		{"timeout as a duration", "  redis_url: redis://127.0.0.1:6379/0\n  redis_timeout: 1.5s\n",
			with(func(s *config.CacheSettings) { s.RedisTimeout = 1500 * time.Millisecond })},
		{"compress min bytes", "  redis_url: redis://127.0.0.1:6379/0\n  redis_compress_min_bytes: 4096\n",
			with(func(s *config.CacheSettings) { s.RedisCompressMinBytes = 4096 })},
		{"breaker", "  redis_url: redis://127.0.0.1:6379/0\n  redis_breaker_failures: 2\n  redis_breaker_cooldown: 1m\n",
			with(func(s *config.CacheSettings) { s.RedisBreakerFailures = 2; s.RedisBreakerCooldown = time.Minute })},
		{"cooldown in milliseconds", "  redis_url: redis://127.0.0.1:6379/0\n  redis_breaker_cooldown: 250\n",
			with(func(s *config.CacheSettings) { s.RedisBreakerCooldown = 250 * time.Millisecond })},
		{"unix socket", "  redis_url: unix:///run/redis.sock\n",
			with(func(s *config.CacheSettings) { s.RedisURL = "unix:///run/redis.sock" })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Parse("c.yaml", []byte(minimal+"cache:\n"+tc.section))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Cache, tc.want) {
				t.Errorf("got  %+v\nwant %+v", cfg.Cache, tc.want)
			}
			if !cfg.Cache.Enabled() {
				t.Error("Enabled() = false with a redis_url")
			}
			if len(cfg.Warnings) != 0 {
				t.Errorf("warnings %q", cfg.Warnings)
			}
		})
	}
}

func TestCacheSectionOff(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		warnings   []string
	}{
		{"no section", minimal, nil},
		{"empty section", minimal + "cache:\n", nil},
		{"empty redis_url", minimal + "cache:\n  redis_url: ''\n", nil},
		{"settings without redis_url", minimal + "cache:\n  redis_prefix: x\n  redis_timeout: 10\n",
			[]string{"c.yaml:5: cache.redis_prefix, cache.redis_timeout has no effect without cache.redis_url: the shared Redis tier is off"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Parse("c.yaml", []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Cache.Enabled() {
				t.Error("Enabled() = true without a redis_url")
			}
			if !reflect.DeepEqual(cfg.Warnings, tc.warnings) {
				t.Errorf("warnings %q, want %q", cfg.Warnings, tc.warnings)
			}
		})
	}
}

// TestCacheSectionErrors checks that every bad cache key or value is an
// error naming the file, line and key.
func TestCacheSectionErrors(t *testing.T) {
	t.Parallel()
	const url = "  redis_url: redis://127.0.0.1:6379/0\n"
	cases := []struct {
		name, section string
		line          int
		key, msg      string
	}{
		{"unknown key", url + "  redis_host: h\n", 7, "cache.redis_host", "unknown key"},
		{"section not a mapping", "  - redis://h\n", 6, "cache", "want a mapping"},
		{"http URL", "  redis_url: http://127.0.0.1:6379\n", 6, "cache.redis_url", "bad Redis URL"},
		{"bad database", "  redis_url: redis://127.0.0.1:6379/abc\n", 6, "cache.redis_url", "bad Redis URL"},
		{"URL not a string", "  redis_url: 6379\n", 6, "cache.redis_url", "want a string"},
		{"bad replica", url + "  redis_replica_urls:\n    - redis://ok:1/0\n    - tcp://bad:1\n", 9, "cache.redis_replica_urls", "bad Redis URL"},
		{"replica not a list", url + "  redis_replica_urls: redis://h:1/0\n", 7, "cache.redis_replica_urls", "want a list"},
		{"replicas without primary", "  redis_replica_urls: [redis://h:1/0]\n", 6, "cache.redis_replica_urls", "need a primary"},
		{"empty prefix", url + "  redis_prefix: ''\n", 7, "cache.redis_prefix", "empty prefix"},
		{"zero timeout", url + "  redis_timeout: 0\n", 7, "cache.redis_timeout", "out of range"},
		{"negative duration", url + "  redis_timeout: -5ms\n", 7, "cache.redis_timeout", "out of range"},
		{"timeout too long", url + "  redis_timeout: 1m\n", 7, "cache.redis_timeout", "out of range"},
		{"timeout word", url + "  redis_timeout: fast\n", 7, "cache.redis_timeout", "want milliseconds or a duration"},
		{"timeout float", url + "  redis_timeout: 1.5\n", 7, "cache.redis_timeout", "want milliseconds or a duration"},
		{"compress zero", url + "  redis_compress_min_bytes: 0\n", 7, "cache.redis_compress_min_bytes", "out of range"},
		{"compress word", url + "  redis_compress_min_bytes: big\n", 7, "cache.redis_compress_min_bytes", "want an integer"},
		{"failures zero", url + "  redis_breaker_failures: 0\n", 7, "cache.redis_breaker_failures", "out of range"},
		{"cooldown too long", url + "  redis_breaker_cooldown: 2h\n", 7, "cache.redis_breaker_cooldown", "out of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Parse("c.yaml", []byte(minimal+"cache:\n"+tc.section))
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *config.Error", err)
			}
			if ce.Pos.File != "c.yaml" || ce.Pos.Line != tc.line || ce.Key != tc.key || !strings.Contains(ce.Error(), tc.msg) {
				t.Errorf("error %q (line %d, key %q), want line %d, key %q, containing %q", ce, ce.Pos.Line, ce.Key, tc.line, tc.key, tc.msg)
			}
		})
	}
}

// TestCacheSectionPasswordNotShown checks that an error about a Redis URL
// does not repeat its password.
func TestCacheSectionPasswordNotShown(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"redis://user:s3cret@h:6379/abc", "redis://user:s3cret@h:port/0", "redis://user:s3cret@h:6379/0?bogus=1"} {
		_, err := config.Parse("c.yaml", []byte(minimal+"cache:\n  redis_url: '"+u+"'\n"))
		if err == nil {
			t.Errorf("%s: accepted", u)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}
