// Package callpolicy decides which JSON-RPC and typed calls a request may
// make: auth.require_token maps method keys (resolved as ttls are) to the
// scope a call needs, and the bearer token the OAuth service (package
// auth) issued must grant it. Its Authorize is the dispatcher's hook
// (dispatch.Hooks.Authorize), asked about each call the front end parsed;
// PolicyHTTP and PolicyInterceptor find the request's token for it. With
// no require_token entry it checks nothing and wraps nothing. It issues no token and signs nothing:
// tokens are package auth's, broadcasts package signer's.
package callpolicy

import (
	"context"
	"net/http"

	"github.com/hivegate/hivegate/auth"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// Token is what a verified token says (auth.Token).
type Token = auth.Token

// Reasons of a verifier the policy tells apart: no token sent, and a store
// that could not say whether the token was revoked.
var (
	errTokenMissing = auth.ErrTokenMissing
	errStoreDown    = auth.ErrStoreDown
)

// bearer is the token of a request (auth.Bearer).
func bearer(r *http.Request) string { return auth.Bearer(r) }

// Verifier checks a raw bearer token: auth.Service.Verify.
type Verifier func(ctx context.Context, raw string) (Token, error)

// Options configure a Service.
type Options struct {
	// RequireToken is auth.require_token: method keys and the scope each
	// needs ("none" exempts a key).
	RequireToken []config.Entry[string]
	// Verify checks a request's token.
	Verify Verifier
}

// Service is the call policy of one gateway.
type Service struct {
	policy *router.KeyMap[string] // nil: no token policy
	verify Verifier
}

// New builds the policy of o; with no RequireToken entry its wrappers
// return what they wrap. Errors name the key at fault.
func New(o Options) (*Service, error) {
	s := &Service{verify: o.Verify}
	if len(o.RequireToken) > 0 {
		var err error
		if s.policy, err = router.NewKeyMap(o.RequireToken, "auth.require_token"); err != nil {
			return nil, err
		}
	}
	return s, nil
}
