package gateway

import (
	"context"
	"time"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/metrics"
)

// callObserver records served calls, as the dispatcher's Observe hook:
// the requests metrics (route and outcome labels, never the client's
// method), the operator page's figures and recent errors, and the
// request's callInfo.
type callObserver struct {
	metrics *metrics.Metrics
	// ops records calls for the operator page (admin_stats.go); nil
	// records nothing.
	ops *opsObserver
}

// jsonrpc records a call of a JSON-RPC request. A batch's elements are
// counted in the metrics and the operator page one by one; the access log
// describes the batch as a whole (batchStarted), and a single request by
// its one call.
func (o *callObserver) jsonrpc(ctx context.Context, c *dispatch.Call, res *dispatch.Result, d time.Duration) {
	outcome := metrics.Outcome(res.Err)
	o.metrics.ObserveCall(metrics.FrontendJSONRPC, res.Route, outcome, d)
	o.ops.served(metrics.FrontendJSONRPC, res, outcome, d)
	if info := callInfoFrom(ctx); info != nil {
		info.setCall(c.UpstreamMethod, res, outcome)
	}
}

// connect records a typed or JsonRpcService call, under the front end the
// request came in by (connect, grpc or grpcweb).
func (o *callObserver) connect(ctx context.Context, c *dispatch.Call, res *dispatch.Result, d time.Duration) {
	outcome := metrics.Outcome(res.Err)
	frontend := metrics.FrontendConnect
	info := callInfoFrom(ctx)
	if info != nil {
		frontend = info.frontend
	}
	o.metrics.ObserveCall(frontend, res.Route, outcome, d)
	o.ops.served(frontend, res, outcome, d)
	if info != nil {
		info.setCall(c.UpstreamMethod, res, outcome)
	}
}

// UnknownKey counts a key of a node's answer that the typed message does
// not know. It implements server.DriftObserver.
func (o *callObserver) UnknownKey(method, _ string) {
	o.metrics.ObserveUnknownKey(method)
}

// hooks are the dispatcher hooks of a generation's JSON-RPC handler and
// typed services: its quotas (quota_wiring.go, when quotas are on), the
// token policy (when auth.require_token has entries) and the observer.
func (g *Gateway) hooks(gen *generation, o *callObserver) (jsonrpc, connect *dispatch.Hooks) {
	admit, authorize := quotaAdmit(gen.quota), g.authorize()
	return &dispatch.Hooks{Admit: admit, Authorize: authorize, Observe: o.jsonrpc},
		&dispatch.Hooks{Admit: admit, Authorize: authorize, Observe: o.connect}
}
