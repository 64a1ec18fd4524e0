package backend

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// probeBody is the health probe's request. jsonrpc.get_methods is cheap on
// hived; any HTTP answer to it below 500 (even an error or a 404 from a
// server that does not know the method) proves the backend is reachable.
const probeBody = `{"jsonrpc":"2.0","id":0,"method":"jsonrpc.get_methods","params":{}}`

// health is one backend's state: a count of consecutive failures and
// whether the backend is reported down. A backend with no outcome yet counts
// as up ("unknown = up"), so a fresh gateway reports OK until evidence says
// otherwise and never refuses to try a backend it has not talked to.
//
// A failure is a transport failure (refused, reset, dial timeout, EOF), an
// HTTP 5xx or a call timeout. Any other HTTP answer — a result, a JSON-RPC
// error, even an invalid body — shows the backend is reachable and resets the
// count. Health is informational (GET / status, metrics): calls are still
// made to a backend that is down, which is also how it comes back up.
type health struct {
	fails     atomic.Int64
	down      atomic.Bool
	threshold int64
}

// success records a reachable backend.
func (h *health) success(logger *slog.Logger, name string) {
	if h.fails.Load() != 0 {
		h.fails.Store(0)
	}
	if h.down.Load() && h.down.CompareAndSwap(true, false) {
		logger.Info("backend up", "backend", name)
	}
}

// failure records a failed attempt or probe; cause goes to the log only.
func (h *health) failure(logger *slog.Logger, name string, cause error) {
	n := h.fails.Add(1)
	if n >= h.threshold && !h.down.Load() && h.down.CompareAndSwap(false, true) {
		logger.Warn("backend down", "backend", name, "consecutive_failures", n, "err", cause)
	}
}

// Healthy reports whether the named backend is up: fewer than FailThreshold
// consecutive failures. Unknown names are not healthy.
func (p *Pool) Healthy(name string) bool {
	be, ok := p.backends[name]
	return ok && !be.health.down.Load()
}

// AnyHealthy reports whether at least one backend is up.
func (p *Pool) AnyHealthy() bool {
	for _, be := range p.backends {
		if !be.health.down.Load() {
			return true
		}
	}
	return false
}

// Start runs the background prober when Options.HealthInterval is positive:
// every interval each backend is probed once. It returns at once; the
// probers stop when ctx ends. Call it at most once.
func (p *Pool) Start(ctx context.Context) {
	if p.opts.HealthInterval <= 0 {
		return
	}
	for _, be := range p.backends {
		go p.probeLoop(ctx, be)
	}
}

// probeLoop probes be now and then every HealthInterval until ctx ends.
func (p *Pool) probeLoop(ctx context.Context, be *backend) {
	ticker := time.NewTicker(p.opts.HealthInterval)
	defer ticker.Stop()
	for {
		p.probe(ctx, be)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// Probe probes every backend once, concurrently, and returns when all
// probes are done. Start does the same periodically; Probe is for startup
// checks and tests.
func (p *Pool) Probe(ctx context.Context) {
	var wg sync.WaitGroup
	for _, be := range p.backends {
		wg.Go(func() { p.probe(ctx, be) })
	}
	wg.Wait()
}

// probe sends one jsonrpc.get_methods request to be and records the outcome.
// A probe cut short because ctx ended records nothing.
func (p *Pool) probe(parent context.Context, be *backend) {
	ctx, cancel := context.WithTimeout(parent, probeTimeout)
	defer cancel()
	ex := p.getExchange()
	defer p.putExchange(ex)
	resp, err := p.send(ctx, be.transport, be, ex, []byte(probeBody), false)
	if err != nil {
		ex.finish(false)
		if parent.Err() != nil {
			return
		}
		be.health.failure(p.logger, be.name, describeTransport(be, err, "probe"))
		return
	}
	p.drain(resp.Body)
	_ = resp.Body.Close()
	ex.finish(false)
	if resp.StatusCode >= 500 {
		be.health.failure(p.logger, be.name, httpStatusCause(be, resp.StatusCode, "probe"))
		return
	}
	be.health.success(p.logger, be.name)
}
