package gateway

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/metrics"
)

// Upstream error kinds besides hivegate's own error kinds.
const (
	upstreamBackendError = metrics.OutcomeBackendError // the backend answered a JSON-RPC error
	upstreamCancelled    = "cancelled"                 // every client waiting on the call went away
)

// upstreamObserver is one generation's backend.Observer: it records every
// upstream call in the metrics, in the request's callInfo (for the access
// log) and, under a traced request, as a client span whose context goes
// upstream in traceparent. It counts the calls in flight on its pool, so a
// retired generation closes its connections only after they are done.
type upstreamObserver struct {
	metrics  *metrics.Metrics
	tracing  *tracing // nil when tracing is off
	ops      *operatorState
	inFlight atomic.Int64
}

func (g *Gateway) newUpstreamObserver() *upstreamObserver {
	return &upstreamObserver{metrics: g.metrics, tracing: g.tracing, ops: g.ops}
}

// CallStarted implements backend.Observer.
func (o *upstreamObserver) CallStarted(ctx context.Context, name string, req backend.Request) (context.Context, func(backend.Response, error)) {
	o.inFlight.Add(1)
	finish := o.metrics.UpstreamStarted(name)
	info := callInfoFrom(ctx)
	if info != nil && info.requestID != "" {
		ctx = backend.WithHeader(ctx, HeaderRequestID, info.requestID)
	}
	var end func(kind string, attempts int)
	if o.tracing != nil {
		ctx, end = o.tracing.startUpstream(ctx, name, req.Method)
	}
	return ctx, func(resp backend.Response, err error) {
		o.inFlight.Add(-1)
		kind := upstreamErrorKind(resp, err)
		finish.Done(resp.Elapsed, resp.Attempts, kind)
		if (kind == "" || kind == upstreamBackendError) && resp.Attempts == 1 && req.Method != "batch" && o.ops != nil {
			o.ops.observeLatency(name, resp.Node, resp.Elapsed) // the node's latency, for the operator page
		}
		if info != nil {
			info.addUpstream(name, resp.Elapsed)
		}
		if end != nil {
			end(kind, resp.Attempts)
		}
	}
}

// upstreamErrorKind is the error kind label of an upstream call: "" for
// success, backend_error for a JSON-RPC error answer, cancelled when the
// caller went away, else the gateway error's kind.
func upstreamErrorKind(resp backend.Response, err error) string {
	switch {
	case err == nil && resp.Error == nil:
		return ""
	case err == nil:
		return upstreamBackendError
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return upstreamCancelled
	}
	return gatewayErrorKind(err)
}

// gatewayErrorKind is the kind label of a gateway error (internal_error for
// anything else). It is apart from upstreamErrorKind so that the target of
// errors.As is allocated only for failed calls.
func gatewayErrorKind(err error) string {
	if je, ok := errors.AsType[*jsonrpc.Error](err); ok {
		return metrics.KindLabel(je.Kind)
	}
	return string(jsonrpc.KindInternal)
}
