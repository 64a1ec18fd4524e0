// Package cache is hivegate's in-process response cache and its
// EXPIRE_IF_REVERSIBLE policy.
//
// [Cache] is a byte-bounded, sharded LRU with per-entry expiry. It stores the
// raw JSON-RPC "result" bytes of an upstream answer under the canonical method
// key built by the router, so the JSON-RPC and Protobuf front ends share one
// entry per call. Each shard is a [simplelru.LRU] from
// github.com/hashicorp/golang-lru/v2 guarded by its own mutex; the shard is
// chosen by a seeded, non-allocating hash of the key, so concurrent hits on
// different keys rarely contend and a hit allocates nothing.
//
// Memory: the budget counts key, value and per-entry bookkeeping
// ([EntryOverhead]) as measured on the Go heap, and what the front ends
// keep with an entry, each charged through one door ([Entry.SetDerived],
// [Entry.GrowDerived]): a result's compressed form, a typed message decoded
// from it and that message's encodings. Two things come on top and
// are the operator's to size for: fragmentation after heavy churn of small
// entries (TestMemoryBounded sees a heap in use of about 1.6 times the
// budget with entries under 2 KiB, and about 1.05 times with larger ones)
// and the collector's headroom between cycles (GOGC). [SuggestedMemoryLimit]
// gives the soft memory limit that keeps a gateway's resident memory near
// its budget, for a gateway to set at start-up unless GOMEMLIMIT is set.
//
// [BlockNum] and [ReversibleTTL] implement EXPIRE_IF_REVERSIBLE: the block a
// request is about is read from its params, the answer is checked against that
// block (a block_id must start with the block number in hex), and the entry
// lives forever once the block is irreversible, 9 seconds before that, and is
// not stored at all when the block does not exist yet.
//
// [simplelru.LRU]: https://pkg.go.dev/github.com/hashicorp/golang-lru/v2/simplelru
package cache
