package callpolicy

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
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
	// verify, when set, verifies the token on the first call that needs it
	// (a typed call: most need none); once runs it.
	verify func() (Token, error)
	once   sync.Once
}

// verified makes sure tok and err say what the header proved.
func (ra *requestAuth) verified() {
	if ra.verify != nil {
		ra.once.Do(func() { ra.tok, ra.err = ra.verify() })
	}
}

type requestAuthKey struct{}

// requiredScope is the scope the policy asks of a call ("" when none).
func (s *Service) requiredScope(c *router.Call) string {
	v, _, ok := s.policy.Lookup(c)
	if !ok || v == config.ScopeNone {
		return ""
	}
	return v
}

// Authorize is the token policy as the dispatcher's hook
// (dispatch.Hooks.Authorize): every call, of a JSON-RPC request (a batch's
// one by one) or of a typed one, is checked against the token PolicyHTTP
// or PolicyInterceptor found in the request. nil lets the call through.
func (s *Service) Authorize(ctx context.Context, c *router.Call) *jsonrpc.Error {
	ra, _ := ctx.Value(requestAuthKey{}).(*requestAuth)
	return s.authorizeCall(ra, c)
}

// authorizeCall checks a call against the policy; it returns the refusal
// (and records its challenge in ra).
func (s *Service) authorizeCall(ra *requestAuth, c *router.Call) *jsonrpc.Error {
	scope := s.requiredScope(c)
	if scope == "" {
		return nil
	}
	method := c.APIMethod()
	if ra != nil {
		ra.verified()
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

// PolicyInterceptor is PolicyHTTP for typed calls (Connect, gRPC,
// gRPC-Web): it gives the dispatcher's Authorize hook the request's token,
// verified on the first call that needs it, and turns a refusal into its
// Connect form: unauthenticated or permission_denied (the code the
// dispatcher's error already maps to) with the WWW-Authenticate challenge,
// or unavailable when the token store could not be asked. nil when there is
// no policy.
func (s *Service) PolicyInterceptor() connect.Interceptor {
	if s.policy == nil {
		return nil
	}
	return policyInterceptor{s}
}

// policyInterceptor is PolicyInterceptor's: unary calls and the streams
// whose handler makes a call of the client's own (StreamService's
// BroadcastTransaction), which the policy would not see otherwise.
type policyInterceptor struct{ s *Service }

func (p policyInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		ra := &requestAuth{}
		ra.verify = func() (Token, error) { return p.s.verify(ctx, bearer(&http.Request{Header: req.Header()})) }
		resp, err := next(context.WithValue(ctx, requestAuthKey{}, ra), req)
		if err = p.s.refusal(ra, err); err != nil {
			return nil, err
		}
		return resp, nil
	}
}

func (p policyInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (p policyInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		ra := &requestAuth{}
		ra.verify = func() (Token, error) {
			return p.s.verify(ctx, bearer(&http.Request{Header: conn.RequestHeader()}))
		}
		return p.s.refusal(ra, next(context.WithValue(ctx, requestAuthKey{}, ra), conn))
	}
}

// refusal gives a Connect error the policy caused its WWW-Authenticate
// challenge (or makes it unavailable when the token store could not be
// asked); any other err is returned as it is.
func (s *Service) refusal(ra *requestAuth, err error) error {
	var ce *connect.Error
	if err == nil || ra.challenge == "" || !errors.As(err, &ce) {
		return err
	}
	if errors.Is(ra.err, errStoreDown) {
		return connect.NewError(connect.CodeUnavailable, ra.err)
	}
	ce.Meta().Set("WWW-Authenticate", ra.challenge)
	return ce
}

// PolicyStream is PolicyHTTP for the JSON streams (SSE and WebSocket,
// GET requests): it gives the calls a stream client makes itself (a
// broadcast) the request's token, verified when first needed. Refusals
// are the stream's own messages, without a header.
func (s *Service) PolicyStream(next http.Handler) http.Handler {
	if s.policy == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ra := &requestAuth{}
		ctx := r.Context()
		ra.verify = func() (Token, error) { return s.verify(ctx, bearer(r)) }
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, requestAuthKey{}, ra)))
	})
}

// TokenApp returns the app (client id) the request's access token was
// issued to, when its Authorization header carries a valid one: the
// quotas count such a call against the app's auth.apps[].quota class
// (quota.AppResolver). The token is verified once per request: the one
// PolicyHTTP or PolicyInterceptor verifies for the policy is used when ctx
// carries it, and only a request the policy did not look at is verified
// here.
func (s *Service) TokenApp(ctx context.Context, h http.Header) (clientID string, ok bool) {
	var tok Token
	var err error
	if ra, _ := ctx.Value(requestAuthKey{}).(*requestAuth); ra != nil {
		ra.verified()
		tok, err = ra.tok, ra.err
	} else {
		raw := bearer(&http.Request{Header: h})
		if raw == "" {
			return "", false
		}
		tok, err = s.verify(ctx, raw)
	}
	if err != nil {
		return "", false
	}
	return tok.ClientID, true
}
