package backend

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivegate/hivegate/jsonrpc"
)

// checkFunc checks the body of an answer (raw, read into lb; fresh when raw
// is a buffer of its own rather than lb's) and keeps what it needs of it.
// It returns keep when it holds on to lb (a lent result).
type checkFunc func(raw []byte, lb *Lease, fresh bool) (keep bool, f *failure)

// readAnswer reads the answer resp — its status, the size cap, its encoding
// — and hands its body to check. It closes the body. reject says that the
// answer was refused for what it holds, so its connection must carry
// nothing more.
func (p *Pool) readAnswer(ctx context.Context, n *node, resp *http.Response, check checkFunc) (f *failure, reject bool) {
	defer func() { _ = resp.Body.Close() }() // before ex.finish: an unread body closes the connection
	switch status := resp.StatusCode; {
	case status >= 500:
		p.drain(resp.Body)
		return &failure{
			kind:   jsonrpc.KindUpstreamUnavailable,
			detail: "answered HTTP " + strconv.Itoa(status),
			cause:  httpStatusCause(n, status, "POST"),
			retry:  true,
			down:   true,
		}, false
	case status < 200 || status >= 300:
		p.drain(resp.Body)
		return &failure{
			kind:   jsonrpc.KindInvalidUpstreamResponse,
			detail: "answered HTTP " + strconv.Itoa(status),
			cause:  httpStatusCause(n, status, "POST"),
			// A 408 on a kept-alive connection was most likely sent
			// while it was idle, before this request.
			stale:   status == http.StatusRequestTimeout,
			refused: status >= 400 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests,
		}, status == http.StatusRequestTimeout
	}
	limit := p.opts.MaxResponseBytes
	if resp.ContentLength > limit {
		return p.tooLarge(n, fmt.Sprintf("Content-Length %d", resp.ContentLength)), true
	}
	need := 0
	if resp.ContentLength >= 0 {
		need = int(resp.ContentLength) + 1
	}
	body, gz, err := p.decodedBody(resp)
	if err != nil {
		return &failure{
			kind:   jsonrpc.KindInvalidUpstreamResponse,
			detail: "answered a body hivegate cannot decode",
			cause:  describeTransport(n, err, "POST"),
		}, true
	}
	defer p.putGzip(gz)
	lb := p.getRespBuf(need)
	raw, fresh, err := p.readBody(body, &lb.b, limit)
	keep := false
	switch {
	case errors.Is(err, errTooLarge):
		f = p.tooLarge(n, "body")
	case err != nil && !isNetError(err) && ctx.Err() == nil:
		// Not the connection but the bytes: a gzip body that does not
		// decode, or bytes after its end.
		f = &failure{
			kind:   jsonrpc.KindInvalidUpstreamResponse,
			detail: "answered a body hivegate cannot decode",
			cause:  describeTransport(n, err, "POST"),
		}
	case err != nil:
		f = ioFailure(ctx, n, err, true)
	default:
		keep, f = check(raw, lb, fresh)
	}
	if !keep {
		p.putRespBuf(lb) // a no-op for a large buffer a result may alias
	}
	return f, f != nil && f.kind != jsonrpc.KindUpstreamUnavailable
}

// checkSingle checks the answer to one call numbered id. The envelope it
// returns holds lb (lent: keep) or nothing of it.
func (p *Pool) checkSingle(n *node, raw []byte, lb *Lease, fresh bool, id uint64, req Request) (envelope, bool, *failure) {
	env, reason := parseEnvelope(raw, id)
	if reason != "" {
		return envelope{}, false, invalidAnswer(n, reason, raw)
	}
	pooled := !fresh && cap(lb.b) <= maxPooledBuf
	switch {
	case env.result != nil && req.ResultPrefix != "":
		return withPrefix(env.result, req.ResultPrefix), false, nil
	case env.result != nil && req.PooledResult && pooled:
		lb.lent = true
		return envelope{result: env.result, lease: lb}, true, nil
	}
	return detach(env, len(raw), !pooled), false, nil
}

// invalidAnswer is the failure of an answer that is not the JSON-RPC
// response expected; reason completes "backend X answered ...". An answer
// carrying an id the exchange did not send (reasonWrongID) is refused as a
// lie: it counts against the node's health, and the call may be made again
// on a connection of its own (Pool.Call), within its retries.
func invalidAnswer(n *node, reason string, raw []byte) *failure {
	wrongID := strings.HasPrefix(reason, reasonWrongID)
	return &failure{
		kind:   jsonrpc.KindInvalidUpstreamResponse,
		detail: "answered " + reason,
		cause:  fmt.Errorf("POST %s: %s: body starts %q", shownURL(n.url), reason, raw[:min(len(raw), 200)]),
		stale:  wrongID,
		down:   wrongID,
	}
}

// ioFailure classifies a transport error (transportFailure). An error that
// a passed deadline caused is only reported once ctx itself says so: the
// connection's deadline, set from ctx's, may fire a moment before ctx's own
// timer, and Call tells a timeout from a transport failure by ctx.Err().
func ioFailure(ctx context.Context, n *node, err error, midBody bool) *failure {
	if dl, ok := ctx.Deadline(); ok && ctx.Err() == nil && !time.Now().Before(dl) {
		t := time.NewTimer(100 * time.Millisecond) // Done is due now; bounded all the same
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return transportFailure(n, err, midBody)
}

// withPrefix copies result into a new buffer after prefix (Request.ResultPrefix).
func withPrefix(result []byte, prefix string) envelope {
	n := len(prefix) + len(result)
	buf := slices.Grow([]byte(nil), n) // the allocator's size class: cap is what was allocated
	buf = append(append(buf, prefix...), result...)
	return envelope{result: buf[len(prefix):n:n], buf: buf}
}

// tooLarge is the failure of an answer over the size cap.
func (p *Pool) tooLarge(n *node, what string) *failure {
	return &failure{
		kind:   jsonrpc.KindUpstreamResponseTooLarge,
		detail: "answered more than " + formatBytes(p.opts.MaxResponseBytes),
		cause:  fmt.Errorf("POST %s: %s over %d bytes", shownURL(n.url), what, p.opts.MaxResponseBytes),
	}
}

// detach makes env independent of a pooled buffer. When the body's buffer
// will not be reused (canAlias: a fresh or large buffer) and the member fills
// most of it, the member is handed out as is, saving a copy of a big result;
// otherwise it is copied.
func detach(env envelope, bodyLen int, canAlias bool) envelope {
	member := env.result
	if member == nil {
		member = env.errObj
	}
	if canAlias && 2*len(member) >= bodyLen {
		member = member[:len(member):len(member)]
	} else {
		member = append([]byte(nil), member...)
	}
	if env.result != nil {
		return envelope{result: member}
	}
	return envelope{errObj: member}
}
