package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/hivegate/hivegate/jsonrpc"
)

// Request is one JSON-RPC call to a backend.
type Request struct {
	// Method is the JSON-RPC method, e.g. "condenser_api.get_block".
	Method string
	// Params is forwarded byte for byte: hived signs and hashes what clients
	// send, and its uint128/int64 values would not survive a decode and
	// re-encode. nil (or empty) omits the params member.
	Params json.RawMessage
	// Timeout bounds the whole exchange — connecting, sending, waiting,
	// reading the body — across all attempts; 0 means no timeout.
	Timeout time.Duration
	// Retries is the number of extra attempts after a retryable failure,
	// 0 to MaxRetries (values outside are clamped).
	Retries int
	// ResultPrefix, when not empty, asks for the result in a buffer that
	// starts with a copy of these bytes (Response.Buffer), so that a caller
	// storing the result under a key (cache.Cache.StoreBuffer) needs no
	// second copy. Error answers are not affected.
	ResultPrefix string
	// Once marks a request that must not reach the backend twice
	// (broadcasts): it is never put in a batch (CallBatch), and an answer
	// a kept-alive connection may have held from before is not a reason to
	// send it again (Call). Retries still apply as the caller asks.
	Once bool
	// PooledResult asks for a result in the pooled buffer the answer was read into
	// rather than in a copy of its own: Response.Lease then holds it, and the
	// caller that is done with Result may give it back (Lease.Release).
	// Without a ResultPrefix only; an error answer is always a copy.
	PooledResult bool
}

// Response is a backend's answer to a Request. Exactly one of Result and
// Error is set when Call returns a nil error.
type Response struct {
	// Result is the raw bytes of the answer's result member, exactly as the
	// backend sent them. Unless Lease is set, it is not shared with any
	// pool and may be kept.
	Result json.RawMessage
	// Lease, when not nil (Request.PooledResult), is the pooled buffer Result lives
	// in: Result is valid until Lease.Release.
	Lease *Lease
	// Buffer is set when the Request had a ResultPrefix and the answer a
	// result: a new allocation holding the prefix then Result (Result is
	// Buffer[len(ResultPrefix):]), with the allocation's full capacity.
	// Nothing else refers to it, so it may be handed over, once.
	Buffer []byte
	// Error is the backend's JSON-RPC error object, passed through raw
	// (jsonrpc.BackendError).
	Error *jsonrpc.Error
	// Attempts is the number of attempts made: 1 + retries used (for a
	// call CallBatch made alone after its batch failed, the batch counts as
	// one). Each attempt sent the request to a node at most once.
	Attempts int
	// Backend is the configured name of the backend called.
	Backend string
	// Elapsed is the time the call took, back-off included.
	Elapsed time.Duration
	// MaxAge is how long the answer's Cache-Control header lets a shared
	// cache keep it (s-maxage, else max-age); 0 when it says nothing or
	// forbids storing. Only HTTP nodes send one.
	MaxAge time.Duration
	// Node is the base URL of the node that answered (the last one tried
	// when the call failed), for logs; never shown to clients.
	Node string
}

// Call sends req to the named backend and returns its answer.
//
// The error is nil when the backend answered with a valid JSON-RPC response,
// even one carrying a JSON-RPC error (then in Response.Error). Otherwise it
// is a *jsonrpc.Error of kind KindUpstreamTimeout, KindUpstreamUnavailable,
// KindInvalidUpstreamResponse or KindUpstreamResponseTooLarge (KindInternal
// for a backend name that is not configured, a bug in the caller), or, when
// ctx ended first, an error wrapping ctx.Err() (errors.Is(err,
// context.Canceled) holds); a gateway error never wraps a context error.
// Attempts, Backend and Elapsed are filled in either case.
//
// A call makes at most 1 + Retries attempts, and each attempt sends the
// request at most once: nothing sends it again behind the call's back
// (the HTTP Transport resends only a request of which not a byte was
// written, exchange.go). A backend of several nodes sends each attempt to
// one of them (nodes.go): a retry goes at once to a node the call has not
// tried, when one is in service, and after the back-off to the same node
// otherwise. Each attempt carries a new random id (ids.go).
//
// Retried, while attempts and the deadline remain: transport failures
// (refused, reset, dial timeout, connection closed before or during the
// answer) and HTTP 5xx; and, except for a request sent once (Request.Once),
// an answer on a kept-alive connection that an earlier exchange may have
// left there (an answer to another id, an HTTP 408), on a connection of its
// own. Never retried: a JSON-RPC error answer (it is the answer), HTTP 4xx
// and other non-2xx statuses, an invalid or oversized answer (a backend
// that answers garbage answers it again; retrying only multiplies the
// load), and the call's own deadline, which is shared by all attempts.
// Back-off is short (about 25ms, 50ms, 100ms, jittered) and a retry whose
// back-off would end past the deadline is not made.
func (p *Pool) Call(ctx context.Context, name string, req Request) (Response, error) {
	if o := p.opts.Observer; o != nil && ctx.Value(observedKey{}) == nil {
		return p.callObserved(ctx, o, name, req) // observe.go
	}
	be, ok := p.backends[name]
	if !ok {
		return unknownBackend(name)
	}
	return p.call(ctx, be, req, 0)
}

// unknownBackend is Call's answer for a backend name that is not
// configured (a bug in the caller).
func unknownBackend(name string) (Response, error) {
	return Response{Backend: name}, jsonrpc.NewError(jsonrpc.KindInternal, "no backend named "+strconv.Quote(name), nil)
}

// call makes req on be as Call does, after used attempts already made for
// it elsewhere (a batch, CallBatch): at most 1 + Retries - used attempts,
// and at least one.
func (p *Pool) call(ctx context.Context, be *backend, req Request, used int) (Response, error) {
	start := time.Now()
	resp := Response{Backend: be.name, Attempts: used}
	if err := ctx.Err(); err != nil {
		return resp, abandoned(be.nodes[0], err)
	}
	attempts := max(1, 1+min(max(req.Retries, 0), MaxRetries)-used)
	callCtx := ctx
	var deadline time.Time
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
		deadline, _ = callCtx.Deadline()
	}

	var done tried
	var fresh *node // the node whose next attempt goes on a connection of its own
	for tries := 1; ; tries++ {
		var n *node
		var at int
		if fresh != nil {
			n, at = fresh, fresh.index-1
		} else if n, at = be.pick(done); n == nil {
			resp.Elapsed = time.Since(start)
			return resp, cordonedError(be) // cordon.go
		}
		done.add(at)
		resp.Node = n.shown
		id := p.newID()
		body := newBody(id, req.Method, req.Params)
		n.inFlight.Add(1)
		env, f := p.attemptNode(callCtx, n, body, id, req, fresh == n)
		n.inFlight.Add(-1)
		resp.Attempts++
		if f == nil {
			n.health.success(p.logger, n)
			resp.Result, resp.Buffer, resp.Lease, resp.MaxAge = env.result, env.buf, env.lease, env.maxAge
			if env.errObj != nil {
				resp.Error = jsonrpc.BackendError(env.errObj)
			}
			resp.Elapsed = time.Since(start)
			return resp, nil
		}
		if err := ctx.Err(); err != nil {
			resp.Elapsed = time.Since(start)
			return resp, abandoned(n, err)
		}
		if callCtx.Err() != nil {
			n.health.failure(p.logger, n, f.cause)
			resp.Elapsed = time.Since(start)
			return resp, timeoutError(n, req.Timeout, resp.Attempts, f.cause)
		}
		if f.down {
			n.health.failure(p.logger, n, f.cause)
		} else {
			n.health.success(p.logger, n)
		}
		p.logger.LogAttrs(ctx, slog.LevelDebug, "backend attempt failed",
			slog.String("backend", be.name), slog.Int("node", n.index), slog.String("method", req.Method),
			slog.Int("attempt", resp.Attempts), slog.Any("err", f.cause))
		// An answer a kept-alive connection may have held from before is
		// worth a retry on a connection of its own, at once.
		stale := f.stale && f.reused && !req.Once
		if (!f.retry && !stale) || tries >= attempts {
			resp.Elapsed = time.Since(start)
			return resp, f.toError(be.name, resp.Attempts)
		}
		fresh = nil
		if stale {
			fresh = n
			continue
		}
		if next, _ := be.pick(done); next != n {
			continue // another node: at once
		}
		if f.reused && f.unanswered && n.ws == nil {
			// The same node again, after a kept-alive connection failed
			// under the request with no answer: most likely the node closed
			// it as the request went out (an idle timeout, a 408). A
			// connection of its own cannot meet that race, so the retry
			// goes there, at once.
			fresh = n
			continue
		}
		wait := backoff(tries - 1)
		if !deadline.IsZero() && time.Until(deadline) <= wait {
			resp.Elapsed = time.Since(start)
			return resp, f.toError(be.name, resp.Attempts)
		}
		if !sleep(callCtx, wait) {
			resp.Elapsed = time.Since(start)
			if err := ctx.Err(); err != nil {
				return resp, abandoned(n, err)
			}
			return resp, timeoutError(n, req.Timeout, resp.Attempts, f.cause)
		}
	}
}

// attemptNode makes one attempt of a call on node n: over its WebSocket
// connections (ws.go) or HTTP (attempt), on a connection of its own when
// fresh.
func (p *Pool) attemptNode(ctx context.Context, n *node, body []byte, id uint64, req Request, fresh bool) (envelope, *failure) {
	if n.ws != nil {
		return p.wsAttempt(ctx, n, body, id, req)
	}
	return p.attempt(ctx, n, body, id, req, fresh)
}

// attempt makes one exchange of body, on one of the node's kept-alive
// connections or, when fresh, on a connection of its own. The request
// reaches the node at most once: the Transport sends it again only when
// not a byte of it was written. A failure says whether the connection had
// carried an earlier exchange (reused): an answer to another id or an HTTP
// 408 there may have been left by that exchange (Call retries such a call
// on a connection of its own). On success the envelope's member aliases no
// pooled buffer, unless it holds one lent (Request.PooledResult).
func (p *Pool) attempt(ctx context.Context, n *node, body []byte, id uint64, req Request, fresh bool) (envelope, *failure) {
	ex := p.getExchange()
	defer p.putExchange(ex)
	t := n.transport
	if fresh {
		t = n.fresh
	}
	var env envelope
	var f *failure
	hresp, err := p.send(ctx, t, n, ex, body) //nolint:bodyclose // readAnswer closes it
	reused := ex.reused
	if err != nil {
		f = p.sendFailure(ctx, n, ex, err)
		f.unanswered = true
		ex.finish(f.stale)
	} else {
		var reject bool
		f, reject = p.readAnswer(ctx, n, hresp, func(raw []byte, lb *Lease, freshBuf bool) (bool, *failure) {
			var keep bool
			env, keep, f = p.checkSingle(n, raw, lb, freshBuf, id, req)
			return keep, f
		})
		ex.finish(reject)
		if f == nil {
			env.maxAge = cacheMaxAge(hresp.Header)
		}
	}
	if f != nil {
		f.reused = reused
	}
	return env, f
}

// sendFailure classifies an error of send. Bytes that arrived before the
// Transport gave up (a head it could not parse, one over the size limit,
// two different Content-Lengths) mean the backend is there and answered
// something that is not HTTP: an invalid upstream response, not retried,
// not counted against its health. Anything else is a transport failure.
func (p *Pool) sendFailure(ctx context.Context, n *node, ex *exchange, err error) *failure {
	if ex.sends == 0 && ctx.Err() != nil {
		// The Transport had not handed out a connection: all of them
		// were busy with other calls, or the dial had not finished.
		err = fmt.Errorf("no connection free or dialed among %d: %w", p.opts.MaxConnsPerBackend, err)
	}
	if ctx.Err() == nil && ex.answered() && !isNetError(err) {
		return &failure{
			kind:   jsonrpc.KindInvalidUpstreamResponse,
			detail: "answered something that is not an HTTP response",
			cause:  describeTransport(n, err, "POST"),
			stale:  true,
		}
	}
	return ioFailure(ctx, n, err, false)
}

// backoff is the jittered pause before retry number attempt+1: about 25ms,
// 50ms, 100ms (each uniformly within ±50%).
func backoff(attempt int) time.Duration {
	d := 25 * time.Millisecond << attempt
	return d/2 + rand.N(d)
}

// sleep waits d or until ctx ends; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// formatBytes renders a byte count for messages: "64 MiB", "512 KiB", "1000 bytes".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
