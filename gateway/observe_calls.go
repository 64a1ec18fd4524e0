package gateway

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/metrics"
)

// callObserver records served calls: the requests metrics (route and
// outcome labels, never the client's method) and the request's callInfo.
type callObserver struct {
	metrics *metrics.Metrics
	// epoch is when the observer was made: a call's start is kept as the
	// monotonic time since then (clock), one clock read instead of
	// time.Now's two, which counts fifty times per batch.
	epoch time.Time
	// ops records calls for the operator page (admin_stats.go); nil
	// records nothing.
	ops *opsObserver
}

// clock is the monotonic time since the observer's epoch.
func (o *callObserver) clock() time.Duration { return time.Since(o.epoch) }

// Served records one dispatched call of a single request (JSON-RPC) or of a
// Connect RPC. method is the client's method, used in the access log only
// when the call has no key. It implements server.Observer.
func (o *callObserver) Served(ctx context.Context, frontend, method string, res dispatch.Result, d time.Duration) {
	outcome := metrics.Outcome(res.Err)
	o.metrics.ObserveCall(frontend, res.Route, outcome, d)
	o.ops.served(frontend, res, outcome, d)
	if info := callInfoFrom(ctx); info != nil {
		info.setCall(method, res, outcome)
	}
}

// UnknownKey counts a key of a node's answer that the typed message does
// not know. It implements server.DriftObserver.
func (o *callObserver) UnknownKey(method, _ string) {
	o.metrics.ObserveUnknownKey(method)
}

// Refused records a Connect call refused before dispatch (an invalid
// request message). It implements server.Observer.
func (o *callObserver) Refused(ctx context.Context, frontend string, kind jsonrpc.Kind, d time.Duration) {
	outcome := metrics.KindLabel(kind)
	o.metrics.ObserveCall(frontend, "", outcome, d)
	if info := callInfoFrom(ctx); info != nil {
		info.setOutcome(outcome)
	}
}

// observedCaller is the dispatcher as the JSON-RPC handler's Caller, with
// every call recorded. It implements jsonrpc.BatchCaller like the
// dispatcher, so that batches keep their fast path (cache hits answered in
// place) and their upstream batching.
type observedCaller struct {
	d   *dispatch.Dispatcher
	obs *callObserver
}

// CallJSONRPC serves the call of a single request.
func (c observedCaller) CallJSONRPC(ctx context.Context, method string, params json.RawMessage) jsonrpc.Answer {
	start := time.Now()
	res := c.d.Call(ctx, method, params)
	c.obs.Served(ctx, metrics.FrontendJSONRPC, method, res, time.Since(start))
	return res.Answer()
}

// CallJSONRPCBatch serves the elements of a batch (dispatch.ServeBatch).
// The elements are counted in the metrics one by one; the access log
// describes the batch as a whole.
func (c observedCaller) CallJSONRPCBatch(ctx context.Context, els []jsonrpc.Element, answers []jsonrpc.Answer) {
	start := c.obs.clock()
	c.d.ServeBatch(ctx, els, answers, func(res dispatch.Result) {
		outcome, d := metrics.Outcome(res.Err), c.obs.clock()-start
		c.obs.metrics.ObserveCall(metrics.FrontendJSONRPC, res.Route, outcome, d)
		c.obs.ops.served(metrics.FrontendJSONRPC, res, outcome, d)
	})
}

// Healthy reports whether any backend can be reached.
func (c observedCaller) Healthy() bool { return c.d.Healthy() }
