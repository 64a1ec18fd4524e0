package h1serve

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/hivegate/hivegate/internal/httpwire"
)

// flushSize is the most a response buffers before writing: an answer up to
// this size (head included) goes out in one write, a bigger one in writes
// of about this size or in one vectored write of the buffer and a large
// piece.
const flushSize = 16 << 10

// maxKeptBuf is the largest buffer a connection keeps between requests.
const maxKeptBuf = 64 << 10

// sniffLen is how much of a body http.DetectContentType looks at.
const sniffLen = 512

// response is the fast path's http.ResponseWriter. A connection reuses one
// for all its requests; as with net/http's, a handler must not use it
// after returning.
//
// As with net/http, the header is taken at WriteHeader (or the first
// Write): later changes are ignored. An answer without a Content-Length
// from the handler is buffered whole and gets one; chunked encoding is
// never used, so the writer is not an http.Flusher (http.ResponseController
// reports ErrNotSupported) and trailers are not sent. Informational (1xx)
// status codes are not sent either. hivegate's JSON-RPC handler uses none
// of these.
type response struct {
	c   *conn
	hdr http.Header
	req *body

	status      int
	wroteHeader bool
	committed   bool  // the head is complete in out, or written
	declared    int64 // the handler's Content-Length; -1: none
	written     int64
	noBody      bool
	typeSet     bool // the handler set Content-Type (or suppressed it)
	dateSet     bool
	keepAlive   bool // the handler set Connection: keep-alive
	closeAfter  bool
	failed      error

	out  []byte // the head, then buffered body bytes
	body []byte // the body while the head waits for its length or type
	keys []string
}

// reset prepares w for a request; reqClose is the client's Connection:
// close.
func (w *response) reset(req *body, reqClose bool) {
	clear(w.hdr)
	w.req = req
	w.status, w.wroteHeader, w.committed = 0, false, false
	w.declared, w.written, w.noBody = -1, 0, false
	w.typeSet, w.dateSet, w.keepAlive = false, false, false
	w.closeAfter, w.failed = reqClose, nil
	if cap(w.out) > maxKeptBuf {
		w.out = nil
	}
	if cap(w.body) > maxKeptBuf {
		w.body = nil
	}
	w.out, w.body = w.out[:0], w.body[:0]
}

// Header implements http.ResponseWriter.
func (w *response) Header() http.Header { return w.hdr }

// WriteHeader implements http.ResponseWriter. It writes the status line
// and the handler's headers, sorted, into out.
func (w *response) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if code < 200 {
		return
	}
	w.wroteHeader, w.status = true, code
	w.noBody = code == http.StatusNoContent || code == http.StatusNotModified
	if v := w.hdr["Content-Length"]; len(v) > 0 {
		if n, ok := httpwire.ParseContentLength(v[0]); ok {
			w.declared = n
		}
	}
	if v := w.hdr["Connection"]; len(v) > 0 {
		w.closeAfter = w.closeAfter || asciiEqualFold(v[0], "close")
		w.keepAlive = asciiEqualFold(v[0], "keep-alive")
	}
	_, w.typeSet = w.hdr["Content-Type"]
	if _, chunked := w.hdr["Transfer-Encoding"]; chunked {
		w.typeSet = true // as net/http: no sniffing then
	}
	_, w.dateSet = w.hdr["Date"]
	b := appendStatusLine(w.out[:0], code)
	keys := w.keys[:0]
	for k := range w.hdr {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.keys = keys[:0]
	for _, k := range keys {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Connection", "Trailer":
			continue
		}
		if !httpwire.ValidHeaderName(k) {
			continue
		}
		for _, v := range w.hdr[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			b = appendValue(b, v)
			b = append(b, "\r\n"...)
		}
	}
	w.out = b
}

// Write implements http.ResponseWriter.
func (w *response) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	switch {
	case w.noBody:
		return 0, http.ErrBodyNotAllowed
	case w.failed != nil:
		return 0, w.failed
	case w.declared >= 0 && w.written+int64(len(p)) > w.declared:
		return 0, http.ErrContentLength
	}
	w.written += int64(len(p))
	if w.declared < 0 {
		w.body = append(w.body, p...)
		return len(p), nil
	}
	if !w.committed {
		if !w.typeSet {
			// The type is sniffed from the first sniffLen bytes.
			w.body = append(w.body, p...)
			if len(w.body) < sniffLen {
				return len(p), nil
			}
			data := w.body
			w.commit(data[:sniffLen], w.declared)
			err := w.push(data)
			w.body = data[:0]
			if err != nil {
				return 0, err
			}
			return len(p), nil
		}
		w.commit(nil, w.declared)
	}
	if err := w.push(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// push adds p to the answer: into out, or written with it when out would
// grow past flushSize.
func (w *response) push(p []byte) error {
	if len(w.out)+len(p) > flushSize {
		return w.send(p)
	}
	w.out = append(w.out, p...)
	return nil
}

// finish completes the answer after the handler returned, and reports
// whether it was written.
func (w *response) finish() bool {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.failed != nil {
		return false
	}
	ok := true
	if !w.committed {
		body := w.body
		length := int64(len(body))
		if w.declared >= 0 {
			length = w.declared
		}
		w.commit(body[:min(len(body), sniffLen)], length)
		if len(w.out)+len(body) <= flushSize {
			w.out = append(w.out, body...)
			body = nil
		}
		ok = w.send(body) == nil
	} else if len(w.out) > 0 {
		ok = w.send(nil) == nil
	}
	if !w.noBody && w.declared >= 0 && w.written < w.declared {
		// The client waits for bytes that will not come: as net/http,
		// end the connection (the head is out already).
		w.closeAfter = true
	}
	return ok
}

// send writes out and then p, in one system call, and empties out.
func (w *response) send(p []byte) error {
	var err error
	if len(p) == 0 {
		_, err = w.c.rwc.Write(w.out)
	} else {
		bufs := net.Buffers{w.out, p}
		_, err = bufs.WriteTo(w.c.rwc)
	}
	w.out = w.out[:0]
	if err != nil {
		w.failed = err
		w.closeAfter = true
	}
	return err
}

// commit completes the head in out after the handler's headers: a sniffed
// Content-Type when the handler set none (as net/http does, from sniff,
// the start of the body), Date, Content-Length (length, unless the status
// has no body), Connection: close when the connection ends after this
// answer, and the empty line.
func (w *response) commit(sniff []byte, length int64) {
	w.committed = true
	if w.req != nil && w.req.remaining > int64(w.c.br.Buffered()) {
		w.closeAfter = true // the rest of the request body is not read
	}
	if w.c.s.shutting.Load() {
		w.closeAfter = true
	}
	b := w.out
	if !w.typeSet && !w.noBody && len(sniff) > 0 {
		b = append(b, "Content-Type: "...)
		b = append(b, http.DetectContentType(sniff)...)
		b = append(b, "\r\n"...)
	}
	if !w.dateSet {
		b = append(b, w.c.s.dateLine(time.Now())...)
	}
	if !w.noBody {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, length, 10)
		b = append(b, "\r\n"...)
	}
	switch {
	case w.closeAfter:
		b = append(b, "Connection: close\r\n"...)
	case w.keepAlive:
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	w.out = append(b, "\r\n"...)
}

// appendStatusLine appends "HTTP/1.1 <code> <text>\r\n".
func appendStatusLine(b []byte, code int) []byte {
	if code == http.StatusOK {
		return append(b, "HTTP/1.1 200 OK\r\n"...)
	}
	b = append(b, "HTTP/1.1 "...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, ' ')
	if text := http.StatusText(code); text != "" {
		b = append(b, text...)
	} else {
		b = append(b, "status code "...)
		b = strconv.AppendInt(b, int64(code), 10)
	}
	return append(b, "\r\n"...)
}

// appendValue appends a header value with CR and LF turned into spaces, as
// net/http writes them.
func appendValue(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return b
}

// dateValue is a formatted Date header line and the second it is for.
type dateValue struct {
	unix int64
	line []byte
}

// dateLine returns "Date: <now in http.TimeFormat>\r\n", formatted once a
// second.
func (s *Server) dateLine(now time.Time) []byte {
	sec := now.Unix()
	if d := s.date.Load(); d != nil && d.unix == sec {
		return d.line
	}
	line := append([]byte("Date: "), now.UTC().AppendFormat(nil, http.TimeFormat)...)
	line = append(line, "\r\n"...)
	s.date.Store(&dateValue{unix: sec, line: line})
	return line
}
