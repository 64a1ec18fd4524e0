package backend

// How a call picks its node. A backend's nodes are in service while they
// are up (fewer than Options.FailThreshold failed calls or probes in a row)
// and not lagging (their head block, as probes see it, at most
// Options.MaxLagBlocks behind the best head of the backend's nodes). Each
// attempt of a call goes to the node in service with the fewest calls in
// flight, the first in config order on a tie, so that an idle backend sends
// everything to its first node and a busy one spreads the load. A retry
// goes to a node the call has not tried yet when there is one in service:
// a transport failure on one node is retried on another (broadcasts are
// never retried). A backend none of whose nodes is in service still gets
// its calls, on the same rule over all its nodes: a node comes back into
// service by answering them or the prober (health.go).

// maxTracked is the number of nodes a call remembers having tried.
const maxTracked = 64

// tried is the set of nodes (by position) a call has tried.
type tried uint64

func (t tried) has(i int) bool { return i < maxTracked && t&(1<<i) != 0 }
func (t *tried) add(i int) {
	if i < maxTracked {
		*t |= 1 << i
	}
}

// inService reports whether the node takes calls while others can.
func (n *node) inService() bool { return !n.health.down.Load() && !n.lagging.Load() }

// pick returns the node for a call's next attempt and its position.
func (be *backend) pick(t tried) (*node, int) {
	if len(be.nodes) == 1 {
		return be.nodes[0], 0
	}
	for _, want := range [...]func(*node, int) bool{
		func(n *node, i int) bool { return n.inService() && !t.has(i) },
		func(n *node, _ int) bool { return n.inService() },
		func(_ *node, i int) bool { return !t.has(i) },
	} {
		if n, i := be.leastLoaded(want); n != nil {
			return n, i
		}
	}
	n, i := be.leastLoaded(func(*node, int) bool { return true })
	return n, i
}

// leastLoaded returns the node with the fewest calls in flight among those
// ok accepts, the first on a tie; nil when ok accepts none.
func (be *backend) leastLoaded(ok func(*node, int) bool) (*node, int) {
	var best *node
	at := -1
	var load int64
	for i, n := range be.nodes {
		if !ok(n, i) {
			continue
		}
		if l := n.inFlight.Load(); best == nil || l < load {
			best, at, load = n, i, l
		}
	}
	return best, at
}

// observeHead records a node's head block (from a probe) and takes the
// backend's nodes out of service, or back, by how far each is behind the
// best head among them. maxLag 0 turns the check off.
func (p *Pool) observeHead(be *backend, n *node, head uint64) {
	if head == 0 {
		return
	}
	n.head.Store(head)
	maxLag := uint64(p.opts.MaxLagBlocks)
	if maxLag == 0 || len(be.nodes) < 2 {
		return
	}
	var best uint64
	for _, o := range be.nodes {
		best = max(best, o.head.Load())
	}
	for _, o := range be.nodes {
		h := o.head.Load()
		lag := h != 0 && best-h > maxLag
		if o.lagging.Load() == lag || !o.lagging.CompareAndSwap(!lag, lag) {
			continue
		}
		if lag {
			p.logger.Warn("backend node lagging: out of service", "backend", be.name, "node", o.index, "head", h, "best_head", best, "max_lag_blocks", maxLag)
		} else {
			p.logger.Info("backend node caught up: in service", "backend", be.name, "node", o.index, "head", h, "best_head", best)
		}
	}
}

// NodeState is one node's state, for GET /, metrics and the admin
// endpoints.
type NodeState struct {
	// Backend is the configured backend name, Node the node's 1-based
	// position among its nodes.
	Backend string
	Node    int
	// URL is the node's base URL, its password masked. It is for
	// operators: never show it to clients.
	URL string
	// Up is false after FailThreshold failed calls or probes in a row.
	Up bool
	// Lagging is set while the node's head is more than MaxLagBlocks
	// behind the best head of its backend's nodes.
	Lagging bool
	// Head is the node's head block as its last probe saw it (0: unknown,
	// or a node that does not serve database_api.get_dynamic_global_properties).
	Head uint64
	// InFlight is the number of calls being made to the node.
	InFlight int64
}

// InService reports whether the node takes calls (up and not lagging).
func (s NodeState) InService() bool { return s.Up && !s.Lagging }

// Nodes returns the state of every node of every backend, by backend name
// then position.
func (p *Pool) Nodes() []NodeState {
	var out []NodeState
	for _, name := range p.names {
		for _, n := range p.backends[name].nodes {
			out = append(out, NodeState{
				Backend: name, Node: n.index, URL: shownURL(n.url),
				Up: !n.health.down.Load(), Lagging: n.lagging.Load(),
				Head: n.head.Load(), InFlight: n.inFlight.Load(),
			})
		}
	}
	return out
}

// NodeCount returns the number of nodes of the named backend (0 when it is
// not configured).
func (p *Pool) NodeCount(name string) int {
	if be, ok := p.backends[name]; ok {
		return len(be.nodes)
	}
	return 0
}
