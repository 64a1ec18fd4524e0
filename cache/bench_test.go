package cache_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
)

// benchKeys returns n keys shaped like the router's canonical keys.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(`appbase.condenser_api.get_block.params=[%d]`, 90_000_000+i)
	}
	return keys
}

// BenchmarkGetHit measures parallel cache hits over 16k keys, sharded by
// default and with a single shard (one lock) for comparison.
func BenchmarkGetHit(b *testing.B) {
	for _, shards := range []int{0, 1} {
		name := "shards=default"
		if shards > 0 {
			name = fmt.Sprintf("shards=%d", shards)
		}
		b.Run(name, func(b *testing.B) {
			var opts []cache.Option
			if shards > 0 {
				opts = append(opts, cache.WithShards(shards))
			}
			c := cache.New(256<<20, opts...)
			keys := benchKeys(1 << 14)
			val := bytes.Repeat([]byte("x"), 512)
			for i, k := range keys {
				ttl := cache.NoExpiry
				if i%2 == 0 {
					ttl = time.Hour // half the hits also check the clock
				}
				c.Set(k, val, ttl)
			}
			var seed atomic.Uint64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := seed.Add(7919)
				for pb.Next() {
					if _, ok := c.Get(keys[i&(1<<14-1)]); !ok {
						b.Fatal("miss")
					}
					i++
				}
			})
		})
	}
}

// BenchmarkSet measures inserts of 1 KiB values into a full cache, so every
// Set also evicts.
func BenchmarkSet(b *testing.B) {
	c := cache.New(8 << 20)
	keys := benchKeys(1 << 16)
	val := bytes.Repeat([]byte("x"), 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(val)))
	i := 0
	for b.Loop() {
		c.Set(keys[i&(1<<16-1)], val, cache.ReversibleTTLDuration)
		i++
	}
}

// BenchmarkMixed measures a parallel load of 90% Get and 10% Set over a
// key space larger than the cache, so both hits and misses occur.
func BenchmarkMixed(b *testing.B) {
	c := cache.New(16 << 20)
	keys := benchKeys(1 << 16)
	val := bytes.Repeat([]byte("x"), 512)
	for _, k := range keys[:1<<14] {
		c.Set(k, val, cache.NoExpiry)
	}
	var seed atomic.Uint64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := seed.Add(104729)
		for pb.Next() {
			k := keys[(i*2654435761)&(1<<16-1)]
			if i%10 == 0 {
				c.Set(k, val, cache.NoExpiry)
			} else {
				c.Get(k)
			}
			i++
		}
	})
	st := c.Stats()
	b.ReportMetric(float64(st.Hits)/float64(st.Hits+st.Misses), "hit-ratio")
}

// bigBlock returns a condenser_api.get_block result of about size bytes,
// block_id last, as hived emits it.
func bigBlock(n uint64, size int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"previous":"` + blockID(n-1) + `","timestamp":"2016-03-24T16:05:00","transactions":[`)
	tx := `{"ref_block_num":1,"ref_block_prefix":2,"operations":[["custom_json",{"id":"x","json":"{\"block_id\":\"00000000\",\"a\":[1,2,3],\"s\":\"q\\\"q\"}"}]],"signatures":["1f00"]}`
	for i := 0; sb.Len() < size; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(tx)
	}
	sb.WriteString(`],"block_id":"` + blockID(n) + `","signing_key":"STM1","transaction_ids":[]}`)
	return []byte(sb.String())
}

// BenchmarkReversibleTTL measures the policy check on a 1 MiB block.
func BenchmarkReversibleTTL(b *testing.B) {
	block := bigBlock(1000, 1<<20)
	if !json.Valid(block) {
		b.Fatal("benchmark block is not valid JSON")
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(block)))
	for b.Loop() {
		if _, store := cache.ReversibleTTL(1000, 2000, block); !store {
			b.Fatal("block not stored")
		}
	}
}

// BenchmarkBlockNum measures reading the block number from params.
func BenchmarkBlockNum(b *testing.B) {
	params := json.RawMessage(`{"block_num":90000000}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := cache.BlockNum("block_api.get_block", params); !ok {
			b.Fatal("no block number")
		}
	}
}
