package backend

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/hivegate/hivegate/jsonwire"
)

// exchange is one attempt's use of a backend's Transport: the connections
// it was handed (httptrace's GotConn; more than one when the Transport sent
// the request again after a kept-alive connection turned out closed) and
// what it must release (conn.go). Exchanges are pooled: the GotConn hook
// is made once per exchange, not once per call.
type exchange struct {
	gotFn func(httptrace.GotConnInfo)
	conns []*conn // handed out, not yet released; the last carried the answer
	// reused and rxStart describe the last connection: whether it had
	// carried an earlier answer, and how many bytes it had received before
	// this request.
	reused  bool
	rxStart int64
	sends   int // connections handed out: each is one send of the request
	// body is the request body being sent, and getBodyFn the request's
	// GetBody, made once: the Transport calls it only within RoundTrip,
	// to send the body again on another connection.
	body      []byte
	getBodyFn func() (io.ReadCloser, error)
}

func newExchange() *exchange {
	ex := &exchange{conns: make([]*conn, 0, 2)}
	ex.gotFn = ex.gotConn
	ex.getBodyFn = ex.getBody
	return ex
}

// getBody is the GetBody of the request send makes: a new reader of body.
func (ex *exchange) getBody() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(ex.body)), nil
}

// gotConn is the GotConn hook.
func (ex *exchange) gotConn(info httptrace.GotConnInfo) {
	ex.sends++
	c := netConnOf(info.Conn)
	if c == nil {
		return
	}
	c.got()
	ex.conns = append(ex.conns, c)
	ex.reused, ex.rxStart = info.Reused, c.received.Load()
}

// answered reports whether bytes arrived on the last connection after the
// request was sent: the backend answered something, if not HTTP.
func (ex *exchange) answered() bool {
	if len(ex.conns) == 0 {
		return false
	}
	return ex.conns[len(ex.conns)-1].received.Load() > ex.rxStart
}

// finish releases the connections; reject closes the last one, whose
// answer was rejected, so that it carries nothing more.
func (ex *exchange) finish(reject bool) {
	for i, c := range ex.conns {
		c.release(reject && i == len(ex.conns)-1)
	}
	clear(ex.conns)
	ex.conns = ex.conns[:0]
	ex.reused, ex.rxStart = false, 0
}

// getExchange returns a pooled exchange.
func (p *Pool) getExchange() *exchange {
	ex := p.exchanges.Get().(*exchange)
	ex.sends = 0
	return ex
}

// putExchange returns a finished exchange to the pool.
func (p *Pool) putExchange(ex *exchange) {
	ex.body = nil
	p.exchanges.Put(ex)
}

// send posts body to be on one of t's connections and returns the
// answer's head; the caller reads and closes the body, then calls
// ex.finish. The request carries no idempotency mark: the Transport sends
// it again on another connection only when not a byte of it was written
// (a kept-alive connection found closed before the write, conn.Write), so
// that every send that may reach the node is one of the call's attempts.
func (p *Pool) send(ctx context.Context, t *http.Transport, n *node, ex *exchange, body []byte) (*http.Response, error) {
	// A trace of its own for each send: the Transport may still be writing
	// the request, and reading its trace, after an early answer came back.
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: ex.gotFn})
	hdr := withContextHeaders(n.header, ctx)
	ex.body = body
	r := http.Request{
		Method:        http.MethodPost,
		URL:           n.url,
		Host:          n.url.Host,
		Header:        hdr,
		Body:          io.NopCloser(bytes.NewReader(body)),
		GetBody:       ex.getBodyFn,
		ContentLength: int64(len(body)),
	}
	// The body is a *bytes.Reader: net/http then writes it into the same
	// buffer as the head, so that a request leaves in one write, and a
	// write that fails on a connection the backend closed is "nothing
	// written", which the Transport may send again.
	return t.RoundTrip(r.WithContext(ctx))
}

// baseHeaders returns the headers of every request to a backend. None of
// them marks the request idempotent (Idempotency-Key, X-Idempotency-Key):
// with that mark net/http's Transport sends a request again, on as many
// kept-alive connections as it holds, whenever the node closes one after
// reading it, beyond the call's retries.
func baseHeaders(userAgent string) http.Header {
	return http.Header{
		"User-Agent":      {userAgent},
		"Content-Type":    {"application/json"},
		"Accept":          {"application/json"},
		"Accept-Encoding": {"gzip"},
	}
}

// appendBody appends the JSON-RPC request object
// {"jsonrpc":"2.0","id":"id","method":method,"params":params}: the id as a
// string (ids.go); params is copied byte for byte, and nil or empty params
// omit the member.
func appendBody(b []byte, id uint64, method string, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":"`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `","method":`...)
	b = jsonwire.AppendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// bodyOverhead is the most appendBody adds to a method and its params:
// {"jsonrpc":"2.0","id":"<20 digits>","method":"…","params":…}.
const bodyOverhead = 72

// newBody returns the body of one call in a buffer of its own (a request
// may be sent again, by the Transport or a retry, after its caller is gone
// from the buffer pool's point of view).
func newBody(id uint64, method string, params []byte) []byte {
	return appendBody(make([]byte, 0, len(method)+len(params)+bodyOverhead), id, method, params)
}

// reservedHeaders are the headers a context cannot add (WithHeader): the
// pool's own and those that would change the message's framing or the
// connection's fate.
var reservedHeaders = [...]string{
	"Host", "User-Agent", "Content-Type", "Accept", "Accept-Encoding", "Content-Length", "Transfer-Encoding",
	"Connection", "Keep-Alive", "Te", "Trailer", "Upgrade", "Expect", "Proxy-Connection", "X-Idempotency-Key", "Idempotency-Key",
}

// withContextHeaders returns base with the headers added to ctx with
// WithHeader (a copy; base is shared and never modified), or base itself
// when there are none. For a key set more than once the last value counts.
// A reserved key, a key that is not an HTTP token and a value with a control
// character (CR, LF, NUL...) are dropped, never sent: the values come from
// clients.
func withContextHeaders(base http.Header, ctx context.Context) http.Header {
	kv, _ := ctx.Value(headersKey{}).([]string)
	if len(kv) == 0 {
		return base
	}
	h := make(http.Header, len(base)+len(kv)/2)
	for k, v := range base {
		h[k] = v
	}
next:
	for i := 0; i+1 < len(kv); i += 2 {
		k, v := kv[i], strings.Trim(kv[i+1], " \t")
		for _, r := range reservedHeaders {
			if strings.EqualFold(k, r) {
				continue next
			}
		}
		if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
			continue
		}
		h[k] = []string{v}
	}
	return h
}
