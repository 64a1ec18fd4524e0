package backend

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// health is one node's state: a count of consecutive failures, whether
// the node is down, and whether a probe has found it up since it last went
// down (seen). A node is reported up only once a probe answered (unknown is
// not up), but calls are still made to a node with no verdict yet, so that
// a fresh gateway works before its first probe.
//
// A failure is a transport failure (refused, reset, dial timeout, EOF), an
// HTTP 5xx or a call timeout. Any other answer — a result, a JSON-RPC
// error, even an invalid body — shows the node is reachable and resets the
// count. A node that is down is skipped while another node of its backend
// is in service (nodes.go); a backend with no node in service still calls
// them, which is also how they come back up.
type health struct {
	fails     atomic.Int64
	down      atomic.Bool
	seen      atomic.Bool
	threshold int64
}

// probed records a probe that the node answered.
func (h *health) probed(logger *slog.Logger, n *node) {
	h.success(logger, n)
	h.seen.Store(true)
}

// up reports whether the node is reported up: a probe answered and it has
// not failed FailThreshold times in a row since.
func (h *health) up() bool { return h.seen.Load() && !h.down.Load() }

// success records a reachable node.
func (h *health) success(logger *slog.Logger, n *node) {
	if h.fails.Load() != 0 {
		h.fails.Store(0)
	}
	if h.down.Load() && h.down.CompareAndSwap(true, false) {
		logger.Info("backend up", "backend", n.name, "node", n.index)
	}
}

// failure records a failed attempt or probe; cause goes to the log only.
func (h *health) failure(logger *slog.Logger, n *node, cause error) {
	f := h.fails.Add(1)
	if f >= h.threshold && !h.down.Load() && h.down.CompareAndSwap(false, true) {
		h.seen.Store(false)
		logger.Warn("backend down", "backend", n.name, "node", n.index, "consecutive_failures", f, "err", cause)
	}
}

// Healthy reports whether the named backend can be called: at least one of
// its nodes is not cordoned and has had fewer than FailThreshold
// consecutive failures. A node no call or probe has reached yet counts, so
// that calls are made to it; a cordoned node never does, since no call is
// made to it (cordon.go), so a backend every node of which is cordoned is
// not healthy. What GET / reports is stricter (Serving, Nodes). Unknown
// names are not healthy.
func (p *Pool) Healthy(name string) bool {
	be, ok := p.backends[name]
	return ok && be.up()
}

// Serving reports whether the named backend has a node in service: up (a
// probe answered, fewer than FailThreshold failures in a row since) and
// judged fit by the prober (agree.go). Unknown names are not serving.
func (p *Pool) Serving(name string) bool {
	be, ok := p.backends[name]
	if !ok {
		return false
	}
	for _, n := range be.nodes {
		if n.reportedInService() {
			return true
		}
	}
	return false
}

// up reports whether any node of the backend can be called: neither down
// nor cordoned.
func (be *backend) up() bool {
	for _, n := range be.nodes {
		if !n.health.down.Load() && !n.cordoned.Load() {
			return true
		}
	}
	return false
}

// AllServing reports whether every backend has a node in service
// (Serving): the rule of GET / and of the gRPC health service.
func (p *Pool) AllServing() bool {
	for _, name := range p.names {
		if !p.Serving(name) {
			return false
		}
	}
	return len(p.names) > 0
}

// AnyHealthy reports whether at least one backend can be called (Healthy).
func (p *Pool) AnyHealthy() bool {
	for _, be := range p.backends {
		if be.up() {
			return true
		}
	}
	return false
}

// firstProbeWait bounds how long Start waits for the first probes, so
// that a gateway that starts serving reports what its nodes are instead of
// "not probed yet", without hanging on a node that does not answer.
const firstProbeWait = 2 * time.Second

// Start runs the background prober when Options.HealthInterval is positive:
// every node of every backend is probed (probe.go) every
// NodeProbeInterval, or every HealthInterval when that is shorter. It
// returns once every node had its first probe, or after firstProbeWait;
// the probers stop when ctx ends. Call it at most once.
func (p *Pool) Start(ctx context.Context) {
	if p.opts.HealthInterval <= 0 {
		return
	}
	every := min(p.opts.HealthInterval, p.opts.NodeProbeInterval)
	var first sync.WaitGroup
	for _, be := range p.backends {
		for _, n := range be.nodes {
			first.Add(1)
			go p.probeLoop(ctx, be, n, every, first.Done)
		}
	}
	done := make(chan struct{})
	go func() {
		first.Wait()
		close(done)
	}()
	t := time.NewTimer(firstProbeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// probeLoop probes n now and then every interval until ctx ends; probed
// is called after the first probe.
func (p *Pool) probeLoop(ctx context.Context, be *backend, n *node, every time.Duration, probed func()) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		p.probe(ctx, be, n)
		if probed != nil {
			probed()
			probed = nil
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// Probe probes every node once, concurrently, and returns when all probes
// are done. Start does the same periodically; Probe is for startup checks
// and tests.
func (p *Pool) Probe(ctx context.Context) {
	var wg sync.WaitGroup
	for _, be := range p.backends {
		for _, n := range be.nodes {
			wg.Go(func() { p.probe(ctx, be, n) })
		}
	}
	wg.Wait()
}

// probeBackend probes every node of the named backend once, concurrently.
func (p *Pool) probeBackend(ctx context.Context, name string) {
	be, ok := p.backends[name]
	if !ok {
		return
	}
	var wg sync.WaitGroup
	for _, n := range be.nodes {
		wg.Go(func() { p.probe(ctx, be, n) })
	}
	wg.Wait()
}

// probe probes n (probe.go), records the outcome and judges the backend's
// nodes again (agree.go). A probe cut short because ctx ended records
// nothing.
func (p *Pool) probe(parent context.Context, be *backend, n *node) {
	ctx, cancel := context.WithTimeout(parent, probeTimeout)
	defer cancel()
	be.trust.mu.Lock()
	had := n.judged.kind
	be.trust.mu.Unlock()
	out, err := p.detect(ctx, n, had)
	switch {
	case parent.Err() != nil:
		return
	case err != nil:
		n.health.failure(p.logger, n, err)
		p.record(be, n, nil, err)
	default:
		n.health.probed(p.logger, n)
		p.record(be, n, &out, nil)
	}
}

// maxProbeAnswer bounds the probe answer read: a
// get_dynamic_global_properties result is about 2 KB.
const maxProbeAnswer = 64 << 10

// readProbe reads a probe's answer (up to maxProbeAnswer bytes, decoded),
// nil when it cannot.
func (p *Pool) readProbe(resp *http.Response) []byte {
	body, gz, err := p.decodedBody(resp)
	if err != nil {
		return nil
	}
	defer p.putGzip(gz)
	buf := make([]byte, 0, 4<<10)
	raw, _, err := p.readBody(body, &buf, maxProbeAnswer)
	if err != nil {
		return nil
	}
	return raw
}
