package backend

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/hivegate/hivegate/internal/httpwire"
)

// The answers of hivegate's upstream client (h1conn.go): parsed from the
// connection's bufio.Reader, reading only what their framing needs.
// Requests are written by h1request.go.

// maxHeaderBytes bounds the status lines and header sections of one answer
// (1xx interim answers included) and the trailer of a chunked body.
const maxHeaderBytes = 64 << 10

var (
	// errHeaderTooLarge reports an answer whose header section is too large.
	errHeaderTooLarge = fmt.Errorf("backend: answer's header section over %d bytes", maxHeaderBytes)
	// errMalformed reports an answer that is not valid HTTP/1.x; the error
	// wrapping it says what was wrong.
	errMalformed = errors.New("backend: malformed HTTP answer")
)

// malformed returns an errMalformed error with details.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// bodyMode is how the body of the answer being read is framed.
type bodyMode uint8

const (
	bodyDone    bodyMode = iota // read to its end (or none)
	bodyLength                  // Content-Length: remaining bytes left
	bodyChunked                 // Transfer-Encoding: chunked
	bodyToEOF                   // neither: up to the connection's end
)

// readHead reads the answer's status line and header section, skipping 1xx
// interim answers, and sets up the body. It records whether any byte of the
// answer arrived (c.gotBytes), which decides whether a failure on a reused
// connection may be retried.
func (c *h1conn) readHead() error {
	c.gotBytes = false
	budget := maxHeaderBytes
	for {
		c.status = 0
		line, err := c.readLine(&budget)
		if err != nil {
			if c.gotBytes && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if err := c.parseStatus(line); err != nil {
			return err
		}
		if err := c.readHeaders(&budget); err != nil {
			return err
		}
		switch {
		case c.status == 101:
			return malformed("unexpected 101 Switching Protocols")
		case c.status < 200:
			continue // interim answer (100 Continue, 103 Early Hints): the real one follows
		}
		return c.frameBody()
	}
}

// readLine returns the next line without its line ending (CRLF or LF),
// charging it to budget. A line longer than the read buffer is consumed but
// only its start is returned (long). The line is valid until the next read.
func (c *h1conn) readLine(budget *int) ([]byte, error) {
	line, err := c.br.ReadSlice('\n')
	if len(line) > 0 {
		c.gotBytes = true
	}
	*budget -= len(line)
	if *budget < 0 {
		return nil, errHeaderTooLarge
	}
	if err == bufio.ErrBufferFull {
		return nil, c.skipLongLine(line, budget)
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// skipLongLine handles a line longer than the read buffer, of which start
// is the beginning: a header hivegate does not read is skipped (the budget
// still bounds it) and errSkipped returned; anything else is an error.
func (c *h1conn) skipLongLine(start []byte, budget *int) error {
	if c.status == 0 || headerOf(start) != hdrOther {
		return malformed("line over %d bytes: %.40q...", len(start), start)
	}
	for {
		more, err := c.br.ReadSlice('\n')
		*budget -= len(more)
		switch {
		case *budget < 0:
			return errHeaderTooLarge
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return io.ErrUnexpectedEOF
		case err != nil:
			return err
		}
		return errSkipped
	}
}

// errSkipped is readLine's error for a long header line it skipped.
var errSkipped = errors.New("backend: long header line skipped")

// parseStatus reads a status line such as "HTTP/1.1 200 OK".
func (c *h1conn) parseStatus(line []byte) error {
	c.status = 0
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') {
		return malformed("status line %.80q", line)
	}
	minor := line[7]
	if minor < '0' || minor > '9' {
		return malformed("status line %.80q", line)
	}
	status := 0
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return malformed("status line %.80q", line)
		}
		status = status*10 + int(d-'0')
	}
	if status < 100 {
		return malformed("status line %.80q", line)
	}
	c.status = status
	c.http10 = minor == '0'
	return nil
}

// header identifies the answer headers hivegate reads.
type header uint8

const (
	hdrOther header = iota
	hdrContentLength
	hdrTransferEncoding
	hdrConnection
	hdrContentEncoding
)

// headerOf returns which header a header line (or its start) is.
func headerOf(line []byte) header {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return hdrOther
	}
	switch name := line[:i]; {
	case bytes.EqualFold(name, []byte("Content-Length")):
		return hdrContentLength
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		return hdrTransferEncoding
	case bytes.EqualFold(name, []byte("Connection")):
		return hdrConnection
	case bytes.EqualFold(name, []byte("Content-Encoding")):
		return hdrContentEncoding
	}
	return hdrOther
}

// readHeaders reads the header section up to its blank line and records
// the headers that matter: framing, keep-alive and content coding.
func (c *h1conn) readHeaders(budget *int) error {
	c.contentLength, c.chunked, c.closeAfter, c.keepAliveToken, c.gzipped = -1, false, false, false, false
	for {
		line, err := c.readLine(budget)
		if err == errSkipped {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if len(line) == 0 {
			return nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			return malformed("obsolete header line folding")
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return malformed("header line %.80q", line)
		}
		value := bytes.Trim(line[i+1:], " \t")
		switch headerOf(line) {
		case hdrContentLength:
			n, ok := httpwire.ParseContentLength(value)
			if !ok || (c.contentLength >= 0 && c.contentLength != n) {
				return malformed("Content-Length %.40q", value)
			}
			c.contentLength = n
		case hdrTransferEncoding:
			for tok := range tokens(value) {
				switch {
				case bytes.EqualFold(tok, []byte("chunked")) && !c.chunked:
					c.chunked = true
				case bytes.EqualFold(tok, []byte("identity")):
				default:
					return malformed("unsupported Transfer-Encoding %.40q", value)
				}
			}
		case hdrConnection:
			for tok := range tokens(value) {
				switch {
				case bytes.EqualFold(tok, []byte("close")):
					c.closeAfter = true
				case bytes.EqualFold(tok, []byte("keep-alive")):
					c.keepAliveToken = true
				}
			}
		case hdrContentEncoding:
			switch {
			case bytes.EqualFold(value, []byte("gzip")), bytes.EqualFold(value, []byte("x-gzip")):
				c.gzipped = true
			default:
				c.gzipped = false // identity, or a coding hivegate did not ask for: left as is
			}
		}
	}
}

// tokens yields the non-empty, trimmed elements of a comma-separated list.
func tokens(v []byte) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(v) > 0 {
			tok := v
			if i := bytes.IndexByte(v, ','); i >= 0 {
				tok, v = v[:i], v[i+1:]
			} else {
				v = nil
			}
			if tok = bytes.Trim(tok, " \t"); len(tok) > 0 && !yield(tok) {
				return
			}
		}
	}
}

// frameBody sets up the reading of the body from the header section, and
// whether the connection may carry another request afterwards.
func (c *h1conn) frameBody() error {
	c.keepAlive = !c.closeAfter && (!c.http10 || c.keepAliveToken)
	c.chunkLeft, c.chunkEnd = 0, false
	switch {
	case c.status == 204 || c.status == 304:
		c.mode = bodyDone
	case c.chunked:
		c.mode = bodyChunked
		if c.contentLength >= 0 {
			c.keepAlive = false // both framings: trust chunked, not the connection (RFC 9112 6.3)
		}
		c.contentLength = -1
	case c.contentLength == 0:
		c.mode = bodyDone
	case c.contentLength > 0:
		c.mode = bodyLength
		c.remaining = c.contentLength
	default:
		c.mode = bodyToEOF
		c.keepAlive = false
	}
	return nil
}

// bodyLen is the length of the body as read (after content decoding), or
// -1 when it is not known in advance.
func (c *h1conn) bodyLen() int64 {
	if c.gzipped {
		return -1
	}
	if c.mode == bodyDone {
		return 0
	}
	return c.contentLength
}

// Read reads the answer's body as framed, without content decoding: it
// returns io.EOF at the body's end, and io.ErrUnexpectedEOF when the
// connection ends first.
func (c *h1conn) Read(p []byte) (int, error) {
	switch c.mode {
	case bodyLength:
		if int64(len(p)) > c.remaining {
			p = p[:c.remaining]
		}
		n, err := c.br.Read(p)
		c.remaining -= int64(n)
		if c.remaining == 0 {
			c.mode = bodyDone
			if err != nil {
				c.keepAlive = false
			}
			return n, io.EOF
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, err
	case bodyChunked:
		return c.readChunked(p)
	case bodyToEOF:
		n, err := c.br.Read(p)
		if err == io.EOF {
			c.mode = bodyDone
		}
		return n, err
	}
	return 0, io.EOF
}

// ReadByte reads one byte of the body, like Read; it makes c a
// flate.Reader, so a gzip reader reads it without a buffer of its own.
func (c *h1conn) ReadByte() (byte, error) {
	switch c.mode {
	case bodyLength:
		b, err := c.br.ReadByte()
		if err != nil {
			return 0, bodyErr(err)
		}
		if c.remaining--; c.remaining == 0 {
			c.mode = bodyDone
		}
		return b, nil
	case bodyChunked:
		for c.chunkLeft == 0 {
			if err := c.nextChunk(); err != nil {
				return 0, err
			}
			if c.mode == bodyDone {
				return 0, io.EOF
			}
		}
		b, err := c.br.ReadByte()
		if err != nil {
			return 0, bodyErr(err)
		}
		c.chunkLeft--
		c.chunkEnd = c.chunkLeft == 0
		return b, nil
	case bodyToEOF:
		b, err := c.br.ReadByte()
		if err == io.EOF {
			c.mode = bodyDone
		}
		return b, err
	}
	return 0, io.EOF
}

// readChunked reads a chunked body (RFC 9112 7.1); chunk extensions and
// trailer fields are read and ignored.
func (c *h1conn) readChunked(p []byte) (int, error) {
	for c.chunkLeft == 0 {
		if err := c.nextChunk(); err != nil {
			return 0, err
		}
		if c.mode == bodyDone {
			return 0, io.EOF
		}
	}
	if int64(len(p)) > c.chunkLeft {
		p = p[:c.chunkLeft]
	}
	n, err := c.br.Read(p)
	c.chunkLeft -= int64(n)
	c.chunkEnd = c.chunkLeft == 0
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// nextChunk reads the line ending the previous chunk's data, if any, and
// the next chunk's size line; at the last chunk it reads the trailer and
// ends the body.
func (c *h1conn) nextChunk() error {
	budget := maxHeaderBytes
	if c.chunkEnd {
		line, err := c.readLine(&budget)
		if err != nil {
			return bodyErr(err)
		}
		if len(line) != 0 {
			return malformed("chunk data longer than its size")
		}
		c.chunkEnd = false
	}
	line, err := c.readLine(&budget)
	if err != nil {
		return bodyErr(err)
	}
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i] // a chunk extension
	}
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || len(line) > 15 {
		return malformed("chunk size %.40q", line)
	}
	var size int64
	for _, d := range line {
		switch {
		case '0' <= d && d <= '9':
			d -= '0'
		case 'a' <= d && d <= 'f':
			d -= 'a' - 10
		case 'A' <= d && d <= 'F':
			d -= 'A' - 10
		default:
			return malformed("chunk size %.40q", line)
		}
		size = size<<4 | int64(d)
	}
	if size > 0 {
		c.chunkLeft = size
		return nil
	}
	for { // the trailer section, up to its blank line
		line, err := c.readLine(&budget)
		if err == errSkipped {
			continue
		}
		if err != nil {
			return bodyErr(err)
		}
		if len(line) == 0 {
			c.mode = bodyDone
			return nil
		}
	}
}

// bodyErr maps the end of the connection inside a body to
// io.ErrUnexpectedEOF.
func bodyErr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// decoded returns the reader of the answer's body after content decoding:
// c itself, or a pooled gzip reader over it (released by release).
func (c *h1conn) decoded() (io.Reader, error) {
	if !c.gzipped || c.mode == bodyDone {
		return c, nil
	}
	zr, _ := c.pool.gzips.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(c)
	} else {
		err = zr.Reset(c)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // an empty body is not a gzip stream
		}
		return nil, fmt.Errorf("gzip: %w", err)
	}
	c.gz = zr
	return zr, nil
}
