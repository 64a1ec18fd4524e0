package guard

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hivegate/hivegate/jsonrpc"
)

// DefaultBodyTimeout is the default of Options.BodyTimeout.
const DefaultBodyTimeout = 10 * time.Second

// envelopeSlack is what the Guard reads beyond MaxBodyBytes on the
// Protobuf services' paths: gRPC, gRPC-Web and Connect streaming put a
// 5-byte envelope before the message that their ReadMaxBytes bounds.
const envelopeSlack = 5

// tooLargeWait bounds refuseTooLarge's read of one byte.
const tooLargeWait = 100 * time.Millisecond

// maxPooledBody is the largest read-ahead buffer kept for reuse.
const maxPooledBody = 64 << 10

// aheadBody is a request body the Guard has read in full: the handler
// behind reads it from memory, at once. Its Close does nothing: the
// buffer goes back to the Guard's pool when the handler has returned.
type aheadBody struct {
	buf []byte
	rd  bytes.Reader
}

func (b *aheadBody) Read(p []byte) (int, error) { return b.rd.Read(p) }

// Close implements io.Closer.
func (b *aheadBody) Close() error { return nil }

// bodyPool pools the read-ahead bodies of a Guard.
type bodyPool struct{ p sync.Pool }

func (bp *bodyPool) get() *aheadBody {
	if b, ok := bp.p.Get().(*aheadBody); ok {
		return b
	}
	return &aheadBody{buf: make([]byte, 0, 4096)}
}

// put returns b to the pool, dropping a buffer too large to keep.
func (bp *bodyPool) put(b *aheadBody) {
	if cap(b.buf) > maxPooledBody {
		return
	}
	b.buf = b.buf[:0]
	b.rd.Reset(nil)
	bp.p.Put(b)
}

// streaming reports whether r calls a streaming procedure, whose body the
// Guard cannot read ahead: the client may wait for answers before it sends
// more.
func (g *Guard) streaming(r *http.Request) bool {
	for _, p := range g.streamPaths {
		if strings.HasPrefix(r.URL.Path, p) {
			return true
		}
	}
	return false
}

// hasBody reports whether r has a body to read.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0
}

// readAhead reads the whole body of r, at most the body limit, within
// BodyTimeout, before the request takes one of the MaxInFlight places: a
// client that sends its body slowly holds its connection, never a place
// that others are waiting for. On success r.Body is the body in memory
// and the caller puts the returned buffer back once the handler is done.
// Otherwise readAhead has answered the request itself and returns nil.
func (g *Guard) readAhead(w http.ResponseWriter, r *http.Request) *aheadBody {
	limit := g.maxBody
	if r.URL.Path != "/" {
		limit += envelopeSlack
	}
	base := baseWriter(w)
	if r.ContentLength > limit {
		g.refuseTooLarge(w, r, base)
		return nil
	}
	rc := http.NewResponseController(w)
	if g.bodyTimeout > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(g.bodyTimeout))
	}
	b := g.bodies.get()
	var err error
	b.buf, err = readAll(http.MaxBytesReader(base, r.Body, limit), b.buf[:0], r.ContentLength)
	if err != nil {
		g.bodies.put(b)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			// MaxBytesReader told net/http that the body is over its
			// limit: it closes the connection after the answer, gently
			// enough for the client to read it.
			g.refuse(w, r, refusal{err: g.tooLarge(), status: http.StatusRequestEntityTooLarge, code: "resource_exhausted"})
		case isTimeout(err):
			w.Header().Set("Connection", "close")
			g.refuse(w, r, refusal{
				err:    jsonrpc.Errorf(jsonrpc.KindParseError, "the body did not arrive within %s", g.bodyTimeout),
				status: http.StatusRequestTimeout, code: "deadline_exceeded",
			})
		default:
			// The client went away or sent a broken body: the handler
			// would have answered this.
			e := jsonrpc.NewError(jsonrpc.KindParseError, "could not read the body", err)
			g.refuse(w, r, refusal{err: e, status: e.HTTPStatus(), code: "invalid_argument"})
		}
		return nil
	}
	if g.bodyTimeout > 0 {
		// The body is in: the handler's time is bounded by write_timeout,
		// and a deadline left behind would cut a long call short (net/http
		// cancels the request when its background read fails).
		_ = rc.SetReadDeadline(time.Time{})
	}
	b.rd.Reset(b.buf)
	r.Body = b
	r.ContentLength = int64(len(b.buf))
	return b
}

// tooLarge is the refusal of a body over the limit.
func (g *Guard) tooLarge() *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.KindRequestTooLarge, "the body exceeds %d bytes", g.maxBody)
}

// refuseTooLarge refuses a request whose Content-Length is over the limit
// without reading its body, as jsonrpchttp.Handler does: one byte is
// read through an http.MaxBytesReader, at most tooLargeWait, so that net/http closes the connection gently enough
// for the client to read the answer; not from a client that asked "Expect:
// 100-continue", which sends no body before it is told to.
func (g *Guard) refuseTooLarge(w http.ResponseWriter, r *http.Request, base http.ResponseWriter) {
	if !strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		_ = http.NewResponseController(base).SetReadDeadline(time.Now().Add(tooLargeWait))
		var one [1]byte
		_, _ = http.MaxBytesReader(base, r.Body, 0).Read(one[:])
	}
	g.refuse(w, r, refusal{err: g.tooLarge(), status: http.StatusRequestEntityTooLarge, code: "resource_exhausted"})
}

// baseWriter returns net/http's own ResponseWriter under w's wrappers,
// which http.MaxBytesReader needs to tell net/http that a body is too
// large.
func baseWriter(w http.ResponseWriter) http.ResponseWriter {
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return w
		}
		w = u.Unwrap()
	}
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readAll reads r to its end into buf, which it first grows to size when
// the size is known and small: a larger buffer grows as the body arrives,
// never on a client's word alone.
func readAll(r io.Reader, buf []byte, size int64) ([]byte, error) {
	if size > 0 && size < maxPooledBody && int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+1) // +1: the read that meets EOF
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
