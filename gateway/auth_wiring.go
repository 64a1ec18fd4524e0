package gateway

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/auth"
	"github.com/hivegate/hivegate/callpolicy"
	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
	"github.com/hivegate/hivegate/server"
)

// The app authorization service (auth.enabled) is wired into the gateway
// here, and only here: the OAuth service (package auth, with its signer)
// and the call policy (package callpolicy) are built once with the
// gateway (codes, revocations and rate limits outlive config reloads), and
// each generation's handler tree mounts the service's endpoints, gives the
// dispatcher's hooks the call policy (Authorize), wraps the JSON-RPC
// handler with its token check, and hands the typed services the policy's
// interceptor and the hivegate.auth.v1 service. Everything is a no-op when
// auth is off.

// newAuth builds the auth service of cfg, or nil when auth is off, and
// the call policy (g.policy) that checks its tokens.
func (g *Gateway) newAuth(cfg *config.Config) (*auth.Service, error) {
	if !cfg.Auth.Enabled {
		return nil, nil
	}
	limits := cfg.Limits.WithDefaults()
	s, err := auth.New(auth.Options{
		Settings: cfg.Auth,
		Cache:    cfg.Cache,
		Chain:    func() auth.Caller { return g.Dispatcher() },
		ClientIP: clientip.Options{TrustedProxyHeader: limits.TrustedProxyHeader, TrustedProxies: limits.TrustedProxies},
		Logger:   g.log,
		// hivegate demo only: no config key sets it.
		DemoAuthority: g.opts.AuthDemoAuthority,
	})
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	policy, err := callpolicy.New(callpolicy.Options{
		RequireToken: cfg.Auth.RequireToken,
		Verify:       s.Verify,
	})
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("auth: %w", err)
	}
	g.policy = policy
	return s, nil
}

// authorize is the token policy as the dispatcher's Authorize hook, nil
// when there is none.
func (g *Gateway) authorize() func(context.Context, *router.Call) *jsonrpc.Error {
	if g.policy == nil || !g.policy.Policy() {
		return nil
	}
	return g.policy.Authorize
}

// authHandler wraps the JSON-RPC handler with the call policy's token
// check and WWW-Authenticate header.
func (g *Gateway) authHandler(h http.Handler) http.Handler {
	if g.policy == nil {
		return h
	}
	return g.policy.PolicyHTTP(h)
}

// mountAuth adds the service's HTTP endpoints to mux and returns what the
// typed services need: the call policy's interceptor and the hivegate.auth.v1
// service.
func (g *Gateway) mountAuth(mux *http.ServeMux) (interceptors []connect.Interceptor, services []server.Service) {
	if g.auth == nil {
		return nil, nil
	}
	g.auth.Mount(mux)
	if i := g.policy.PolicyInterceptor(); i != nil {
		interceptors = append(interceptors, i)
	}
	return interceptors, []server.Service{{Name: auth.ServiceName, Handler: g.auth.ConnectHandler}}
}

// closeAuth releases the service's store.
func (g *Gateway) closeAuth() {
	if g.auth != nil {
		_ = g.auth.Close()
	}
}

// Auth is the app authorization service, nil when auth is off.
func (g *Gateway) Auth() *auth.Service { return g.auth }

// reloadAuthApps applies a reloaded config's auth.apps at once: a removed
// app's access and refresh tokens are refused from the next request on.
// The rest of the auth section needs a restart (authRestartRequired).
func (g *Gateway) reloadAuthApps(next *config.Config) {
	if g.auth != nil && next.Auth.Enabled {
		g.auth.SetApps(next.Auth.Apps)
	}
}

// authRestartRequired reports an auth section that a reload cannot apply:
// the service's keys and store are built when hivegate starts; its apps
// follow reloads.
func authRestartRequired(running, next *config.Config) []string {
	if reflect.DeepEqual(stripPos(running.Auth), stripPos(next.Auth)) {
		return nil
	}
	return []string{"auth changed (other than auth.apps, which is applied): restart hivegate to apply it"}
}

// stripPos drops the positions of an auth section, which move with any
// edit of the file, and its apps, which a reload applies.
func stripPos(a config.AuthSettings) config.AuthSettings {
	a.Pos = config.Pos{}
	a.Apps = nil
	req := make([]config.Entry[string], len(a.RequireToken))
	for i, e := range a.RequireToken {
		e.Pos = config.Pos{}
		req[i] = e
	}
	a.RequireToken = req
	return a
}
