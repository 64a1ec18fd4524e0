package cache

import (
	"math"
	"os"
	"runtime/debug"
)

// memoryLimitBase is the part of SuggestedMemoryLimit that does not grow
// with the cache: the runtime, the handlers' pools, requests and answers
// in flight.
const memoryLimitBase = 48 << 20

// SuggestedMemoryLimit returns a soft memory limit for the Go runtime
// (runtime/debug.SetMemoryLimit, the GOMEMLIMIT variable) of a gateway
// whose in-process cache holds capacityBytes:
//
//	capacityBytes + capacityBytes/4 + 48 MiB
//
// The cache's budget counts what its entries cost the heap (EntryOverhead),
// so its live heap is about capacityBytes; 48 MiB covers the rest of the
// process, and the quarter of the capacity is the room the collector and
// the heap's fragmentation under eviction churn get. Without a limit the
// collector lets the heap grow to twice the live heap (GOGC=100) before it
// runs: a 256 MiB cache filled 1.5 times over left 555 MiB resident. With
// this limit (368 MiB for 256 MiB) the same fill left 364 MiB, within the
// 1.3 × capacity + 64 MiB that issue 8 asks for. The limit is soft: a
// process that needs more (many large answers at once) gets it, at the
// price of more frequent collections.
//
// It returns 0, meaning no limit, when capacityBytes <= 0 (no in-process
// cache: the collector's default suits the rest), and math.MaxInt64 (no
// limit either) when the sum would overflow.
func SuggestedMemoryLimit(capacityBytes int64) int64 {
	if capacityBytes <= 0 {
		return 0
	}
	if capacityBytes > (math.MaxInt64-memoryLimitBase)/5*4 {
		return math.MaxInt64
	}
	return capacityBytes + capacityBytes/4 + memoryLimitBase
}

// GCPercentUnderLimit is the garbage collector's percentage (GOGC) for a
// gateway that runs under SuggestedMemoryLimit. Under a soft limit the
// limit, not GOGC, bounds the heap; GOGC only decides how often the
// collector runs while the heap is well below the limit. With the default
// 100, a gateway whose cache holds little (a few MiB live) collects after
// every 4 MiB allocated: dozens of cycles a second under load, 7 % of the
// requests a proxied call could serve (issue 8's scenario 3a). At 400 such
// a gateway's heap grows to five times its live data before a cycle, and
// one whose cache is full is collected at the limit, as before.
const GCPercentUnderLimit = 400

// ApplyMemoryLimit is what a gateway does at start-up: it sets the Go
// runtime's soft memory limit to SuggestedMemoryLimit(capacityBytes)
// unless GOMEMLIMIT is set, and with it, unless GOGC is set, the
// collector's percentage to GCPercentUnderLimit. It returns the limit and
// the percentage it set (0 for what it did not set). Without the limit the
// collector's headroom lets RSS reach about twice the budget with a full
// cache; under it, the default percentage would collect a gateway with a
// small live heap far more often than its memory needs.
func ApplyMemoryLimit(capacityBytes int64) (limit int64, gcPercent int) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return 0, 0
	}
	limit = SuggestedMemoryLimit(capacityBytes)
	if limit <= 0 {
		return 0, 0
	}
	debug.SetMemoryLimit(limit)
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(GCPercentUnderLimit)
		gcPercent = GCPercentUnderLimit
	}
	return limit, gcPercent
}
