package cache_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/config"
)

// TestOpenShared: no redis_url, no tier; a bad URL is an error naming the
// config's file and line; the defaults of config and cache agree.
func TestOpenShared(t *testing.T) {
	t.Parallel()
	r, err := cache.OpenShared(config.CacheSettings{}, nil)
	if r != nil || err != nil {
		t.Errorf("OpenShared without a URL = %v, %v; want nil, nil", r, err)
	}
	_, err = cache.OpenShared(config.CacheSettings{RedisURL: "http://x", Pos: config.Pos{File: "c.yaml", Line: 3}}, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "c.yaml:3") {
		t.Errorf("OpenShared with an http URL: %v, want an error naming c.yaml:3", err)
	}
	pairs := []struct {
		name        string
		config, lib any
	}{
		{"prefix", config.DefaultRedisPrefix, cache.DefaultRedisPrefix},
		{"timeout", config.DefaultRedisTimeout, cache.DefaultRedisTimeout},
		{"compress min bytes", int(config.DefaultRedisCompressMinBytes), cache.DefaultRedisCompressMinBytes},
		{"breaker failures", config.DefaultRedisBreakerFailures, cache.DefaultRedisBreakerFailures},
		{"breaker cooldown", config.DefaultRedisBreakerCooldown, cache.DefaultRedisBreakerCooldown},
	}
	for _, p := range pairs {
		if fmt.Sprint(p.config) != fmt.Sprint(p.lib) {
			t.Errorf("default %s: config %v, cache %v", p.name, p.config, p.lib)
		}
	}
}
