package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/hivegate/hivegate/jsonwire"
)

// Code is a JSON-RPC error code.
type Code int

// The JSON-RPC 2.0 codes the gateway itself answers with.
const (
	CodeParseError     Code = -32700
	CodeInvalidRequest Code = -32600
	CodeMethodNotFound Code = -32601
	CodeInvalidParams  Code = -32602
	CodeInternal       Code = -32603
)

// hivegate's own codes. They sit in -32010…-32020 so they never collide with
// hived's -32000 (server error), -32001 (no params), -32002 (params parse
// error) or -32003 (assert during call), which clients already interpret.
const (
	CodeUpstreamTimeout          Code = -32010
	CodeUpstreamUnavailable      Code = -32011
	CodeInvalidUpstreamResponse  Code = -32012
	CodeBatchTooLarge            Code = -32013
	CodeRequestTooLarge          Code = -32014
	CodeBlacklistedAccount       Code = -32015
	CodeUnauthorized             Code = -32016
	CodeRateLimited              Code = -32017
	CodeOverloaded               Code = -32018
	CodeUpstreamResponseTooLarge Code = -32019
	CodeForbidden                Code = -32020
)

// CodeAccountHistoryLimit is jussi's code for a get_account_history call
// over limits.account_history_limit (jussi's JussiAccountHistoryLimitsError),
// kept so that clients written against jussi see the same answer.
const CodeAccountHistoryLimit Code = 1701

// Kind names one row of the gateway's error table. It is the stable, machine
// readable name sent in an error's data.name.
type Kind string

// The gateway's error kinds, one per row of docs/api.md's error table.
const (
	KindParseError               Kind = "parse_error"
	KindInvalidRequest           Kind = "invalid_request"
	KindMethodNotFound           Kind = "method_not_found"
	KindInvalidParams            Kind = "invalid_params"
	KindInternal                 Kind = "internal_error"
	KindUpstreamTimeout          Kind = "upstream_timeout"
	KindUpstreamUnavailable      Kind = "upstream_unavailable"
	KindInvalidUpstreamResponse  Kind = "invalid_upstream_response"
	KindUpstreamResponseTooLarge Kind = "upstream_response_too_large"
	KindBatchTooLarge            Kind = "batch_too_large"
	KindRequestTooLarge          Kind = "request_too_large"
	KindBlacklistedAccount       Kind = "blacklisted_account"
	KindUnauthorized             Kind = "unauthorized"
	KindRateLimited              Kind = "rate_limited"
	KindOverloaded               Kind = "overloaded"
	KindAccountHistoryLimit      Kind = "account_history_limit"
	KindForbidden                Kind = "forbidden"
)

// The HTTP statuses of the error table. jsonrpc is the wire vocabulary and
// does not import net/http; the values are net/http's Status constants.
const (
	statusOK              = 200
	statusUnauthorized    = 401
	statusForbidden       = 403
	statusTooLarge        = 413
	statusTooManyRequests = 429
	statusInternal        = 500
	statusBadGateway      = 502
	statusUnavailable     = 503
	statusGatewayTimeout  = 504
)

// ErrorSpec is one row of the error table: the code, the message prefix and
// the HTTP status used when the error is the whole answer to an HTTP request.
type ErrorSpec struct {
	Kind    Kind
	Code    Code
	Name    string // message prefix, hived style: "Upstream timeout"
	Status  int    // HTTP status of a single (non-batch) response carrying it
	Meaning string // one line for docs/api.md's table
}

// Errors is the gateway's error table: every error a client can receive from
// hivegate itself (backend errors pass through unchanged and are not listed).
// docs/api.md's table is written from, and tested against, this list.
var Errors = []ErrorSpec{
	{KindParseError, CodeParseError, "Parse error", statusOK, "the body is not valid JSON"},
	{KindInvalidRequest, CodeInvalidRequest, "Invalid request", statusOK, "not a JSON-RPC 2.0 request: bad jsonrpc, method, params or id, an empty batch, or a method name hivegate cannot parse"},
	{KindMethodNotFound, CodeMethodNotFound, "Method not found", statusOK, "no backend is configured for the method's key"},
	{KindInvalidParams, CodeInvalidParams, "Invalid params", statusOK, "the gateway rejected the params before any upstream call"},
	{KindInternal, CodeInternal, "Internal error", statusInternal, "a bug in hivegate; the log has the detail"},
	{KindUpstreamTimeout, CodeUpstreamTimeout, "Upstream timeout", statusGatewayTimeout, "the backend did not answer within the route's timeout (after retries)"},
	{KindUpstreamUnavailable, CodeUpstreamUnavailable, "Upstream unavailable", statusBadGateway, "the backend could not be reached, refused, reset the connection or answered HTTP 5xx"},
	{KindInvalidUpstreamResponse, CodeInvalidUpstreamResponse, "Invalid upstream response", statusBadGateway, "the backend answered something that is not a JSON-RPC response to this request (not JSON, truncated, another id, neither result nor error)"},
	{KindUpstreamResponseTooLarge, CodeUpstreamResponseTooLarge, "Upstream response too large", statusBadGateway, "the backend's answer exceeded the configured response size cap"},
	{KindBatchTooLarge, CodeBatchTooLarge, "Batch too large", statusOK, "a batch has more elements than the configured maximum; nothing was forwarded"},
	{KindRequestTooLarge, CodeRequestTooLarge, "Request too large", statusTooLarge, "the request body or its JSON nesting exceeds the configured limit"},
	{KindBlacklistedAccount, CodeBlacklistedAccount, "Blacklisted account", statusOK, "a broadcast transaction involves an account in limits.blacklist_accounts; it was not forwarded"},
	{KindUnauthorized, CodeUnauthorized, "Unauthorized", statusUnauthorized, "the request lacks the credentials an admin endpoint requires, or the valid token auth.require_token asks for the method (then with WWW-Authenticate), or its API key is not in quotas.keys"},
	{KindForbidden, CodeForbidden, "Forbidden", statusForbidden, "the token's scope is not the one auth.require_token asks for the method"},
	{KindRateLimited, CodeRateLimited, "Rate limited", statusTooManyRequests, "the client went over a limit: its address over limits.rate_limit_per_second, or its address, API key or app over its quota (quotas); Retry-After says when to retry"},
	{KindOverloaded, CodeOverloaded, "Overloaded", statusUnavailable, "the gateway is at its concurrent request limit; retry later"},
	{KindAccountHistoryLimit, CodeAccountHistoryLimit, "Account History request exceeded limit", statusOK, "a get_account_history call asks for more entries than limits.account_history_limit (jussi's error); it was not forwarded"},
}

var specByKind = func() map[Kind]ErrorSpec {
	m := make(map[Kind]ErrorSpec, len(Errors))
	for _, s := range Errors {
		m[s.Kind] = s
	}
	return m
}()

// Error is a JSON-RPC error object. Gateway errors are built with NewError;
// backend errors are carried unchanged in Raw so that hived's data (code,
// name, message, stack) reaches the client byte for byte.
type Error struct {
	Code    Code
	Message string
	Data    json.RawMessage
	// Raw, when set, is the backend's error object exactly as received; it is
	// written instead of Code/Message/Data.
	Raw json.RawMessage
	// Kind is set on gateway errors and empty on backend errors.
	Kind Kind
	// cause is kept for logs only; it never reaches a client.
	cause error
}

// NewError returns the gateway error of the given kind. detail completes the
// message ("Upstream timeout: no answer within 5s") and must never contain an
// internal address; cause is logged but not sent.
func NewError(kind Kind, detail string, cause error) *Error {
	spec, ok := specByKind[kind]
	if !ok {
		spec = specByKind[KindInternal]
	}
	msg := spec.Name
	if detail != "" {
		msg += ": " + detail
	}
	data, _ := json.Marshal(struct {
		Name string `json:"name"`
	}{string(spec.Kind)})
	return &Error{Code: spec.Code, Message: msg, Data: data, Kind: spec.Kind, cause: cause}
}

// NewAccountHistoryLimitError is jussi's error 1701 for a
// get_account_history call asking for asked entries when the configured
// limit is max: jussi's message, with the configured limit (jussi always
// printed 100), and data naming both numbers.
func NewAccountHistoryLimitError(max, asked int64) *Error {
	e := NewError(KindAccountHistoryLimit, "", nil)
	e.Message = fmt.Sprintf("Account History request exceeded limit. The max limit is %d. Your limit is %d", max, asked)
	e.Data = fmt.Appendf(nil, `{"name":%q,"max_limit":%d,"requested_limit":%d}`, KindAccountHistoryLimit, max, asked)
	return e
}

// BackendError wraps a backend's JSON-RPC error object so that it passes
// through unchanged. code and message are read for logs and Connect mapping.
func BackendError(raw json.RawMessage) *Error {
	var head struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    json.RawMessage
	}
	_ = json.Unmarshal(raw, &head)
	return &Error{Code: Code(head.Code), Message: head.Message, Data: head.Data, Raw: raw}
}

// Error implements error with the client-visible message.
func (e *Error) Error() string {
	if e.cause != nil {
		return e.Message + " (" + e.cause.Error() + ")"
	}
	return e.Message
}

// Unwrap returns the internal cause, for logs and errors.Is.
func (e *Error) Unwrap() error { return e.cause }

// HTTPStatus is the status of an HTTP response whose whole answer is this
// error. Backend errors are answered with 200, as hived does.
func (e *Error) HTTPStatus() int {
	if e.Kind == "" {
		return statusOK
	}
	return specByKind[e.Kind].Status
}

// AppendJSON appends the error object's JSON to b.
func (e *Error) AppendJSON(b []byte) []byte {
	if e.Raw != nil {
		return append(b, e.Raw...)
	}
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, int64(e.Code), 10)
	b = append(b, `,"message":`...)
	b = jsonwire.AppendString(b, e.Message)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler.
func (e *Error) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// Errorf is NewError with a formatted detail.
func Errorf(kind Kind, format string, args ...any) *Error {
	return NewError(kind, fmt.Sprintf(format, args...), nil)
}
