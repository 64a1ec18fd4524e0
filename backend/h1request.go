package backend

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/hivegate/hivegate/internal/httpwire"
	"github.com/hivegate/hivegate/jsonrpc"
)

// The requests of hivegate's upstream client (h1conn.go): request line,
// headers and JSON-RPC body assembled in one buffer, written with one Write.

// clGap is the room left for the Content-Length value and the blank line
// while the body is encoded after it (finishRequest).
const clGap = 20 + len("\r\n\r\n")

// requestHead returns the request line and the pool's own headers of every
// request to u, up to (not including) Content-Length.
func requestHead(u *url.URL, userAgent string) []byte {
	host := u.Host
	if i := strings.Index(host, "%"); i >= 0 && strings.HasPrefix(host, "[") {
		if j := strings.Index(host, "]"); j > i {
			host = host[:i] + host[j:] // an IPv6 zone is not sent (RFC 6874)
		}
	}
	var b []byte
	b = append(b, "POST "...)
	b = append(b, u.RequestURI()...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\nUser-Agent: "...)
	b = append(b, userAgent...)
	b = append(b, "\r\nContent-Type: application/json\r\nAccept: application/json\r\n"...)
	return b
}

// probeRequest returns the complete health probe request for head.
func probeRequest(head []byte) []byte {
	b := append([]byte(nil), head...)
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(probeBody)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, probeBody...)
}

// newRequest encodes one call into a pooled buffer: the backend's request
// head, the headers ctx adds (WithHeader), Content-Length and the JSON-RPC
// body {"jsonrpc":"2.0","id":id,"method":method,"params":params}. params is
// copied byte for byte; nil or empty params omit the member. The buffer is
// written with a single Write, so headers and body leave in one segment;
// every attempt of the call reuses it. Return it with putRequest.
func (p *Pool) newRequest(ctx context.Context, be *backend, id uint64, method string, params json.RawMessage) *[]byte {
	bp := p.reqBufs.Get().(*[]byte)
	b := append((*bp)[:0], be.head...)
	b = appendContextHeaders(b, ctx)
	b = append(b, "Content-Length: "...)
	clAt := len(b)
	b = append(b, make([]byte, clGap)...)
	bodyAt := len(b)
	b = appendBody(b, id, method, params)
	*bp = finishRequest(b, clAt, bodyAt)
	return bp
}

// putRequest returns a buffer of newRequest to the pool unless it is too
// large to keep.
func (p *Pool) putRequest(bp *[]byte) {
	if cap(*bp) > maxPooledBuf {
		return
	}
	*bp = (*bp)[:0]
	p.reqBufs.Put(bp)
}

// appendBody appends the JSON-RPC request object.
func appendBody(b []byte, id uint64, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"method":`...)
	b = jsonrpc.AppendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// finishRequest writes the body's length and the blank line at clAt, in the
// clGap bytes reserved there, and moves the body (at bodyAt) right after.
func finishRequest(b []byte, clAt, bodyAt int) []byte {
	n := len(b) - bodyAt
	cl := strconv.AppendInt(b[clAt:clAt], int64(n), 10)
	cl = append(cl, "\r\n\r\n"...)
	end := clAt + len(cl)
	copy(b[end:], b[bodyAt:])
	return b[:end+n]
}

// reservedHeaders are the headers a context cannot add (WithHeader): the
// pool's own and those that would change the message's framing or the
// connection's fate.
var reservedHeaders = [...]string{
	"Host", "User-Agent", "Content-Type", "Accept", "Content-Length", "Transfer-Encoding",
	"Connection", "Keep-Alive", "Te", "Trailer", "Upgrade", "Expect", "Proxy-Connection",
}

// appendContextHeaders appends the headers added to ctx with WithHeader.
// For a key set more than once the last value counts. A reserved key, a key
// that is not an HTTP token and a value with a control character (CR, LF,
// NUL...) are dropped, never sent: the values come from clients.
func appendContextHeaders(b []byte, ctx context.Context) []byte {
	kv, _ := ctx.Value(headersKey{}).([]string)
next:
	for i := 0; i+1 < len(kv); i += 2 {
		k, v := kv[i], httpwire.TrimOWS(kv[i+1])
		for j := i + 2; j+1 < len(kv); j += 2 {
			if kv[j] == k {
				continue next // a later value replaces this one
			}
		}
		for _, r := range reservedHeaders {
			if strings.EqualFold(k, r) {
				continue next
			}
		}
		if !httpwire.ValidHeaderName(k) || !httpwire.ValidHeaderValue(v) {
			continue
		}
		b = append(b, k...)
		b = append(b, ": "...)
		b = append(b, v...)
		b = append(b, "\r\n"...)
	}
	return b
}
