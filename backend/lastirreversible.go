package backend

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultLIBInterval is the LIBTracker's default polling period: one Hive
// block every 3 seconds.
const DefaultLIBInterval = 3 * time.Second

// LIBTracker follows the chain's last irreversible block (LIB) and head
// block. The cache's irreversibility policy (EXPIRE_IF_REVERSIBLE) asks it
// whether a block is final. It learns from its own polling of
// database_api.get_dynamic_global_properties and from any such result that
// passes through the gateway (Observe). Values only move forward, so an
// answer from a lagging backend never makes a final block reversible again.
type LIBTracker struct {
	pool     *Pool
	backend  string
	interval time.Duration
	logger   *slog.Logger
	lib      atomic.Uint64
	head     atomic.Uint64
	failing  atomic.Bool
	mu       sync.Mutex
	hooks    []func(lib, head uint64)
}

// NewLIBTracker returns a tracker that polls the named backend of p every
// interval (DefaultLIBInterval when interval <= 0) once Run is called.
func NewLIBTracker(p *Pool, backend string, interval time.Duration, logger *slog.Logger) *LIBTracker {
	if interval <= 0 {
		interval = DefaultLIBInterval
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &LIBTracker{pool: p, backend: backend, interval: interval, logger: logger}
}

// LastIrreversible returns the highest last irreversible block number seen,
// 0 when none is known yet (then every block must be treated as reversible).
func (t *LIBTracker) LastIrreversible() uint64 { return t.lib.Load() }

// Head returns the highest head block number seen, 0 when unknown.
func (t *LIBTracker) Head() uint64 { return t.head.Load() }

// OnUpdate registers fn to be called, synchronously, each time the LIB or
// the head moves forward, with the new values. fn must be quick.
func (t *LIBTracker) OnUpdate(fn func(lib, head uint64)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hooks = append(t.hooks, fn)
}

// Observe reads last_irreversible_block_num and head_block_number from a
// get_dynamic_global_properties result (database_api and condenser_api
// answers have both as JSON numbers) and advances the tracker. Anything
// else is ignored: the members are read as json.Unmarshal into uint64
// fields would read them, and a result Unmarshal would refuse changes
// nothing. It runs on every such answer that passes through the gateway,
// so it scans the result once instead of decoding it (lastirreversible_scan.go).
func (t *LIBTracker) Observe(result json.RawMessage) {
	props, ok := readProps(result)
	if !ok {
		return
	}
	libMoved := atomicMax(&t.lib, props.LIB)
	headMoved := atomicMax(&t.head, props.Head)
	if libMoved || headMoved {
		t.notify()
	}
}

// Seed advances the last irreversible block to lib, as a
// get_dynamic_global_properties answer saying so would, and reports whether
// it moved. It is for a value learnt elsewhere, such as the LIB other
// hivegate replicas share through Redis, so that a tracker that has not
// polled yet need not treat every block as reversible. Like Observe it
// never moves the LIB back, and it calls the OnUpdate hooks when it moved.
func (t *LIBTracker) Seed(lib uint64) bool {
	if !atomicMax(&t.lib, lib) {
		return false
	}
	t.notify()
	return true
}

// notify calls the OnUpdate hooks with the current values.
func (t *LIBTracker) notify() {
	t.mu.Lock()
	hooks := t.hooks
	t.mu.Unlock()
	lib, head := t.lib.Load(), t.head.Load()
	for _, fn := range hooks {
		fn(lib, head)
	}
}

// atomicMax raises v to n if n is larger and reports whether it did.
func atomicMax(v *atomic.Uint64, n uint64) bool {
	for {
		old := v.Load()
		if n <= old {
			return false
		}
		if v.CompareAndSwap(old, n) {
			return true
		}
	}
}

// Run polls the backend now and then every interval until ctx ends. Poll
// failures are logged (once when they start, once when they stop) and
// leave the last known values in place.
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

// poll makes one get_dynamic_global_properties call.
func (t *LIBTracker) poll(ctx context.Context) {
	resp, err := t.pool.Call(ctx, t.backend, Request{
		Method:  "database_api.get_dynamic_global_properties",
		Params:  json.RawMessage(`{}`),
		Timeout: t.interval,
	})
	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		t.pollFailed(err)
	case resp.Error != nil:
		t.pollFailed(resp.Error)
	default:
		if t.failing.CompareAndSwap(true, false) {
			t.logger.Info("last irreversible block polling recovered", "backend", t.backend)
		}
		t.Observe(resp.Result)
	}
}

// pollFailed logs the first of a run of failed polls.
func (t *LIBTracker) pollFailed(err error) {
	if t.failing.CompareAndSwap(false, true) {
		t.logger.Warn("last irreversible block polling failed", "backend", t.backend, "err", err)
	}
}
