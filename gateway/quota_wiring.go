package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/metrics"
	"github.com/hivegate/hivegate/quota"
)

// Quotas (issue 30 item 5, the `quotas:` section) are wired in here, and
// only here, for the lead to move onto dispatch's one door: the Limiter
// (counters, in memory or in the Redis tier) lives as long as the gateway;
// each generation builds a quota.Policy from its config and router, which
// the JSON-RPC handler asks through its Admit hook and the typed services
// through quotaInterceptor. Nothing is wrapped when quotas are off.

// newQuotaLimiter builds the gateway's quota counters and registers their
// metrics. The counters use the Redis tier when cache.redis_url is set.
func (g *Gateway) newQuotaLimiter(cfg *config.Config) error {
	l, err := quota.NewLimiter(quota.Options{
		Cache: cfg.Cache, Registerer: g.metrics.Registry(), Namespace: cfg.Ops.Namespace(), Logger: g.log,
	})
	if err != nil {
		return fmt.Errorf("quotas: %w", err)
	}
	g.quota = l
	return nil
}

// newQuotaPolicy builds a generation's quota policy; nil when quotas are
// off. The policy tells the request's callInfo who it counts against, for
// the access log.
func (g *Gateway) newQuotaPolicy(gen *generation) (*quota.Policy, error) {
	o := quota.PolicyOptions{Router: gen.router, Limiter: g.quota, Checked: quotaChecked}
	if g.auth != nil {
		o.Apps = g.auth.TokenApp
	}
	return quota.NewPolicy(gen.cfg, o)
}

// quotaChecked records in the request's callInfo who it counts against.
func quotaChecked(ctx context.Context, s quota.Subject) {
	if info := callInfoFrom(ctx); info != nil {
		info.setQuota(s.Kind, s.Name)
	}
}

// quotaAdmit is the JSON-RPC handler's Admit hook of a generation: the
// policy's AdmitJSONRPC, with every call it refuses counted in the
// requests metrics as the dispatcher counts the calls it serves (route,
// and outcome rate_limited, or unauthorized for an unknown API key): a
// refused call never reaches the dispatcher. nil when quotas are off.
func quotaAdmit(gen *generation, obs *callObserver) func(*http.Request, []jsonrpc.Element) (time.Duration, *jsonrpc.Error) {
	p := gen.quota
	if p == nil {
		return nil
	}
	return func(r *http.Request, els []jsonrpc.Element) (time.Duration, *jsonrpc.Error) {
		start := time.Now()
		var small [16]bool
		pending := small[:0] // the elements the policy checks: valid ones
		for _, el := range els {
			pending = append(pending, el.Err == nil)
		}
		retry, e := p.AdmitJSONRPC(r, els)
		d := time.Since(start)
		for i, el := range els {
			refused := e
			if refused == nil {
				refused = el.Err
			}
			if !pending[i] || refused == nil {
				continue
			}
			method, route := routeOf(gen, el.Req.Method, el.Req.Params)
			outcome := metrics.KindLabel(refused.Kind)
			obs.metrics.ObserveCall(metrics.FrontendJSONRPC, route, outcome, d)
			if info := callInfoFrom(r.Context()); info != nil {
				info.setRefused(method, route, outcome)
			}
		}
		return retry, e
	}
}

// routeOf is a call's method key without params and the urls key that
// routes it, for the metrics and the access log of a call refused before
// dispatch; empty when the method does not parse or has no route.
func routeOf(gen *generation, method string, params json.RawMessage) (key, route string) {
	c, err := gen.router.Parse(method, params)
	if err != nil {
		return "", ""
	}
	key, _, _ = strings.Cut(c.Key, ".params=")
	if rt, err := gen.router.Resolve(c); err == nil {
		route = rt.Matched.URL
	}
	return key, route
}

// quotaInterceptor checks typed calls against the policy, by the JSON-RPC
// method and params they become (resolve): a call over quota is refused
// with resource_exhausted and Retry-After, an unknown API key with
// unauthenticated; either is counted in the requests metrics (outcome
// rate_limited or unauthorized). Procedures that are not calls (health,
// reflection, the auth service) pass. nil when quotas are off.
func (g *Gateway) quotaInterceptor(gen *generation) connect.Interceptor {
	p := gen.quota
	if p == nil {
		return nil
	}
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			start := time.Now()
			method, params, ok := g.api.Resolve(req.Spec().Procedure, req.Any())
			if !ok {
				return next(ctx, req)
			}
			retry, e := p.AdmitCall(ctx, req.Peer().Addr, req.Header(), method, params)
			if e == nil {
				return next(ctx, req)
			}
			_, route := routeOf(gen, method, params)
			outcome, frontend := metrics.KindLabel(e.Kind), metrics.FrontendConnect
			if info := callInfoFrom(ctx); info != nil {
				frontend = info.frontend
				info.setRefused("", route, outcome)
			}
			g.metrics.ObserveCall(frontend, route, outcome, time.Since(start))
			code := connect.CodeResourceExhausted
			if e.Kind == jsonrpc.KindUnauthorized {
				code = connect.CodeUnauthenticated
			}
			ce := connect.NewError(code, errors.New(e.Message))
			if retry > 0 {
				ce.Meta().Set("Retry-After", quota.RetryAfter(retry))
			}
			return nil, ce
		}
	})
}

// closeQuota releases the counters' Redis connections.
func (g *Gateway) closeQuota() {
	if g.quota != nil {
		_ = g.quota.Close()
	}
}
