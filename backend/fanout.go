package backend

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hivegate/hivegate/jsonrpc"
)

// Fan-out (issue 31, broadcast and confirm): a signed transaction sent to
// one node is lost when that node takes it and drops it (a restart, a
// fork, a full mempool), and reaches the witnesses only as fast as that
// node relays it. CallAll sends it to every node of the broadcast backend
// at once instead. Each node gets it once, on one attempt that is never
// retried (a transaction must not reach a node twice), and the caller gets
// one answer: accepted when any node accepted it.

// CallAll sends req to every node of the named backend that is in service
// (not down, not judged out of service; when none is, every node, as Call
// would try them), concurrently, one attempt each: Retries is ignored and
// the request is sent once (Request.Once). Cordoned nodes get nothing;
// with every node cordoned CallAll fails at once, as Call does. It waits
// for every node's answer, within req.Timeout, and returns one:
//
//   - a node's answer without a JSON-RPC error (the transaction was
//     accepted), the first in config order, when any node accepted. A
//     node that says the transaction is a duplicate (it had it already,
//     from another node of the backend or a client) does not make it a
//     failure;
//   - otherwise, a node's JSON-RPC error (it looked at the transaction and
//     refused it), the first in config order that is not a duplicate
//     error, else the first;
//   - otherwise, when no node answered at all, one gateway error saying
//     so, of kind KindUpstreamTimeout when the deadline passed on some
//     node, else KindUpstreamUnavailable. Its message names the backend,
//     never a node's URL (the cause, for logs, has them).
//
// One node's acceptance is taken at its word: a node that says "accepted"
// and drops the transaction (or lies) makes the call succeed even when
// every other node refused it. What confirms a transaction is its
// inclusion in a block, which the transaction stream reports by asking
// transaction_status_api.find_transaction on each new block.
//
// Response.Attempts is the number of nodes the request was sent to, and
// Response.Node the node whose answer it is. The Observer, when set, is
// told about the fan-out as one call.
func (p *Pool) CallAll(ctx context.Context, name string, req Request) (Response, error) {
	if o := p.opts.Observer; o != nil && ctx.Value(observedKey{}) == nil {
		var done func(Response, error)
		ctx, done = o.CallStarted(ctx, name, req)
		resp, err := p.CallAll(context.WithValue(ctx, observedKey{}, true), name, req)
		done(resp, err)
		return resp, err
	}
	be, ok := p.backends[name]
	if !ok {
		return Response{Backend: name}, jsonrpc.NewError(jsonrpc.KindInternal, "no backend named "+strconv.Quote(name), nil)
	}
	start := time.Now()
	targets := be.fanoutNodes()
	if len(targets) == 0 {
		return Response{Backend: name}, cordonedError(be)
	}
	req.Retries, req.Once = 0, true
	type answer struct {
		resp Response
		err  error
	}
	answers := make([]answer, len(targets))
	var wg sync.WaitGroup
	for i, n := range targets {
		// A backend of this one node: call's pick cannot choose another,
		// and with no retry it makes one attempt.
		one := &backend{name: be.name, nodes: []*node{n}}
		wg.Go(func() {
			resp, err := p.call(ctx, one, req, 0)
			answers[i] = answer{resp, err}
		})
	}
	wg.Wait()
	pick := func(resp Response, err error) (Response, error) {
		resp.Attempts, resp.Elapsed, resp.Backend = len(targets), time.Since(start), name
		return resp, err
	}
	firstRefusal := -1
	for i, a := range answers {
		if a.err != nil {
			continue
		}
		if a.resp.Error == nil {
			return pick(a.resp, nil)
		}
		if firstRefusal < 0 || (isDuplicate(answers[firstRefusal].resp.Error) && !isDuplicate(a.resp.Error)) {
			firstRefusal = i
		}
	}
	if firstRefusal >= 0 {
		return pick(answers[firstRefusal].resp, nil)
	}
	if err := ctx.Err(); err != nil {
		return pick(answers[0].resp, answers[0].err)
	}
	kind := jsonrpc.KindUpstreamUnavailable
	causes := make([]error, 0, len(answers))
	for _, a := range answers {
		var je *jsonrpc.Error
		if errors.As(a.err, &je) && je.Kind == jsonrpc.KindUpstreamTimeout {
			kind = jsonrpc.KindUpstreamTimeout
		}
		causes = append(causes, a.err)
	}
	detail := "backend " + name + ": no node answered the broadcast"
	if len(targets) > 1 {
		detail = "backend " + name + ": none of its " + strconv.Itoa(len(targets)) + " nodes answered the broadcast"
	}
	return pick(answers[0].resp, jsonrpc.NewError(kind, detail, errors.Join(causes...)))
}

// fanoutNodes are the nodes CallAll sends to: the uncordoned nodes in
// service, else every uncordoned node.
func (be *backend) fanoutNodes() []*node {
	var in, all []*node
	for _, n := range be.nodes {
		if n.cordoned.Load() {
			continue
		}
		all = append(all, n)
		if n.inService() {
			in = append(in, n)
		}
	}
	if len(in) > 0 {
		return in
	}
	return all
}

// isDuplicate reports whether e is hived's refusal of a transaction it
// already has ("Duplicate transaction check failed"); a duplicate
// signature is another error.
func isDuplicate(e *jsonrpc.Error) bool {
	return e != nil && strings.Contains(strings.ToLower(e.Message), "duplicate transaction")
}
