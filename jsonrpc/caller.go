package jsonrpc

import (
	"context"
	"encoding/json"
)

// What a front end asks of the layer below it and gets back: the
// dispatcher implements Caller and BatchCaller, and its answers are
// Answers. The HTTP front end (package jsonrpchttp) and the auth policy
// speak these types; none of them needs net/http.

// Answer is the outcome of one call, as the front end needs it.
type Answer struct {
	Result json.RawMessage
	Err    *Error
	Cache  string // hit, miss, bypass, coalesced
	Route  string // the urls config key that routed the call
	// Lease, when not nil, holds the buffer Result lives in: the handler
	// releases it once the answer is written and reads Result no more.
	Lease Releaser
	// Forms, when not nil, keeps forms derived from Result (its cache
	// entry): the gzip-encoded answers splice Result's compressed form
	// from there instead of compressing it again (compress.go).
	Forms Deriver
}

// Releaser gives back a buffer lent for the life of an Answer.
type Releaser interface {
	Release()
}

// Caller serves one call. The dispatcher implements it.
type Caller interface {
	CallJSONRPC(ctx context.Context, method string, params json.RawMessage) Answer
	Healthy() bool
}

// BatchCaller is implemented by a Caller that serves the calls of a batch
// together. The dispatcher does: it answers cache hits in place, without a
// goroutine each, and sends the calls that go upstream to one backend in
// one JSON-RPC batch.
type BatchCaller interface {
	// CallJSONRPCBatch serves the valid elements of a batch (Err nil) and
	// fills answers[i] for element i; it returns when every one is
	// answered. The elements' requests stay valid until then only.
	CallJSONRPCBatch(ctx context.Context, els []Element, answers []Answer)
}

// Response headers that tell a client what happened to a single request.
const (
	HeaderCache = "X-Hivegate-Cache"
	HeaderRoute = "X-Hivegate-Route"
)

// Deriver keeps forms derived from an answer's result: a cache entry does
// (cache.Entry.Derived and SetDerived).
type Deriver interface {
	Derived(k any) any
	SetDerived(k, v any, size int)
}
