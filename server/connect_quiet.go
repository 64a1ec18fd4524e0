package server

import (
	"compress/gzip"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"

	"connectrpc.com/connect"
)

// Two ways a client's malformed request reached it with a Go library's
// error text: connect-go writes the error of its gzip reader into the
// answer ("decompress: flate: corrupt input before offset 1", "get
// decompressor: unexpected EOF"), and a Connect GET whose message is not
// base64 got HTTP 500, code unknown, "read message: illegal base64 data
// at input byte 0". The gzip below is connect's own (compress/gzip) with
// its errors replaced by one of ours, and connectGET refuses the bad GET
// before connect reads it.

// errNotGzip is what a client is told about a body gzip cannot read.
var errNotGzip = errors.New("the message is not valid gzip")

// quietGzip is a connect.Decompressor over compress/gzip whose errors say
// errNotGzip instead of the library's text.
type quietGzip struct{ r gzip.Reader }

// Read reads decompressed bytes; io.EOF passes, other errors are errNotGzip.
func (q *quietGzip) Read(p []byte) (int, error) {
	n, err := q.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = errNotGzip
	}
	return n, err
}

// Reset starts reading a new gzip stream from r.
func (q *quietGzip) Reset(r io.Reader) error {
	if err := q.r.Reset(r); err != nil {
		return errNotGzip
	}
	return nil
}

// Close ends the stream.
func (q *quietGzip) Close() error {
	if err := q.r.Close(); err != nil {
		return errNotGzip
	}
	return nil
}

// quietGzipOption registers quietGzip for "gzip", in place of connect's
// default, with connect's own compressor.
func quietGzipOption() connect.HandlerOption {
	return connect.WithCompression("gzip",
		func() connect.Decompressor { return &quietGzip{} },
		func() connect.Compressor { return gzip.NewWriter(io.Discard) })
}

// connectGET refuses, with invalid_argument, a Connect GET whose message
// says base64=1 and is not URL-safe base64 (padded or not, as connect
// reads it); everything else goes to h.
func connectGET(h http.Handler, opts ...connect.HandlerOption) http.Handler {
	ew := connect.NewErrorWriter(opts...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			q := r.URL.Query()
			if q.Get("base64") == "1" && !isQueryBase64(q.Get("message")) {
				_ = ew.Write(w, r, connect.NewError(connect.CodeInvalidArgument,
					errors.New("the message query parameter is not URL-safe base64")))
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// isQueryBase64 reports whether s decodes as connect decodes a GET message.
func isQueryBase64(s string) bool {
	enc := base64.URLEncoding
	if len(s)%4 != 0 {
		enc = base64.RawURLEncoding
	}
	_, err := io.Copy(io.Discard, base64.NewDecoder(enc, strings.NewReader(s)))
	return err == nil
}
