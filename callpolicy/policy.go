package callpolicy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
)

// The token policy (auth.require_token): a method key may ask for a valid
// token with a scope, for JSON-RPC and typed calls alike. Keys are
// resolved as ttls are. A call without a token, or with an invalid,
// expired or revoked one, is unauthorized (JSON-RPC -32016 with HTTP 401
// and WWW-Authenticate: Bearer; gRPC unauthenticated); a valid token
// without the scope is forbidden (-32020, HTTP 403; permission_denied).
// With no require_token entry nothing is checked and nothing is wrapped.

// Policy reports whether the service has a token policy.
func (s *Service) Policy() bool { return s.policy != nil }

// requestAuth is what a request's Authorization header proved, and the
// WWW-Authenticate challenge of a refusal.
type requestAuth struct {
	tok       Token
	err       error // nil: a valid token; errTokenMissing: none sent
	challenge string
}

type requestAuthKey struct{}

// requiredScope is the scope the policy asks of a call ("" when none).
func (s *Service) requiredScope(method string, params json.RawMessage) string {
	c, err := s.router().Parse(method, params)
	if err != nil {
		return "" // an invalid method gets the dispatcher's own error
	}
	v, _, ok := s.policy.Lookup(c)
	if !ok || v == config.ScopeNone {
		return ""
	}
	return v
}

// authorizeCall checks a call against the policy; it returns the refusal
// (and records its challenge in ra).
func (s *Service) authorizeCall(ra *requestAuth, method string, params json.RawMessage) *jsonrpc.Error {
	scope := s.requiredScope(method, params)
	if scope == "" {
		return nil
	}
	switch {
	case ra == nil || errors.Is(ra.err, errTokenMissing):
		if ra != nil {
			ra.challenge = `Bearer realm="hivegate", scope="` + scope + `"`
		}
		return jsonrpc.NewError(jsonrpc.KindUnauthorized, method+" needs a token with the "+scope+" scope (Authorization: Bearer <token>)", nil)
	case ra.err != nil:
		ra.challenge = `Bearer realm="hivegate", error="invalid_token", error_description="` + ra.err.Error() + `"`
		return jsonrpc.NewError(jsonrpc.KindUnauthorized, "invalid token: "+ra.err.Error(), nil)
	case !ra.tok.Has(scope):
		ra.challenge = `Bearer realm="hivegate", error="insufficient_scope", scope="` + scope + `"`
		return jsonrpc.NewError(jsonrpc.KindForbidden, method+" needs the "+scope+" scope", nil)
	}
	return nil
}

// PolicyHTTP wraps the JSON-RPC handler: it verifies the request's token
// once (when one is sent) for the calls of the request, and adds the
// WWW-Authenticate header to a 401 or 403 answer.
func (s *Service) PolicyHTTP(next http.Handler) http.Handler {
	if s.policy == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		ra := &requestAuth{}
		ra.tok, ra.err = s.verify(r.Context(), bearer(r))
		next.ServeHTTP(&challengeWriter{ResponseWriter: w, ra: ra}, r.WithContext(context.WithValue(r.Context(), requestAuthKey{}, ra)))
	})
}

// challengeWriter adds WWW-Authenticate to a refusal.
type challengeWriter struct {
	http.ResponseWriter
	ra *requestAuth
}

func (w *challengeWriter) WriteHeader(code int) {
	if (code == http.StatusUnauthorized || code == http.StatusForbidden) && w.ra.challenge != "" {
		w.Header().Set("WWW-Authenticate", w.ra.challenge)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *challengeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// PolicyCaller wraps the JSON-RPC handler's Caller: calls the policy
// covers are checked against the token PolicyHTTP verified. A batch's
// elements the policy lets through still go to the inner Caller as one
// batch (jsonrpc.BatchCaller), so they keep its upstream batching.
func (s *Service) PolicyCaller(inner jsonrpc.Caller) jsonrpc.Caller {
	if s.policy == nil {
		return inner
	}
	batcher, _ := inner.(jsonrpc.BatchCaller)
	return &policyCaller{s: s, inner: inner, batcher: batcher}
}

type policyCaller struct {
	s       *Service
	inner   jsonrpc.Caller
	batcher jsonrpc.BatchCaller
}

func (p *policyCaller) CallJSONRPC(ctx context.Context, method string, params json.RawMessage) jsonrpc.Answer {
	ra, _ := ctx.Value(requestAuthKey{}).(*requestAuth)
	if e := p.s.authorizeCall(ra, method, params); e != nil {
		return jsonrpc.Answer{Err: e, Cache: "bypass"}
	}
	return p.inner.CallJSONRPC(ctx, method, params)
}

func (p *policyCaller) Healthy() bool { return p.inner.Healthy() }

// CallJSONRPCBatch answers the elements the policy refuses and passes the
// others on together: to the inner BatchCaller, or one goroutine each when
// the inner Caller serves single calls only.
func (p *policyCaller) CallJSONRPCBatch(ctx context.Context, els []jsonrpc.Element, answers []jsonrpc.Answer) {
	ra, _ := ctx.Value(requestAuthKey{}).(*requestAuth)
	pass := els
	for i, el := range els {
		if el.Err != nil {
			continue
		}
		e := p.s.authorizeCall(ra, el.Req.Method, el.Req.Params)
		if e == nil {
			continue
		}
		if &pass[0] == &els[0] { // copy before marking: the handler keeps els
			pass = append([]jsonrpc.Element(nil), els...)
		}
		answers[i] = jsonrpc.Answer{Err: e, Cache: "bypass"}
		pass[i].Err = e // the inner Caller skips it
	}
	if p.batcher != nil {
		p.batcher.CallJSONRPCBatch(ctx, pass, answers)
		return
	}
	var wg sync.WaitGroup
	for i, el := range pass {
		if el.Err != nil {
			continue
		}
		wg.Go(func() { answers[i] = p.inner.CallJSONRPC(ctx, el.Req.Method, el.Req.Params) })
	}
	wg.Wait()
}

// Resolver names the JSON-RPC call a typed request is: the method and the
// params hivegate sends for it; ok is false for a procedure that is not a
// call (reflection, health).
type Resolver func(procedure string, msg any) (method string, params json.RawMessage, ok bool)

// PolicyInterceptor checks typed calls (Connect, gRPC, gRPC-Web) against
// the policy, with the same keys as JSON-RPC: resolve turns a request into
// its JSON-RPC method and params. nil when there is no policy.
func (s *Service) PolicyInterceptor(resolve Resolver) connect.Interceptor {
	if s.policy == nil {
		return nil
	}
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			method, params, ok := resolve(req.Spec().Procedure, req.Any())
			if !ok || s.requiredScope(method, params) == "" {
				return next(ctx, req)
			}
			ra := &requestAuth{}
			ra.tok, ra.err = s.verify(ctx, bearer(&http.Request{Header: req.Header()}))
			if errors.Is(ra.err, errStoreDown) {
				return nil, connect.NewError(connect.CodeUnavailable, ra.err)
			}
			if e := s.authorizeCall(ra, method, params); e != nil {
				code := connect.CodeUnauthenticated
				if e.Kind == jsonrpc.KindForbidden {
					code = connect.CodePermissionDenied
				}
				ce := connect.NewError(code, errors.New(e.Message))
				ce.Meta().Set("WWW-Authenticate", ra.challenge)
				return nil, ce
			}
			return next(ctx, req)
		}
	})
}
