package cache

import (
	"runtime"
	"testing"
)

func TestShardCount(t *testing.T) {
	t.Parallel()
	def := ceilPow2(min(max(4*runtime.GOMAXPROCS(0), minDefaultShards), maxShards))
	testCases := []struct {
		name      string
		requested int
		capacity  int64
		want      int
	}{
		{"requested power of two", 8, 1 << 30, 8},
		{"requested rounded up", 5, 1 << 30, 8},
		{"requested one", 1, 1 << 30, 1},
		{"requested too many", 1 << 20, 1 << 30, maxShards},
		{"default for a large cache", 0, 1 << 40, def},
		{"default for a 4 MiB cache", 0, 4 << 20, 4},
		{"default for a 1 MiB cache", 0, 1 << 20, 1},
		{"default for an empty cache", 0, 0, 1},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := shardCount(tc.requested, tc.capacity); got != tc.want {
				t.Errorf("shardCount(%d, %d) = %d, want %d", tc.requested, tc.capacity, got, tc.want)
			}
		})
	}
	if def < minDefaultShards || def&(def-1) != 0 {
		t.Errorf("default shard count %d is not a power of two >= %d", def, minDefaultShards)
	}
}

func TestNewSplitsBudget(t *testing.T) {
	t.Parallel()
	c := New(64<<20, WithShards(16))
	if len(c.shards) != 16 {
		t.Fatalf("%d shards, want 16", len(c.shards))
	}
	for i := range c.shards {
		if c.shards[i].budget != 4<<20 {
			t.Errorf("shard %d budget %d, want %d", i, c.shards[i].budget, 4<<20)
		}
	}
}
