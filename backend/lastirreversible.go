package backend

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultLIBInterval is the LIBTracker's default polling period: one Hive
// block every 3 seconds.
const DefaultLIBInterval = 3 * time.Second

// sharedLIBMaxAge is how long a LIB learnt from elsewhere (Seed) counts.
const sharedLIBMaxAge = time.Minute

// LIBTracker follows the chain's last irreversible block (LIB) and head
// block, for the cache's irreversibility policy (EXPIRE_IF_REVERSIBLE). Both
// are what the hived nodes of its backend agree on (agree.go): the pool's
// prober, and the tracker's own polling, probe every node and recompute
// the agreement each time, so a LIB proven wrong comes down and one node
// cannot raise it. The LIB is never above the trusted head; 0 (every block
// reversible) until the nodes first agree.
type LIBTracker struct {
	pool     *Pool
	backend  string
	interval time.Duration
	logger   *slog.Logger
	failing  atomic.Bool
	// seed is a LIB learnt elsewhere (Seed), seedAt when, by the pool's
	// clock (unix nanoseconds).
	seed, seedAt atomic.Int64
	mu           sync.Mutex
	hooks        []func(lib, head uint64)
	notified     [2]uint64 // the values the hooks last saw, under mu
	warned       atomic.Bool
}

// NewLIBTracker returns a tracker of the named backend of p that polls
// every interval (DefaultLIBInterval when interval <= 0) once Run is
// called.
func NewLIBTracker(p *Pool, backend string, interval time.Duration, logger *slog.Logger) *LIBTracker {
	if interval <= 0 {
		interval = DefaultLIBInterval
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &LIBTracker{pool: p, backend: backend, interval: interval, logger: logger}
}

// agreement is the pool's agreement for the tracker's backend.
func (t *LIBTracker) agreement() (Agreement, bool) {
	if t.pool == nil {
		return Agreement{}, false
	}
	return t.pool.Agreement(t.backend)
}

// LastIrreversible returns the last irreversible block the backend's nodes
// agree on, 0 when they have not agreed yet (then every block must be
// treated as reversible). A LIB learnt elsewhere (Seed) raises it while it
// is recent and not above the trusted head.
func (t *LIBTracker) LastIrreversible() uint64 {
	a, ok := t.agreement()
	if !ok {
		return 0
	}
	lib := a.LIB
	if s := uint64(t.seed.Load()); s > lib && s <= a.Head && t.seedFresh() {
		lib = s
	}
	return min(lib, a.Head)
}

// seedFresh reports whether the seed was learnt less than sharedLIBMaxAge
// ago.
func (t *LIBTracker) seedFresh() bool {
	at := t.seedAt.Load()
	return at != 0 && t.now().Sub(time.Unix(0, at)) < sharedLIBMaxAge
}

// now is the pool's clock.
func (t *LIBTracker) now() time.Time {
	if t.pool == nil {
		return time.Now()
	}
	return t.pool.opts.Now()
}

// Head returns the head block the backend's nodes agree on, 0 when
// unknown.
func (t *LIBTracker) Head() uint64 {
	a, _ := t.agreement()
	return a.Head
}

// OnUpdate registers fn to be called, synchronously, each time the LIB or
// the head changes (as the tracker's polling sees it), with the new
// values. fn must be quick.
func (t *LIBTracker) OnUpdate(fn func(lib, head uint64)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hooks = append(t.hooks, fn)
}

// Observe is told about get_dynamic_global_properties results passing
// through the gateway. Such an answer is one node's claim, so it moves
// nothing: the LIB is what the nodes agree on. A claim of a LIB above the
// trusted head is logged, once.
func (t *LIBTracker) Observe(result json.RawMessage) {
	props, ok := readProps(result)
	if !ok {
		return
	}
	if a, ok := t.agreement(); ok && props.LIB > a.Head && t.warned.CompareAndSwap(false, true) {
		t.logger.Warn("a node answered a last irreversible block above the trusted head: ignored",
			"backend", t.backend, "lib", props.LIB, "trusted_head", a.Head)
	}
}

// Seed offers lib, a last irreversible block learnt elsewhere (the LIB
// other hivegate replicas share through Redis), and reports whether it
// raises the tracker's. It counts for sharedLIBMaxAge and only as far as
// the head the nodes agree on: a replica that has not seen its nodes agree
// yet treats every block as reversible whatever it is told.
func (t *LIBTracker) Seed(lib uint64) bool {
	if lib == 0 || lib > math.MaxInt64 {
		return false
	}
	before := t.LastIrreversible()
	t.seed.Store(int64(lib))
	t.seedAt.Store(t.now().UnixNano())
	after := t.LastIrreversible()
	if after != before {
		t.notify()
	}
	return after > before
}

// notify calls the OnUpdate hooks when the values changed since they were
// last called.
func (t *LIBTracker) notify() {
	lib, head := t.LastIrreversible(), t.Head()
	t.mu.Lock()
	if t.notified == [2]uint64{lib, head} {
		t.mu.Unlock()
		return
	}
	t.notified = [2]uint64{lib, head}
	hooks := t.hooks
	t.mu.Unlock()
	for _, fn := range hooks {
		fn(lib, head)
	}
}

// Run polls the backend now and then every interval until ctx ends. Poll
// failures are logged (once when they start, once when they stop) and
// leave the last agreement in place.
func (t *LIBTracker) Run(ctx context.Context) {
	ticker := time.NewTicker(t.interval)
	defer ticker.Stop()
	for {
		t.poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// Poll probes the backend's nodes once, unless the pool's prober did less
// than an interval ago, and calls the OnUpdate hooks when the agreement
// moved.
func (t *LIBTracker) Poll(ctx context.Context) { t.poll(ctx) }

// poll is Poll.
func (t *LIBTracker) poll(ctx context.Context) {
	if t.pool == nil {
		return
	}
	if a, ok := t.agreement(); !ok || t.now().Sub(a.At) >= t.interval {
		t.pool.probeBackend(ctx, t.backend)
	}
	if ctx.Err() != nil {
		return
	}
	a, ok := t.agreement()
	switch {
	case !ok || t.now().Sub(a.At) >= 2*t.interval+probeTimeout:
		t.pollFailed()
	default:
		if t.failing.CompareAndSwap(true, false) {
			t.logger.Info("the nodes agree on the last irreversible block again", "backend", t.backend)
		}
	}
	t.notify()
}

// pollFailed logs the first of a run of polls without a fresh agreement.
func (t *LIBTracker) pollFailed() {
	if t.failing.CompareAndSwap(false, true) {
		t.logger.Warn("the nodes do not agree on a last irreversible block: keeping the last agreement", "backend", t.backend)
	}
}
