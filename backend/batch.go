package backend

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/jsonwire"
)

// errBatchRefused is the cause logged when a backend's answer to a batch
// is not an answer to each of its calls.
var errBatchRefused = errors.New("backend: batch answer refused")

// CallBatch makes the calls reqs to the named backend in one JSON-RPC batch
// request ([{...},{...}], hived and hivemind accept it) and returns each
// call's answer and error by position, as Call would. Each call of the
// batch carries a random id of its own (ids.go); answers are matched to
// calls by id, in any order, and an answer is accepted only as an array
// holding exactly one valid response to each call (an unknown, repeated or
// missing id refuses the whole answer, and counts as a failure of the
// node).
//
// The batch is one exchange under the first call's Timeout: callers batch
// calls with the same route settings. It is one attempt of each of its
// calls. When it fails — a transport failure, HTTP 5xx, an answer that is
// not one to each call, one over the size cap — each call with a retry
// left is made on its own (Call) with the attempts it has left, and the
// others report the batch's failure: no call reaches the backend more than
// 1 + Retries times. A backend that refuses the batch as a whole without
// acting on it (HTTP 4xx other than 408 and 429, or a JSON-RPC error to the
// whole batch: a node that does not take batches) has its calls made one by
// one with all their attempts. A batch that ran out of time reports the
// timeout for each call.
//
// Calls that must not reach the backend twice (Once: broadcasts) are never
// put in a batch: CallBatch makes them on their own. One call is made with
// Call.
func (p *Pool) CallBatch(ctx context.Context, name string, reqs []Request) ([]Response, []error) {
	if len(reqs) >= 2 && !slices.ContainsFunc(reqs, func(r Request) bool { return r.Once }) {
		return p.callBatch(ctx, name, reqs) // the common case: all of reqs in one batch
	}
	resps := make([]Response, len(reqs))
	errs := make([]error, len(reqs))
	var batched, alone []int
	for i, r := range reqs {
		if r.Once {
			alone = append(alone, i)
		} else {
			batched = append(batched, i)
		}
	}
	if len(batched) < 2 {
		alone, batched = append(alone, batched...), nil
	}
	var wg sync.WaitGroup
	for _, i := range alone {
		wg.Go(func() { resps[i], errs[i] = p.Call(ctx, name, reqs[i]) })
	}
	if len(batched) > 0 {
		sub := make([]Request, len(batched))
		for j, i := range batched {
			sub[j] = reqs[i]
		}
		bresps, berrs := p.callBatch(ctx, name, sub)
		for j, i := range batched {
			resps[i], errs[i] = bresps[j], berrs[j]
		}
	}
	wg.Wait()
	return resps, errs
}

// callBatch is CallBatch for two or more calls that may all be batched.
func (p *Pool) callBatch(ctx context.Context, name string, reqs []Request) ([]Response, []error) {
	resps := make([]Response, len(reqs))
	errs := make([]error, len(reqs))
	be, ok := p.backends[name]
	if !ok {
		err := jsonrpc.NewError(jsonrpc.KindInternal, "no backend named "+strconv.Quote(name), nil)
		for i := range reqs {
			resps[i], errs[i] = Response{Backend: name}, err
		}
		return resps, errs
	}
	n, _ := be.pick(0)
	if n == nil {
		// Every node is cordoned (cordon.go).
		for i := range reqs {
			resps[i], errs[i] = Response{Backend: name}, cordonedError(be)
		}
		return resps, errs
	}
	if n.ws != nil {
		// WebSocket connections multiplex single calls by id; a batch
		// gains nothing there.
		var wg sync.WaitGroup
		for i := range reqs {
			wg.Go(func() { resps[i], errs[i] = p.Call(ctx, name, reqs[i]) })
		}
		wg.Wait()
		return resps, errs
	}
	start := time.Now()
	bctx := ctx
	var done func(Response, error)
	if o := p.opts.Observer; o != nil && ctx.Value(observedKey{}) == nil {
		bctx, done = o.CallStarted(ctx, name, Request{Method: "batch", Timeout: reqs[0].Timeout})
		bctx = context.WithValue(bctx, observedKey{}, true)
	}
	callCtx := bctx
	if t := reqs[0].Timeout; t > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(bctx, t)
		defer cancel()
	}
	ids := make([]uint64, len(reqs))
	size := 1 + len(reqs) // the brackets and commas
	for _, r := range reqs {
		size += len(r.Method) + len(r.Params) + bodyOverhead
	}
	body := make([]byte, 0, size) // one allocation: no doubling
	body = append(body, '[')
	for i, r := range reqs {
		ids[i] = p.newID()
		for slices.Contains(ids[:i], ids[i]) { // odds 2^-64, but ids must differ
			ids[i] = p.newID()
		}
		if i > 0 {
			body = append(body, ',')
		}
		body = appendBody(body, ids[i], r.Method, r.Params)
	}
	body = append(body, ']')

	envs := make([]envelope, len(reqs))
	n.inFlight.Add(1)
	maxAge, f := p.exchangeBatch(callCtx, n, body, ids, reqs, envs)
	n.inFlight.Add(-1)
	elapsed := time.Since(start)
	if done != nil {
		var derr error
		if f != nil {
			derr = f.toError(name, 1)
		}
		done(Response{Backend: name, Attempts: 1, Elapsed: elapsed}, derr)
	}
	switch {
	case f == nil:
		n.health.success(p.logger, n)
		for i := range reqs {
			resps[i] = Response{Backend: name, Attempts: 1, Elapsed: elapsed, Result: envs[i].result, Buffer: envs[i].buf, MaxAge: maxAge, Node: n.shown}
			if envs[i].errObj != nil {
				resps[i].Error = jsonrpc.BackendError(envs[i].errObj)
			}
		}
		return resps, errs
	case ctx.Err() != nil:
		err := abandoned(n, ctx.Err())
		for i := range reqs {
			resps[i], errs[i] = Response{Backend: name, Attempts: 1, Elapsed: elapsed, Node: n.shown}, err
		}
		return resps, errs
	case callCtx.Err() != nil:
		n.health.failure(p.logger, n, f.cause)
		err := timeoutError(n, reqs[0].Timeout, 1, f.cause)
		for i := range reqs {
			resps[i], errs[i] = Response{Backend: name, Attempts: 1, Elapsed: elapsed, Node: n.shown}, err
		}
		return resps, errs
	}
	if f.down {
		n.health.failure(p.logger, n, f.cause)
	}
	// A batch refused as such cost its calls nothing; any other failed
	// batch was one attempt of each.
	used := 1
	if f.refused {
		used = 0
	}
	p.logger.LogAttrs(ctx, slog.LevelDebug, "backend refused a batch; its calls go one by one",
		slog.String("backend", name), slog.Int("calls", len(reqs)), slog.Bool("refused_as_batch", f.refused), slog.Any("err", f.cause))
	var wg sync.WaitGroup
	for i, r := range reqs {
		if used > min(max(r.Retries, 0), MaxRetries) {
			resps[i] = Response{Backend: name, Attempts: used, Elapsed: elapsed, Node: n.shown}
			errs[i] = f.toError(name, used)
			continue
		}
		wg.Go(func() { resps[i], errs[i] = p.callAlone(ctx, be, r, used) })
	}
	wg.Wait()
	return resps, errs
}

// exchangeBatch sends a batch body, whose calls carry ids, once and checks
// the answer into envs. It returns the answer's Cache-Control lifetime
// (cacheMaxAge, for every call of the batch) and the failure that refuses
// the batch as a whole.
func (p *Pool) exchangeBatch(ctx context.Context, n *node, body []byte, ids []uint64, reqs []Request, envs []envelope) (time.Duration, *failure) {
	ex := p.getExchange()
	defer p.putExchange(ex)
	hresp, err := p.send(ctx, n.transport, n, ex, body) //nolint:bodyclose // readAnswer closes it
	if err != nil {
		f := p.sendFailure(ctx, n, ex, err)
		ex.finish(f.stale)
		return 0, f
	}
	f, reject := p.readAnswer(ctx, n, hresp, func(raw []byte, _ *Lease, _ bool) (bool, *failure) {
		return false, checkBatch(n, raw, ids, reqs, envs)
	})
	ex.finish(reject)
	return cacheMaxAge(hresp.Header), f
}

// checkBatch checks the answer to a batch whose calls carry ids: a JSON
// array of exactly one valid response to each call, in any order. Each
// call's member is copied out of raw into envs: with its ResultPrefix into
// a buffer of its own (the cache takes it over), the others together into
// one buffer.
//
// The answer is read once: each response is walked (and its syntax
// checked) by scanResponse as the array's element. A refusal is decided on
// the whole answer, though, as when it was checked first: a syntax error
// anywhere is reported as such rather than as a bad response before it.
func checkBatch(n *node, raw []byte, ids []uint64, reqs []Request, envs []envelope) *failure {
	i := jsonwire.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		if env, _, reason := parseResponse(raw); reason == "" && env.errObj != nil {
			f := invalidAnswer(n, "an error to the whole batch", raw)
			f.refused = true
			return f
		}
		return invalidAnswer(n, "no array to a batch", raw)
	}
	refuse := func(reason string) *failure {
		if jsonwire.Valid(raw, answerDepth) != nil {
			return invalidAnswer(n, "invalid JSON", raw)
		}
		return invalidAnswer(n, reason+" in a batch", raw)
	}
	var seenArr [64]bool // on the stack for the common batch
	var seen []bool
	if len(reqs) <= len(seenArr) {
		seen = seenArr[:len(reqs)]
	} else {
		seen = make([]bool, len(reqs))
	}
	got, shared := 0, 0
	it := jsonwire.Elements(raw, i, answerDepth)
	for it.Next() {
		at := it.Offset()
		if at >= len(raw) || raw[at] != '{' {
			v := it.Value()
			if v == nil {
				break // invalid: it.Err says why
			}
			_, _, reason := parseResponse(v)
			return refuse(reason)
		}
		env, id, end, reason, err := scanResponse(raw, at, it.Depth())
		if err != nil {
			return invalidAnswer(n, "invalid JSON", raw)
		}
		if reason != "" {
			return refuse(reason)
		}
		it.SetValueEnd(end)
		k, ok := batchIndex(id, ids)
		if !ok || seen[k] {
			return refuse(reasonWrongID)
		}
		seen[k] = true
		got++
		envs[k] = env // still in raw: copied below
		if env.result == nil || reqs[k].ResultPrefix == "" {
			shared += len(env.result) + len(env.errObj)
		}
	}
	if it.Err() != nil || jsonwire.SkipSpace(raw, it.End()) != len(raw) {
		return invalidAnswer(n, "invalid JSON", raw)
	}
	if got != len(reqs) {
		return &failure{
			kind:   jsonrpc.KindInvalidUpstreamResponse,
			detail: "answered " + strconv.Itoa(got) + " of " + strconv.Itoa(len(reqs)) + " calls of a batch",
			cause:  errBatchRefused,
			down:   true, // a call the node was sent and did not answer
		}
	}
	buf := make([]byte, 0, shared)
	for k, env := range envs {
		if env.result != nil && reqs[k].ResultPrefix != "" {
			envs[k] = withPrefix(env.result, reqs[k].ResultPrefix)
			continue
		}
		start := len(buf)
		if env.result != nil {
			buf = append(buf, env.result...)
			envs[k] = envelope{result: buf[start:len(buf):len(buf)]}
		} else {
			buf = append(buf, env.errObj...)
			envs[k] = envelope{errObj: buf[start:len(buf):len(buf)]}
		}
	}
	return nil
}

// callAlone makes one call of a failed batch on its own (Pool.call, after
// used attempts), told to the Observer as Call's are.
func (p *Pool) callAlone(ctx context.Context, be *backend, req Request, used int) (Response, error) {
	o := p.opts.Observer
	if o == nil || ctx.Value(observedKey{}) != nil {
		return p.call(ctx, be, req, used)
	}
	ctx, done := o.CallStarted(ctx, be.name, req)
	resp, err := p.call(context.WithValue(ctx, observedKey{}, true), be, req, used)
	done(resp, err)
	return resp, err
}

// batchIndex returns the position in a batch of the call whose id a
// response names (nil for a null id: no call).
func batchIndex(id []byte, ids []uint64) (int, bool) {
	if id == nil {
		return 0, false
	}
	v, ok := parseID(id)
	if !ok {
		return 0, false
	}
	k := slices.Index(ids, v)
	return k, k >= 0
}
