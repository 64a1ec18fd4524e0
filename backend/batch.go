package backend

import (
	"context"
	"errors"
	"log/slog"
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
// call's answer and error by position, as Call would. The ids of the batch
// are the pool's own; answers are matched to calls by id, in any order.
//
// The batch is one exchange under the first call's Timeout: callers batch
// calls with the same route settings. It is not retried as a whole. When
// the backend does not answer it with an array holding exactly one valid
// response to each call — an HTTP error, a transport failure, an answer over
// the size cap, anything else — every call is made on its own (Call, with
// its own retries), so a node that does not take batches costs one refused
// exchange, not a failed call. A batch that ran out of time is the
// exception: its calls report the timeout.
//
// Calls that must not reach the backend twice (Once: broadcasts) are never
// put in a batch: CallBatch makes them on their own. One call is made with
// Call.
func (p *Pool) CallBatch(ctx context.Context, name string, reqs []Request) ([]Response, []error) {
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
	first := p.nextID.Add(uint64(len(reqs))) - uint64(len(reqs)) + 1
	body := make([]byte, 0, 64*len(reqs))
	body = append(body, '[')
	for i, r := range reqs {
		if i > 0 {
			body = append(body, ',')
		}
		body = appendBody(body, first+uint64(i), r.Method, r.Params)
	}
	body = append(body, ']')

	envs := make([]envelope, len(reqs))
	n.inFlight.Add(1)
	sends, maxAge, f := p.exchangeBatch(callCtx, n, body, first, reqs, envs)
	n.inFlight.Add(-1)
	elapsed := time.Since(start)
	if done != nil {
		var derr error
		if f != nil {
			derr = f.toError(name, sends)
		}
		done(Response{Backend: name, Attempts: sends, Elapsed: elapsed}, derr)
	}
	switch {
	case f == nil:
		n.health.success(p.logger, n)
		for i := range reqs {
			resps[i] = Response{Backend: name, Attempts: sends, Elapsed: elapsed, Result: envs[i].result, Buffer: envs[i].buf, MaxAge: maxAge}
			if envs[i].errObj != nil {
				resps[i].Error = jsonrpc.BackendError(envs[i].errObj)
			}
		}
		return resps, errs
	case ctx.Err() != nil:
		err := abandoned(n, ctx.Err())
		for i := range reqs {
			resps[i], errs[i] = Response{Backend: name, Attempts: sends, Elapsed: elapsed}, err
		}
		return resps, errs
	case callCtx.Err() != nil:
		n.health.failure(p.logger, n, f.cause)
		err := timeoutError(n, reqs[0].Timeout, sends, f.cause)
		for i := range reqs {
			resps[i], errs[i] = Response{Backend: name, Attempts: sends, Elapsed: elapsed}, err
		}
		return resps, errs
	}
	if f.down {
		n.health.failure(p.logger, n, f.cause)
	}
	p.logger.LogAttrs(ctx, slog.LevelDebug, "backend refused a batch; its calls go one by one",
		slog.String("backend", name), slog.Int("calls", len(reqs)), slog.Any("err", f.cause))
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Go(func() {
			resps[i], errs[i] = p.Call(ctx, name, reqs[i])
			resps[i].Attempts += sends
		})
	}
	wg.Wait()
	return resps, errs
}

// exchangeBatch sends a batch body and checks the answer into envs. It
// returns how many times the body was sent, the answer's Cache-Control
// lifetime (cacheMaxAge, for every call of the batch) and the failure that
// refuses the batch as a whole.
func (p *Pool) exchangeBatch(ctx context.Context, n *node, body []byte, first uint64, reqs []Request, envs []envelope) (int, time.Duration, *failure) {
	ex := p.getExchange()
	defer p.putExchange(ex)
	t := n.transport
	for {
		var f *failure
		var maxAge time.Duration
		hresp, err := p.send(ctx, t, n, ex, body, false) //nolint:bodyclose // readAnswer closes it
		reused := ex.reused
		if err != nil {
			f = p.sendFailure(ctx, n, ex, err)
			ex.finish(f.stale)
		} else {
			var reject bool
			f, reject = p.readAnswer(ctx, n, hresp, func(raw []byte, _ *Lease, _ bool) (bool, *failure) {
				return false, checkBatch(n, raw, first, reqs, envs)
			})
			ex.finish(reject)
			maxAge = cacheMaxAge(hresp.Header)
		}
		if f != nil && f.stale && reused && t == n.transport && ctx.Err() == nil {
			t = n.fresh
			continue
		}
		return max(ex.sends, 1), maxAge, f
	}
}

// checkBatch checks the answer to a batch whose calls are numbered first,
// first+1, ...: a JSON array of exactly one valid response to each call, in
// any order. Each call's member is copied out of raw (with its
// ResultPrefix) into envs.
func checkBatch(n *node, raw []byte, first uint64, reqs []Request, envs []envelope) *failure {
	i := jsonwire.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		if env, _, reason := parseResponse(raw); reason == "" && env.errObj != nil {
			return invalidAnswer(n, "an error to the whole batch", raw)
		}
		return invalidAnswer(n, "no array to a batch", raw)
	}
	// The whole answer is checked first, so that a syntax error anywhere
	// is reported as such rather than as a bad response before it.
	if jsonwire.Valid(raw, answerDepth) != nil {
		return invalidAnswer(n, "invalid JSON", raw)
	}
	seen := make([]bool, len(reqs))
	got := 0
	it := jsonwire.Elements(raw, i, answerDepth)
	for it.Next() {
		env, id, reason := parseResponse(it.Value())
		if reason != "" {
			return invalidAnswer(n, reason+" in a batch", raw)
		}
		k, ok := batchIndex(id, first, len(reqs))
		if !ok || seen[k] {
			return invalidAnswer(n, reasonWrongID+" in a batch", raw)
		}
		seen[k] = true
		got++
		if env.result != nil && reqs[k].ResultPrefix != "" {
			envs[k] = withPrefix(env.result, reqs[k].ResultPrefix)
		} else {
			envs[k] = detach(env, len(raw), false)
		}
	}
	if got != len(reqs) {
		return &failure{
			kind:   jsonrpc.KindInvalidUpstreamResponse,
			detail: "answered " + strconv.Itoa(got) + " of " + strconv.Itoa(len(reqs)) + " calls of a batch",
			cause:  errBatchRefused,
		}
	}
	return nil
}

// batchIndex returns the position in a batch numbered from first of the
// call a response's id names.
func batchIndex(id []byte, first uint64, n int) (int, bool) {
	v, err := strconv.ParseUint(string(idText(id)), 10, 64)
	if err != nil || v < first || v-first >= uint64(n) {
		return 0, false
	}
	return int(v - first), true
}
