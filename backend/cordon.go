package backend

import (
	"errors"
	"strconv"
	"strings"

	"github.com/hivegate/hivegate/jsonrpc"
)

// Cordoning is how an operator drains a node for maintenance: a cordoned
// node gets no new call (pick skips it, whatever its health), the calls it
// is making finish, and its backend keeps serving through its other nodes.
// Its probes go on, so that its state stays visible. A backend every node
// of which is cordoned calls none: its calls fail at once with
// upstream_unavailable (cordonedError) until a node is uncordoned.

// ErrUnknownNode is returned for a backend name or node position the pool
// does not have.
var ErrUnknownNode = errors.New("no such node")

// ErrLastNode is returned when cordoning a node would leave its backend no
// node to call: every other node is cordoned, down or judged out of
// service. Cordon with force to do it anyway.
var ErrLastNode = errors.New("the last node of its backend that takes calls")

// Cordon stops new calls to node (1-based) of the named backend; calls in
// flight finish. Unless force, it refuses with ErrLastNode when no other
// node of the backend would take calls (cordoned, down or judged out of
// service), and the node stays as it was. Cordoning a cordoned node
// changes nothing.
func (p *Pool) Cordon(name string, node int, force bool) error {
	be, n, err := p.lookupNode(name, node)
	if err != nil {
		return err
	}
	be.cordonMu.Lock()
	defer be.cordonMu.Unlock()
	if n.cordoned.Load() {
		return nil
	}
	if !force {
		var others []string
		for _, o := range be.nodes {
			if o == n {
				continue
			}
			if !o.cordoned.Load() && o.inService() {
				others = nil
				break
			}
			others = append(others, "node "+strconv.Itoa(o.index)+": "+o.notTakingCalls())
		}
		if len(others) > 0 || len(be.nodes) == 1 {
			why := "it is its only node"
			if len(others) > 0 {
				why = strings.Join(others, "; ")
			}
			return &nodeError{ErrLastNode, "backend " + name + " node " + strconv.Itoa(node) +
				" is the last node that takes calls (" + why + "): cordoning it leaves " + name + " with no node to call"}
		}
	}
	n.cordoned.Store(true)
	p.logger.Info("node cordoned", "backend", name, "node", node, "forced", force)
	return nil
}

// Uncordon puts a cordoned node (1-based) of the named backend back into
// the rotation. Uncordoning a node that is not cordoned changes nothing.
func (p *Pool) Uncordon(name string, node int) error {
	be, n, err := p.lookupNode(name, node)
	if err != nil {
		return err
	}
	be.cordonMu.Lock()
	defer be.cordonMu.Unlock()
	if n.cordoned.CompareAndSwap(true, false) {
		p.logger.Info("node uncordoned", "backend", name, "node", node)
	}
	return nil
}

// Cordoned reports whether node (1-based) of the named backend is
// cordoned; false for an unknown node.
func (p *Pool) Cordoned(name string, node int) bool {
	_, n, err := p.lookupNode(name, node)
	return err == nil && n.cordoned.Load()
}

// lookupNode returns the backend and node at a 1-based position.
func (p *Pool) lookupNode(name string, node int) (*backend, *node, error) {
	be, ok := p.backends[name]
	if !ok {
		return nil, nil, &nodeError{ErrUnknownNode, "no backend named " + strconv.Quote(name)}
	}
	if node < 1 || node > len(be.nodes) {
		return nil, nil, &nodeError{ErrUnknownNode, "backend " + name + " has no node " + strconv.Itoa(node) +
			" (it has " + strconv.Itoa(len(be.nodes)) + ")"}
	}
	return be, be.nodes[node-1], nil
}

// nodeError is a cordon error: its message, and the sentinel it matches
// with errors.Is.
type nodeError struct {
	is  error
	msg string
}

func (e *nodeError) Error() string        { return e.msg }
func (e *nodeError) Is(target error) bool { return target == e.is }

// notTakingCalls says why a node other than the one being cordoned takes
// no calls.
func (n *node) notTakingCalls() string {
	switch {
	case n.cordoned.Load():
		return "cordoned"
	case n.health.down.Load():
		return "down"
	}
	if v := n.judged.verdict.Load(); v != nil && v.reason != "" {
		return "out of service: " + v.reason
	}
	return "out of service"
}

// cordonedError is the error of a call to a backend every node of which
// is cordoned. It names the backend, never a node's URL.
func cordonedError(be *backend) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.KindUpstreamUnavailable, "backend "+be.name+" has every node cordoned by its operator", nil)
}
