package backend

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// errTrailingData reports bytes after the end of a gzip-encoded answer.
var errTrailingData = errors.New("backend: data after the end of the gzip stream")

// errEncoding reports an answer in a content encoding hivegate did not ask
// for.
var errEncoding = errors.New("backend: unsupported Content-Encoding")

// gzipBody decodes a gzip-encoded answer (klauspost/compress). It is
// pooled; one decodes one answer at a time.
type gzipBody struct {
	br *bufio.Reader // over the raw body: gzip reads it byte-wise, without a buffer of its own
	zr gzip.Reader
}

// Read reads the decoded answer. At the end of the gzip stream it checks
// that the raw body ends there too, so that a trailing byte is an error
// (not an answer to some later request) and the connection is reused only
// after the whole body was read.
func (g *gzipBody) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if errors.Is(err, io.EOF) {
		if _, rerr := g.br.ReadByte(); rerr != io.EOF {
			if rerr == nil {
				rerr = errTrailingData
			}
			return n, rerr
		}
	}
	return n, err
}

// decodedBody returns the reader of resp's decoded body: the body itself,
// or a pooled gzip decoder (release it with putGzip). An encoding other
// than gzip or identity is an error.
func (p *Pool) decodedBody(resp *http.Response) (io.Reader, *gzipBody, error) {
	ce := resp.Header.Get("Content-Encoding")
	switch {
	case ce == "" || strings.EqualFold(ce, "identity"):
		return resp.Body, nil, nil
	case strings.EqualFold(ce, "gzip") || strings.EqualFold(ce, "x-gzip"):
	default:
		return nil, nil, errEncoding
	}
	g, _ := p.gzips.Get().(*gzipBody)
	if g == nil {
		g = &gzipBody{br: bufio.NewReaderSize(resp.Body, 4<<10)}
	} else {
		g.br.Reset(resp.Body)
	}
	if err := g.zr.Reset(g.br); err != nil {
		p.putGzip(g)
		return nil, nil, err
	}
	g.zr.Multistream(false)
	return g, g, nil
}

// putGzip returns a decoder to the pool.
func (p *Pool) putGzip(g *gzipBody) {
	if g == nil {
		return
	}
	g.br.Reset(nil)
	p.gzips.Put(g)
}
