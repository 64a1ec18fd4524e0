package server

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hivegate/hivegate/dispatch"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/server/transcode"
)

// callError turns a failed dispatch into a Connect error: the closest code
// (connectCode), the JSON-RPC error's message, the JSON-RPC error itself as
// a hivegate.v1.JsonRpcError detail, the x-hivegate-* headers and, for a
// call over its quota, Retry-After. When the client's own context ended,
// its cancellation or deadline wins.
func callError(ctx context.Context, res *dispatch.Result) *connect.Error {
	var ce *connect.Error
	switch err := ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		ce = connect.NewError(connect.CodeDeadlineExceeded, errors.New("the call's deadline passed before the answer"))
	case errors.Is(err, context.Canceled):
		ce = connect.NewError(connect.CodeCanceled, errors.New("the call was cancelled by its client"))
	default:
		ce = rpcErrorToConnect(res.Err)
	}
	setCallHeaders(ce.Meta(), res)
	if res.RetryAfter > 0 { // over its quota (dispatch.Hooks.Admit)
		ce.Meta().Set(jsonrpc.HeaderRetryAfter, jsonrpc.RetryAfter(res.RetryAfter))
	}
	return ce
}

// rpcErrorToConnect maps a JSON-RPC error (a backend's, passed through, or
// one of hivegate's own) to a Connect error carrying it as a JsonRpcError
// detail. Only the error's client-visible message is used, never its
// internal cause, so no backend address reaches the client.
func rpcErrorToConnect(e *jsonrpc.Error) *connect.Error {
	ce := connect.NewError(connectCode(e), errors.New(e.Message))
	addJSONRPCDetail(ce, e)
	return ce
}

// addJSONRPCDetail attaches e to ce as a hivegate.v1.JsonRpcError detail.
func addJSONRPCDetail(ce *connect.Error, e *jsonrpc.Error) {
	detail := &hivegatev1.JsonRpcError{Code: int32(e.Code), Message: e.Message}
	if len(e.Data) > 0 {
		v := &structpb.Value{}
		if _, err := transcode.Unmarshal(e.Data, v); err == nil {
			detail.Data = v
		}
	}
	if d, err := connect.NewErrorDetail(detail); err == nil {
		ce.AddDetail(d)
	}
}

// connectCode is the Connect code of a JSON-RPC error (docs/api.md's table
// lists it for every gateway error kind).
func connectCode(e *jsonrpc.Error) connect.Code {
	if e.Kind != "" {
		return kindCode(e.Kind)
	}
	return backendCode(e.Code)
}

// kindCode maps one of hivegate's own error kinds to a Connect code.
func kindCode(k jsonrpc.Kind) connect.Code {
	switch k {
	case jsonrpc.KindParseError, jsonrpc.KindInvalidRequest, jsonrpc.KindInvalidParams, jsonrpc.KindBatchTooLarge, jsonrpc.KindAccountHistoryLimit:
		return connect.CodeInvalidArgument
	case jsonrpc.KindMethodNotFound:
		return connect.CodeUnimplemented
	case jsonrpc.KindUpstreamTimeout:
		return connect.CodeDeadlineExceeded
	case jsonrpc.KindUpstreamUnavailable, jsonrpc.KindInvalidUpstreamResponse, jsonrpc.KindOverloaded:
		// Unreachable, refused, reset or HTTP 5xx; an answer that is not a
		// JSON-RPC response to the request (like HTTP 502); at the
		// concurrency limit: another attempt may succeed.
		return connect.CodeUnavailable
	case jsonrpc.KindUpstreamResponseTooLarge, jsonrpc.KindRequestTooLarge, jsonrpc.KindRateLimited:
		return connect.CodeResourceExhausted
	case jsonrpc.KindBlacklistedAccount, jsonrpc.KindForbidden:
		return connect.CodePermissionDenied
	case jsonrpc.KindUnauthorized:
		return connect.CodeUnauthenticated
	default: // KindInternal and kinds added later
		return connect.CodeInternal
	}
}

// backendCode maps the JSON-RPC code of a backend's error to a Connect code.
func backendCode(c jsonrpc.Code) connect.Code {
	switch c {
	case -32000, // hived server error: a param's parse error or bad cast
		-32001, // hived: no params
		-32002, // hived: params parse error
		-32003, // hived: an assertion failed during the call (limits, unknown accounts)
		jsonrpc.CodeInvalidParams:
		return connect.CodeInvalidArgument
	case jsonrpc.CodeMethodNotFound:
		return connect.CodeUnimplemented
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInternal:
		// The backend could not read what hivegate sent, or failed itself.
		return connect.CodeInternal
	default:
		return connect.CodeUnknown
	}
}
