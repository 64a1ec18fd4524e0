package quota

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// AppResolver returns the registered app a request's access token
// (Authorization: Bearer) was issued to, when it carries a valid one; the
// call policy provides it (callpolicy.Service.TokenApp), with the token it
// verified for the request.
type AppResolver func(ctx context.Context, h http.Header) (clientID string, ok bool)

// PolicyOptions are what a Policy needs besides the config.
type PolicyOptions struct {
	// Limiter holds the counters (they outlive the Policy: a reload builds
	// a new Policy on the same Limiter).
	Limiter *Limiter
	// Apps resolves app tokens; nil: bearer tokens are not looked at.
	Apps AppResolver
}

// Policy is one config's quotas: who a request counts against, what its
// calls weigh, and the answer to a call over quota. Immutable and safe for
// concurrent use; a reload builds a new one.
type Policy struct {
	lim        *Limiter
	weights    *router.KeyMap[int]
	defWeight  int
	perAddress *config.QuotaClass // nil: addresses are not limited
	keys       map[[sha256.Size]byte]Subject
	apps       map[string]config.QuotaClass
	header     string
	ip         clientip.Resolver
	appOf      AppResolver
}

// NewPolicy builds the Policy of cfg, or returns nil when quotas are off
// (cfg.QuotasEnabled). A malformed quotas.weights key is a *config.Error
// naming file, line and key.
func NewPolicy(cfg *config.Config, o PolicyOptions) (*Policy, error) {
	if !cfg.QuotasEnabled() {
		return nil, nil
	}
	q := cfg.Quotas
	weights, err := router.NewKeyMap(q.Weights, "quotas.weights")
	if err != nil {
		return nil, err
	}
	p := &Policy{
		lim: o.Limiter, weights: weights, defWeight: q.DefaultWeight,
		keys: map[[sha256.Size]byte]Subject{}, apps: map[string]config.QuotaClass{},
		header: http.CanonicalHeaderKey(q.KeyHeader),
		ip:     clientip.New(clientip.Options{TrustedProxyHeader: cfg.Limits.TrustedProxyHeader, TrustedProxies: cfg.Limits.TrustedProxies}),
	}
	if c, ok := q.Class(q.PerAddress); ok {
		p.perAddress = &c
	}
	for _, k := range q.Keys {
		var sum [sha256.Size]byte
		if _, err := hex.Decode(sum[:], []byte(k.SHA256)); err != nil {
			return nil, &config.Error{Pos: k.Pos, Key: "quotas.keys." + k.Name + ".sha256", Err: err}
		}
		c, _ := q.Class(k.Class)
		p.keys[sum] = Subject{Kind: SubjectKey, Name: k.Name, id: "k:" + k.Name, Class: c}
	}
	if o.Apps != nil {
		for _, a := range cfg.Auth.Apps {
			if c, ok := q.Class(a.Quota); ok && a.Quota != "" {
				p.apps[a.ClientID] = c
			}
		}
		if len(p.apps) > 0 {
			p.appOf = o.Apps
		}
	}
	return p, nil
}

// KeyHeader is the header clients send their API key in.
func (p *Policy) KeyHeader() string { return p.header }

// SubjectOf names who a request counts against: its API key (KeyHeader),
// else the app of its access token when the app has a quota class, else
// its client address (clientip: the peer, or what a trusted proxy says).
// limited is false for a request no quota applies to: no key, and an
// address that is not limited (no quotas.per_address, or a trusted proxy's
// own address, which stands for many clients). An unknown key is an
// error: the request is refused (-32016, HTTP 401; Connect
// unauthenticated).
func (p *Policy) SubjectOf(ctx context.Context, remoteAddr string, h http.Header) (s Subject, limited bool, e *jsonrpc.Error) {
	if vals := h[p.header]; len(vals) > 0 {
		sum := sha256.Sum256([]byte(strings.TrimSpace(vals[0])))
		k, ok := p.keys[sum]
		if !ok {
			p.lim.m.unknownKeys.Inc()
			return Subject{}, false, jsonrpc.NewError(jsonrpc.KindUnauthorized, "unknown API key (header "+p.header+")", nil)
		}
		return k, true, nil
	}
	if p.appOf != nil && h.Get("Authorization") != "" {
		if id, ok := p.appOf(ctx, h); ok {
			if c, ok := p.apps[id]; ok {
				return Subject{Kind: SubjectApp, Name: id, id: "app:" + id, Class: c}, true, nil
			}
		}
	}
	if p.perAddress == nil {
		return Subject{}, false, nil
	}
	client := p.ip.Client(&http.Request{RemoteAddr: remoteAddr, Header: h})
	if p.ip.Trusted(client) {
		return Subject{}, false, nil
	}
	addr := clientip.Key(client)
	return Subject{Kind: SubjectAddress, id: "a:" + addr.String(), Class: *p.perAddress}, true, nil
}

// Weight is what a call weighs: the most specific quotas.weights entry
// matching its method key (the router's parse the front end made), else
// quotas.default_weight (also for c nil, a method the router could not
// parse: the dispatcher refuses it, but it was asked).
func (p *Policy) Weight(c *router.Call) int {
	if c == nil {
		return p.defWeight
	}
	if w, _, ok := p.weights.Lookup(c); ok {
		return w
	}
	return p.defWeight
}

// Request is one request's place in the quotas: who it counts against,
// named when first asked (Subject), once however many calls it makes.
// Safe for concurrent use.
type Request struct {
	p       *Policy
	remote  string
	header  http.Header
	once    sync.Once
	s       Subject
	limited bool
	err     *jsonrpc.Error
}

// Request returns the quota place of a request from remoteAddr with header
// h; nothing is looked at before Subject or Admit asks.
func (p *Policy) Request(remoteAddr string, h http.Header) *Request {
	return &Request{p: p, remote: remoteAddr, header: h}
}

// Subject is SubjectOf the request, worked out on the first call only
// (an app token is verified once; an unknown key counted once).
func (r *Request) Subject(ctx context.Context) (s Subject, limited bool, e *jsonrpc.Error) {
	r.once.Do(func() { r.s, r.limited, r.err = r.p.SubjectOf(ctx, r.remote, r.header) })
	return r.s, r.limited, r.err
}

// Admit charges the calls of the request, weighing weights[i] each, to its
// subject, in order, in one round trip: waits[i] is 0 for a call admitted,
// else how long until it would be (Refusal is its answer). e refuses every
// call (an unknown API key); a request no quota applies to is admitted
// whole. len(waits) must be at least len(weights).
func (r *Request) Admit(ctx context.Context, weights []int, waits []time.Duration) (e *jsonrpc.Error) {
	s, limited, e := r.Subject(ctx)
	if e != nil || !limited || len(weights) == 0 {
		clear(waits[:len(weights)])
		return e
	}
	r.p.lim.AdmitEach(ctx, s, weights, waits[:len(weights)])
	return nil
}

// Refusal is the answer to a call of the request weighing weight that is
// over quota for wait (Admit's waits[i]).
func (r *Request) Refusal(weight int, wait time.Duration) *jsonrpc.Error {
	return refusal(r.s, weight, wait)
}

type requestKey struct{}

// WithRequest returns ctx carrying r, for the dispatcher's Admit hook
// (RequestFrom).
func WithRequest(ctx context.Context, r *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestFrom returns the Request WithRequest put in ctx, or nil.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// refusal is the error of a call over quota. Its data says how long to
// wait, for batch elements, which have no header of their own.
func refusal(s Subject, weight int, wait time.Duration) *jsonrpc.Error {
	who := "your address"
	switch s.Kind {
	case SubjectKey:
		who = "API key " + s.Name
	case SubjectApp:
		who = "app " + s.Name
	}
	secs := jsonrpc.RetryAfter(wait)
	e := jsonrpc.NewError(jsonrpc.KindRateLimited, fmt.Sprintf("quota of %s exceeded (%d units per %s, class %s; this call weighs %d); retry in %s s",
		who, s.Class.Limit, s.Class.Period, s.Class.Name, weight, secs), nil)
	e.Data = fmt.Appendf(nil, `{"name":%q,"quota":%q,"retry_after":%s}`, jsonrpc.KindRateLimited, s.Class.Name, secs)
	return e
}
