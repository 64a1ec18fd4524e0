package backend

import (
	"strconv"
	"time"
)

// How a call picks its node. A backend's nodes take calls while they are
// not down (fewer than Options.FailThreshold failed calls or probes in a
// row) and the prober has not judged them out of service (agree.go: an
// implausible or disagreeing head, lagging, a stale head, a hivemind or
// HAfAH node behind the chain). A node the prober has not judged yet takes
// calls, so that a fresh gateway works at once. Each
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
func (n *node) inService() bool { return !n.health.down.Load() && !n.judgedOut() }

// judgedOut reports whether the prober took the node out of service.
func (n *node) judgedOut() bool {
	v := n.judged.verdict.Load()
	return v != nil && v.out
}

// reportedInService reports whether the node is in service as GET / says:
// up (a probe answered), not judged out of service and not cordoned.
func (n *node) reportedInService() bool {
	return n.health.up() && !n.judgedOut() && !n.cordoned.Load()
}

// pick returns the node for a call's next attempt and its position; a
// cordoned node never (cordon.go): nil and -1 when every node is.
func (be *backend) pick(t tried) (*node, int) {
	if len(be.nodes) == 1 {
		if be.nodes[0].cordoned.Load() {
			return nil, -1
		}
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

// leastLoaded returns the node with the fewest calls in flight among the
// uncordoned ones ok accepts, the first on a tie; nil when there is none.
func (be *backend) leastLoaded(ok func(*node, int) bool) (*node, int) {
	var best *node
	at := -1
	var load int64
	for i, n := range be.nodes {
		if n.cordoned.Load() || !ok(n, i) {
			continue
		}
		if l := n.inFlight.Load(); best == nil || l < load {
			best, at, load = n, i, l
		}
	}
	return best, at
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
	// Up is true once a probe answered, until FailThreshold failed calls
	// or probes in a row: a node no probe has reached is not up.
	Up bool
	// Serving is false while the prober judges the node unfit (Reason
	// says why); true for a node it has not judged yet.
	Serving bool
	// Lagging is set while the node's head is more than MaxLagBlocks
	// behind the head its backend's nodes agree on.
	Lagging bool
	// Kind is what the node serves, as its probes found out.
	Kind Kind
	// Head is the head block (hived) or last imported block (hivemind)
	// its last probe told, HeadTime that block's time (zero: unknown), LIB
	// its last irreversible block (hived).
	Head     uint64
	HeadTime time.Time
	LIB      uint64
	// Reason says why the node is not in service ("" when it is).
	Reason string
	// InFlight is the number of calls being made to the node.
	InFlight int64
	// Cordoned is set while an operator keeps new calls away from the
	// node (Pool.Cordon).
	Cordoned bool
}

// InService reports whether the node is in service: up, judged fit and
// not cordoned.
func (s NodeState) InService() bool { return s.Up && s.Serving && !s.Cordoned }

// Nodes returns the state of every node of every backend, by backend name
// then position.
func (p *Pool) Nodes() []NodeState {
	var out []NodeState
	for _, name := range p.names {
		for _, n := range p.backends[name].nodes {
			st := NodeState{
				Backend: name, Node: n.index, URL: shownURL(n.url),
				Up: n.health.up(), Serving: true, InFlight: n.inFlight.Load(), Cordoned: n.cordoned.Load(),
			}
			if v := n.judged.verdict.Load(); v != nil {
				st.Serving, st.Lagging, st.Kind, st.Reason = !v.out, v.lagging, v.kind, v.reason
				if v.hasView {
					st.Head, st.HeadTime, st.LIB = v.view.Head, v.view.Time, v.view.LIB
				}
			}
			switch {
			case n.health.down.Load():
				st.Reason = "down: " + strconv.FormatInt(n.health.fails.Load(), 10) + " failed calls or probes in a row"
			case !st.Up && st.Reason == "":
				st.Reason = "not probed yet"
			case st.InService():
				st.Reason = ""
			case st.Cordoned && st.Up && st.Serving:
				st.Reason = "cordoned"
			}
			out = append(out, st)
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
