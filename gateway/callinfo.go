package gateway

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/metrics"
)

// callInfo gathers what the access log and the JSON-RPC span say about one
// HTTP request: what was called, how it was served and which backends
// answered. The front ends and the upstream observer fill it in through
// the request's context; upstream calls may outlive the request (a
// coalesced call another client still waits on), hence the lock.
type callInfo struct {
	frontend  string
	requestID string // sent to the backends and in the response

	mu            sync.Mutex
	method        string // method key (no params), or the Connect procedure
	route         string
	cache         string
	outcome       string
	batch         int // elements of a JSON-RPC batch; -1 when not a batch
	backends      []string
	oneBackend    [1]string // backends' first array
	upstream      time.Duration
	upstreamCalls int
	// quotaSubject and quotaKey name who the request counted against
	// (quota.Subject: its kind, and the key's configured name or the
	// app's client id); empty when no quota applied.
	quotaSubject, quotaKey string
}

type callInfoKey struct{}

// infoContext is a context carrying a callInfo (callInfoFrom finds it),
// made to live inside another allocation (serveHTTP's exchange) rather
// than in one of its own. Its Done is its parent's, so the context package still finds
// the parent's cancellation (no goroutine for a child's WithCancel).
type infoContext struct {
	context.Context
	info *callInfo
}

// init makes c the context ctx with info.
func (c *infoContext) init(ctx context.Context, info *callInfo) {
	info.batch = -1
	c.Context, c.info = ctx, info
}

// Value returns the callInfo for callInfoKey, else the parent's value.
func (c *infoContext) Value(key any) any {
	if _, ok := key.(callInfoKey); ok {
		return c.info
	}
	return c.Context.Value(key)
}

// callInfoFrom returns the callInfo of ctx, nil when there is none.
func callInfoFrom(ctx context.Context) *callInfo {
	info, _ := ctx.Value(callInfoKey{}).(*callInfo)
	return info
}

// setCall records the one call of a single request; the calls of a
// JSON-RPC batch are not recorded one by one (setBatch describes them).
func (i *callInfo) setCall(method string, res *dispatch.Result, outcome string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.batch >= 0 {
		return
	}
	if res.Key != "" {
		method, _, _ = strings.Cut(res.Key, ".params=")
	} else if len(method) > 100 {
		method = method[:100] + "…"
	}
	if i.method == "" || i.frontend == metrics.FrontendJSONRPC {
		i.method = method
	}
	i.route, i.cache, i.outcome = res.Route, string(res.Cache), outcome
}

// setQuota records who the request counted against.
func (i *callInfo) setQuota(subject, key string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.quotaSubject, i.quotaKey = subject, key
}

// setBatch records the number of elements of a batch.
func (i *callInfo) setBatch(n int) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.batch = n
}

// addUpstream records one upstream call made for the request.
func (i *callInfo) addUpstream(backend string, d time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.upstreamCalls++
	i.upstream += d
	if !slices.Contains(i.backends, backend) {
		if i.backends == nil {
			i.backends = i.oneBackend[:0:1] // the usual request: no allocation
		}
		i.backends = append(i.backends, backend)
	}
}

// callSnapshot is a copy of a callInfo's fields.
type callSnapshot struct {
	method, route, cache, outcome string
	batch                         int
	backends                      []string
	upstream                      time.Duration
	upstreamCalls                 int
	quotaSubject, quotaKey        string
}

// snapshot copies the fields under the lock.
func (i *callInfo) snapshot() callSnapshot {
	i.mu.Lock()
	defer i.mu.Unlock()
	return callSnapshot{
		method: i.method, route: i.route, cache: i.cache, outcome: i.outcome,
		batch: i.batch, backends: slices.Clone(i.backends),
		upstream: i.upstream, upstreamCalls: i.upstreamCalls,
		quotaSubject: i.quotaSubject, quotaKey: i.quotaKey,
	}
}
