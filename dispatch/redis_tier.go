package dispatch

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/cache"
)

// Option configures a Dispatcher built by New.
type Option func(*Dispatcher)

// WithSharedCache puts the dispatcher's in-process cache in front of a
// shared Redis tier (cache.Tiered): a call that misses the in-process cache
// is looked up in Redis (within its timeout) before it goes upstream, a
// Redis hit fills the in-process cache and is reported as CacheHit, and
// every answer stored in-process is also written to Redis in the background.
// A nil r leaves the dispatcher without a shared tier, so the result of
// cache.OpenShared can be passed whether or not the tier is configured.
func WithSharedCache(r *cache.Redis) Option {
	return func(d *Dispatcher) {
		if r != nil {
			d.tier = cache.NewTiered(d.cache, r)
		}
	}
}

// SharedCache returns the shared Redis tier, nil when there is none.
func (d *Dispatcher) SharedCache() *cache.Redis {
	if d.tier == nil {
		return nil
	}
	return d.tier.Shared()
}

// SharedLIBKey is the cache key under which the replicas share their last
// irreversible block through Redis (a name no call's key can have), and
// SharedLIBTTL how long one replica's value lives there: a value no
// replica refreshes (a replica gone, or one whose nodes no longer agree)
// is gone a minute later.
const (
	SharedLIBKey = "#shared-lib"
	SharedLIBTTL = time.Minute
)

// ShareLIB links a last-irreversible-block tracker to the LIB the replicas
// share through Redis: it offers the tracker the shared value (one read,
// bounded by the Redis timeout) and from then on publishes every change of
// the tracker's, with an expiry of SharedLIBTTL.
//
// The shared value is a hint, never trusted as such: the tracker uses it
// only while it is recent and not above the head its own nodes agree on
// (backend.LIBTracker.Seed), so a value written by a replica that was
// misled, or left behind by an old one, cannot make a block the replica's
// own nodes do not have final. The value each replica writes is what its
// nodes agree on now, lower or higher than before: the last writer wins.
//
// It returns the value it read (0 when none was shared, or Redis could not
// be read). Either argument may be nil, and then ShareLIB does nothing.
func ShareLIB(ctx context.Context, shared *cache.Redis, lib *backend.LIBTracker) (uint64, error) {
	if shared == nil || lib == nil {
		return 0, nil
	}
	var n uint64
	if raw, _, ok := shared.Get(ctx, SharedLIBKey); ok {
		v, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("the shared LIB under %q is not a block number: %.40q", SharedLIBKey, raw)
		}
		n = v
		lib.Seed(n)
	}
	lib.OnUpdate(func(l, _ uint64) {
		if l > 0 {
			shared.Set(SharedLIBKey, strconv.AppendUint(nil, l, 10), SharedLIBTTL)
		}
	})
	if l := lib.LastIrreversible(); l > 0 {
		shared.Set(SharedLIBKey, strconv.AppendUint(nil, l, 10), SharedLIBTTL)
	}
	return n, nil
}
