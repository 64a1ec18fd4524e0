package backend

import (
	"context"
	"net/textproto"
)

// Observer is told about every call a Pool makes (Options.Observer), for
// metrics, access logs and tracing. It must be safe for concurrent use and
// quick: it runs on every call.
type Observer interface {
	// CallStarted is called when Call starts, with the backend's name and
	// the request. The call runs with the context it returns (which may
	// carry a span, or headers added with WithHeader), and done is called
	// once with what Call returns.
	CallStarted(ctx context.Context, backend string, req Request) (context.Context, func(Response, error))
}

// observedKey marks a context whose call the Observer has been told about.
type observedKey struct{}

// callObserved tells the Observer about a call and makes it. The call
// (Pool.call) makes no other observed call, so its context needs no
// observedKey mark: that would cost an allocation per call.
func (p *Pool) callObserved(ctx context.Context, o Observer, name string, req Request) (Response, error) {
	ctx, done := o.CallStarted(ctx, name, req)
	var resp Response
	var err error
	if be, ok := p.backends[name]; ok {
		resp, err = p.call(ctx, be, req, 0)
	} else {
		resp, err = unknownBackend(name)
	}
	done(resp, err)
	return resp, err
}

// headersKey is the context key of the headers added with WithHeader.
type headersKey struct{}

// WithHeader returns a context under which every request a Pool sends to a
// backend carries the header key: value, such as X-Request-Id or a trace's
// traceparent, besides the pool's own headers (which it cannot replace).
// Health probes carry none. A later value for the same key replaces an
// earlier one. A header that could change the request's framing or the
// connection (Content-Length, Connection, Host...) and one whose value holds
// a control character such as CR or LF are dropped, never sent.
func WithHeader(ctx context.Context, key, value string) context.Context {
	prev, _ := ctx.Value(headersKey{}).([]string)
	kv := make([]string, 0, len(prev)+2)
	kv = append(append(kv, prev...), textproto.CanonicalMIMEHeaderKey(key), value)
	return context.WithValue(ctx, headersKey{}, kv)
}
