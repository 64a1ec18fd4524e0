package backend

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// probeBody is the health probe's request. jsonrpc.get_methods is cheap on
// hived; any HTTP answer to it below 500 (even an error or a 404 from a
// server that does not know the method) proves the backend is reachable.
const probeBody = `{"jsonrpc":"2.0","id":0,"method":"jsonrpc.get_methods","params":{}}`

// headProbeBody is the probe of a node of a backend of several nodes: it
// proves the node reachable as probeBody does and, on a node that serves
// it (hived), tells its head block, from which laggards are found.
const headProbeBody = `{"jsonrpc":"2.0","id":0,"method":"database_api.get_dynamic_global_properties","params":{}}`

// health is one node's state: a count of consecutive failures and whether
// the node is reported down. A node with no outcome yet counts as up
// ("unknown = up"), so a fresh gateway reports OK until evidence says
// otherwise and never refuses to try a node it has not talked to.
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
	threshold int64
}

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
		logger.Warn("backend down", "backend", n.name, "node", n.index, "consecutive_failures", f, "err", cause)
	}
}

// Healthy reports whether the named backend is up: at least one of its
// nodes has had fewer than FailThreshold consecutive failures. Unknown
// names are not healthy.
func (p *Pool) Healthy(name string) bool {
	be, ok := p.backends[name]
	return ok && be.up()
}

// up reports whether any node of the backend is up.
func (be *backend) up() bool {
	for _, n := range be.nodes {
		if !n.health.down.Load() {
			return true
		}
	}
	return false
}

// AnyHealthy reports whether at least one backend is up.
func (p *Pool) AnyHealthy() bool {
	for _, be := range p.backends {
		if be.up() {
			return true
		}
	}
	return false
}

// Start runs the background prober when Options.HealthInterval is positive:
// every interval each node of a backend of one node is probed once; the
// nodes of a backend of several nodes are probed every NodeProbeInterval,
// with a call that also reads their head block. It returns at once; the
// probers stop when ctx ends. Call it at most once.
func (p *Pool) Start(ctx context.Context) {
	if p.opts.HealthInterval <= 0 {
		return
	}
	for _, be := range p.backends {
		every := p.opts.HealthInterval
		if len(be.nodes) > 1 {
			every = p.opts.NodeProbeInterval
		}
		for _, n := range be.nodes {
			go p.probeLoop(ctx, be, n, every)
		}
	}
}

// probeLoop probes n now and then every interval until ctx ends.
func (p *Pool) probeLoop(ctx context.Context, be *backend, n *node, every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		p.probe(ctx, be, n)
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

// probe sends one probe to n and records the outcome: a node of a backend
// of several nodes is asked for its head block (headProbeBody), any other
// for its methods (probeBody). A probe cut short because ctx ended records
// nothing.
func (p *Pool) probe(parent context.Context, be *backend, n *node) {
	ctx, cancel := context.WithTimeout(parent, probeTimeout)
	defer cancel()
	body := probeBody
	if len(be.nodes) > 1 {
		body = headProbeBody
	}
	if n.ws != nil {
		// Probes share the node's connections with calls, so they take an
		// id of their own.
		method := "jsonrpc.get_methods"
		if len(be.nodes) > 1 {
			method = "database_api.get_dynamic_global_properties"
		}
		id := p.newID()
		raw, f := n.ws.roundTrip(ctx, p, newBody(id, method, []byte("{}")), id)
		switch {
		case parent.Err() != nil:
		case f != nil:
			n.health.failure(p.logger, n, f.cause)
		default:
			n.health.success(p.logger, n)
			p.observeHead(be, n, headOf(raw))
		}
		return
	}
	ex := p.getExchange()
	defer p.putExchange(ex)
	resp, err := p.send(ctx, n.transport, n, ex, []byte(body))
	if err != nil {
		ex.finish(false)
		if parent.Err() != nil {
			return
		}
		n.health.failure(p.logger, n, describeTransport(n, err, "probe"))
		return
	}
	var raw []byte
	if resp.StatusCode < 300 && len(be.nodes) > 1 {
		raw = p.readProbe(resp)
	} else {
		p.drain(resp.Body)
	}
	_ = resp.Body.Close()
	ex.finish(false)
	if resp.StatusCode >= 500 {
		n.health.failure(p.logger, n, httpStatusCause(n, resp.StatusCode, "probe"))
		return
	}
	n.health.success(p.logger, n)
	p.observeHead(be, n, headOf(raw))
}

// maxProbeAnswer bounds the probe answer read for a head block: a
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

// headOf reads head_block_number from a get_dynamic_global_properties
// answer; 0 when raw is not one.
func headOf(raw []byte) uint64 {
	if len(raw) == 0 {
		return 0
	}
	var ans struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &ans) != nil || len(ans.Result) == 0 {
		return 0
	}
	props, ok := readProps(ans.Result)
	if !ok {
		return 0
	}
	return props.Head
}
