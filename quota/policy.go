package quota

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// AppResolver returns the registered app a request's access token
// (Authorization: Bearer) was issued to, when it carries a valid one; the
// auth service provides it (auth.Service.TokenApp).
type AppResolver func(ctx context.Context, h http.Header) (clientID string, ok bool)

// PolicyOptions are what a Policy needs besides the config.
type PolicyOptions struct {
	// Router parses methods into method keys for the weights; it must be
	// built from the same config.
	Router *router.Router
	// Limiter holds the counters (they outlive the Policy: a reload builds
	// a new Policy on the same Limiter).
	Limiter *Limiter
	// Apps resolves app tokens; nil: bearer tokens are not looked at.
	Apps AppResolver
	// Checked, when set, is told who each request checked against a quota
	// counts against (AdmitJSONRPC, AdmitCall), with the request's
	// context, before its calls are counted: the access log names the
	// subject (its kind and Name, never a key or an address).
	Checked func(ctx context.Context, s Subject)
}

// Policy is one config's quotas: who a request counts against, what its
// calls weigh, and the answer to a call over quota. Immutable and safe for
// concurrent use; a reload builds a new one.
type Policy struct {
	lim        *Limiter
	router     *router.Router
	weights    *router.KeyMap[int]
	defWeight  int
	perAddress *config.QuotaClass // nil: addresses are not limited
	keys       map[[sha256.Size]byte]Subject
	apps       map[string]config.QuotaClass
	header     string
	ip         clientip.Resolver
	appOf      AppResolver
	checked    func(context.Context, Subject)
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
		lim: o.Limiter, router: o.Router, weights: weights, defWeight: q.DefaultWeight, checked: o.Checked,
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
// matching its method key, else quotas.default_weight (also for a method
// that does not parse: the dispatcher refuses it, but it was asked).
func (p *Policy) Weight(method string, params json.RawMessage) int {
	c, err := p.router.Parse(method, params)
	if err != nil {
		return p.defWeight
	}
	if w, _, ok := p.weights.Lookup(c); ok {
		return w
	}
	return p.defWeight
}

// AdmitJSONRPC checks the calls of a JSON-RPC request (single or batch)
// before any is dispatched. The elements over quota get their Err set (the
// dispatcher skips them, and they are answered with it: -32017, HTTP 429
// for a single call); retryAfter is the longest wait among them, for the
// Retry-After header. e refuses the whole request (an unknown API key).
// Invalid elements (Err already set) are not counted.
func (p *Policy) AdmitJSONRPC(r *http.Request, els []jsonrpc.Element) (retryAfter time.Duration, e *jsonrpc.Error) {
	s, limited, e := p.SubjectOf(r.Context(), r.RemoteAddr, r.Header)
	if e != nil || !limited {
		return 0, e
	}
	if p.checked != nil {
		p.checked(r.Context(), s)
	}
	idx := make([]int, 0, len(els)) // the valid elements: invalid ones are answered with their own error
	weights := make([]int, 0, len(els))
	for i, el := range els {
		if el.Err == nil {
			idx = append(idx, i)
			weights = append(weights, p.Weight(el.Req.Method, el.Req.Params))
		}
	}
	if len(idx) == 0 {
		return 0, nil
	}
	waits := make([]time.Duration, len(idx))
	p.lim.AdmitEach(r.Context(), s, weights, waits)
	for j, w := range waits {
		if w > 0 {
			els[idx[j]].Err = refusal(s, weights[j], w)
			retryAfter = max(retryAfter, w)
		}
	}
	return retryAfter, nil
}

// AdmitCall checks one typed call (Connect, gRPC, gRPC-Web), given as the
// JSON-RPC method and params it becomes. e is nil when the call may go on;
// else retryAfter is set for a call over quota.
func (p *Policy) AdmitCall(ctx context.Context, remoteAddr string, h http.Header, method string, params json.RawMessage) (retryAfter time.Duration, e *jsonrpc.Error) {
	s, limited, e := p.SubjectOf(ctx, remoteAddr, h)
	if e != nil || !limited {
		return 0, e
	}
	if p.checked != nil {
		p.checked(ctx, s)
	}
	w := p.Weight(method, params)
	if ok, wait := p.lim.Admit(ctx, s, w); !ok {
		return wait, refusal(s, w, wait)
	}
	return 0, nil
}

// RetryAfter renders a wait as Retry-After does: whole seconds, at least 1.
func RetryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
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
	secs := RetryAfter(wait)
	e := jsonrpc.NewError(jsonrpc.KindRateLimited, fmt.Sprintf("quota of %s exceeded (%d units per %s, class %s; this call weighs %d); retry in %s s",
		who, s.Class.Limit, s.Class.Period, s.Class.Name, weight, secs), nil)
	e.Data = fmt.Appendf(nil, `{"name":%q,"quota":%q,"retry_after":%s}`, jsonrpc.KindRateLimited, s.Class.Name, secs)
	return e
}
