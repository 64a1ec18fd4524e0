package cache

import (
	"math/bits"
	"runtime"
	"time"
)

// Shard-count defaults, kept in one place.
const (
	// minDefaultShards is the least number of shards New picks on its own.
	minDefaultShards = 16
	// maxShards bounds both the default and WithShards.
	maxShards = 1024
	// minShardBudget is the smallest per-shard budget New accepts when it
	// picks the shard count itself: a value larger than one shard's budget
	// cannot be stored, so small caches get fewer, larger shards.
	minShardBudget = 1 << 20
)

// Option configures a Cache built by New.
type Option func(*options)

// options holds the settings Options change.
type options struct {
	shards int
	now    func() time.Time
}

// WithShards sets the number of shards, rounded up to a power of two and
// limited to 1..1024. Each shard holds capacity/shards bytes, and a value
// larger than that is never stored. Without this option New uses the power
// of two at or above 4*GOMAXPROCS (at least 16), halved while a shard's
// share of the capacity would be under 1 MiB.
func WithShards(n int) Option {
	return func(o *options) { o.shards = n }
}

// WithClock replaces time.Now as the source of the current time, for tests
// that control expiry.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// shardCount returns the number of shards for a cache of capacity bytes.
func shardCount(requested int, capacity int64) int {
	if requested > 0 {
		return ceilPow2(min(requested, maxShards))
	}
	n := ceilPow2(min(max(4*runtime.GOMAXPROCS(0), minDefaultShards), maxShards))
	for n > 1 && capacity/int64(n) < minShardBudget {
		n /= 2
	}
	return n
}

// ceilPow2 returns the least power of two >= n, for n >= 1.
func ceilPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}
