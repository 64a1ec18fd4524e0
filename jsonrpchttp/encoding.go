package jsonrpchttp

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/hivegate/hivegate/jsonrpc"
)

// A JSON-RPC request body may be gzip-encoded (Content-Encoding: gzip, as
// some HTTP clients send large batches and broadcasts): it is decompressed
// with klauspost/compress's gzip reader, the one the answers are
// compressed with (compress.go). Accepting it, rather than refusing it,
// costs the gateway nothing it does not already bound: the limit
// max_body_bytes holds twice, for the bytes received and for the bytes
// they decompress to, so a small "gzip bomb" stops at the limit (413
// -32014) instead of filling memory, and a body of empty gzip members
// stops at the limit of bytes received. Any other Content-Encoding (br,
// deflate, zstd, a list of several, an unknown name) is answered 415
// Unsupported Media Type with an invalid-request error and
// "Accept-Encoding: gzip", as RFC 7694 asks; "identity" is the body as is.

// errBadGzip is the cause of a gzip-encoded body that does not decompress.
var errBadGzip = errors.New("the gzip-encoded body could not be decompressed")

// requestBody returns what post reads the request's body from: the body
// itself, or its decompression when it is gzip-encoded. At most limit
// bytes are read from the network in both cases (more is errBodyTooLarge);
// post bounds what it reads from the returned reader. When the encoding is
// not one hivegate decodes, or the gzip header is not valid, requestBody
// answers the request itself and returns ok false.
func (h *Handler) requestBody(w http.ResponseWriter, r *http.Request, limit int64) (body io.Reader, ok bool) {
	vs := r.Header["Content-Encoding"] // the canonical key: no Get, which canonicalizes it per request
	if len(vs) == 0 {
		return r.Body, true
	}
	coding := strings.ToLower(strings.TrimSpace(vs[0]))
	switch coding {
	case "", "identity":
		return r.Body, true
	case "gzip", "x-gzip":
	default:
		w.Header().Set("Accept-Encoding", "gzip")
		e := jsonrpc.NewError(jsonrpc.KindInvalidRequest,
			"Content-Encoding "+strconv.Quote(truncate(coding, 40))+" is not supported: send the body as is or gzip-encoded", nil)
		h.send(w, http.StatusUnsupportedMediaType, &response{buf: jsonrpc.AppendError(nil, nullID, e)})
		return nil, false
	}
	zr, err := gzip.NewReader(&cappedReader{r: r.Body, n: limit})
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			h.refuseTooLarge(w, r)
			return nil, false
		}
		h.writeError(w, jsonrpc.NewError(jsonrpc.KindParseError, errBadGzip.Error(), err))
		return nil, false
	}
	return gzipBody{zr}, true
}

// gzipBody is a gzip reader whose errors other than the limit's say that
// the body did not decompress.
type gzipBody struct{ zr *gzip.Reader }

func (g gzipBody) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errBodyTooLarge) {
		err = errors.Join(errBadGzip, err)
	}
	return n, err
}

// cappedReader reads at most n bytes from r; reading past them fails
// with errBodyTooLarge.
type cappedReader struct {
	r io.Reader
	n int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.n < 0 {
		return 0, errBodyTooLarge
	}
	if int64(len(p)) > c.n+1 {
		p = p[:c.n+1]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	if c.n < 0 {
		return n, errBodyTooLarge
	}
	return n, err
}

// readError is the detail of the parse error answered for a body that
// could not be read.
func readError(err error) string {
	if errors.Is(err, errBadGzip) {
		return errBadGzip.Error()
	}
	return "could not read the body"
}

// truncate cuts a client's text quoted in an error message to n bytes.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
