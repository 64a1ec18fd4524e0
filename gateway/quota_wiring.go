package gateway

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/quota"
)

// Quotas (issue 30 item 5, the `quotas:` section) are wired in here, and
// only here. The Limiter (counters, in memory or in the Redis tier) lives
// as long as the gateway; each generation builds a quota.Policy from its
// config. A request's place in it (quota.Request: its subject, worked out
// once) is put in its context by quotaHTTP (JSON-RPC) or quotaInterceptor
// (typed calls), and the dispatcher's Admit hook (quotaAdmit) charges its
// calls there, weighed by the method keys the front end's router calls
// hold: nothing is parsed twice. Nothing is wrapped when quotas are off.

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
// off. An app's token is looked at through the call policy, which
// verifies a request's token once for both.
func (g *Gateway) newQuotaPolicy(gen *generation) (*quota.Policy, error) {
	o := quota.PolicyOptions{Limiter: g.quota}
	if g.policy != nil {
		o.Apps = g.policy.TokenApp
	}
	return quota.NewPolicy(gen.cfg, o)
}

// quotaAdmit is the dispatcher's Admit hook of a generation with quotas
// (nil without): it charges a request's calls, all of a batch's in one
// round trip, to the subject of the quota.Request in ctx (none: a request
// that came in by no quota wrapper, which is not counted). A call over
// quota is answered -32017 with its wait (Result.RetryAfter: Retry-After);
// with an unknown API key every call is answered -32016.
func quotaAdmit(p *quota.Policy) func(context.Context, []dispatch.Call, []dispatch.Result) {
	if p == nil {
		return nil
	}
	return func(ctx context.Context, calls []dispatch.Call, results []dispatch.Result) {
		q := quota.RequestFrom(ctx)
		if q == nil {
			return
		}
		var oneW [1]int
		var oneT [1]time.Duration
		weights, waits := oneW[:], oneT[:]
		if len(calls) > 1 {
			weights, waits = make([]int, len(calls)), make([]time.Duration, len(calls))
		}
		for i := range calls {
			c := &calls[i].Call
			if calls[i].Invalid != nil {
				c = nil // the router could not parse it: the default weight
			}
			weights[i] = p.Weight(c)
		}
		if e := q.Admit(ctx, weights, waits); e != nil {
			for i := range calls {
				results[i].Err = e
			}
			return
		}
		if s, limited, _ := q.Subject(ctx); limited {
			if info := callInfoFrom(ctx); info != nil {
				info.setQuota(s.Kind, s.Name) // the access log names who it counted against
			}
		}
		for i, w := range waits {
			if w > 0 {
				results[i].Err, results[i].RetryAfter = q.Refusal(weights[i], w), w
			}
		}
	}
}

// quotaHTTP puts each JSON-RPC request's quota.Request in its context, for
// quotaAdmit. Its subject is worked out when the dispatcher first asks: a
// request with an unknown API key has each of its calls answered -32016
// there (HTTP 401 for a single call), so that the refusal is counted and
// logged, by its route and method, like any call's. It wraps inside the
// call policy's PolicyHTTP, whose verified token it reuses.
func quotaHTTP(p *quota.Policy, next http.Handler) http.Handler {
	if p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		q := p.Request(r.RemoteAddr, r.Header)
		next.ServeHTTP(w, r.WithContext(quota.WithRequest(r.Context(), q)))
	})
}

// quotaStreamHTTP puts a stream request's quota.Request in its context,
// for the calls its client makes over it (a WebSocket transaction
// subscription's broadcast); the stream's reads are the follower's and
// are not counted. nil p: next as it is.
func quotaStreamHTTP(p *quota.Policy, next http.Handler) http.Handler {
	if p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(quota.WithRequest(r.Context(), p.Request(r.RemoteAddr, r.Header))))
	})
}

// quotaInterceptor puts each typed call's quota.Request in its context,
// for quotaAdmit, which refuses a call over quota (resource_exhausted
// with Retry-After, from the dispatcher's answer) or with an unknown API
// key (unauthenticated). Its subject is worked out when the dispatcher
// first asks, so procedures that are not calls (health, reflection, the
// auth service) pass as they are. It comes after the call policy's
// interceptor, whose verified token it reuses. nil when quotas are off.
func quotaInterceptor(p *quota.Policy) connect.Interceptor {
	if p == nil {
		return nil
	}
	return quotaStreams{p}
}

// quotaStreams is quotaInterceptor's: unary calls and the streams whose
// handler makes a call of the client's own (StreamService's
// BroadcastTransaction), which the quotas would not count otherwise.
type quotaStreams struct{ p *quota.Policy }

func (q quotaStreams) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		return next(quota.WithRequest(ctx, q.p.Request(req.Peer().Addr, req.Header())), req)
	}
}

func (q quotaStreams) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (q quotaStreams) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		return next(quota.WithRequest(ctx, q.p.Request(conn.Peer().Addr, conn.RequestHeader())), conn)
	}
}

// closeQuota releases the counters' Redis connections.
func (g *Gateway) closeQuota() {
	if g.quota != nil {
		_ = g.quota.Close()
	}
}
