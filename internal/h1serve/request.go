package h1serve

import (
	"bytes"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/hivegate/hivegate/internal/httpwire"
)

// request is what the fast path allocates for a request, in one piece:
// the http.Request, its context, body and URL, and room for the header
// values most clients send.
type request struct {
	req  http.Request
	rc   requestContext
	body body
	url  url.URL
	vals [8]string
}

// head is a parsed request head of the fast path.
type head struct {
	arrived       time.Time
	url           *url.URL
	header        http.Header
	host          string
	contentLength int64
	close         bool     // Connection: close
	req           *request // where the parts above live
}

// isRequestPrefix reports whether buf may still begin the request line the
// fast path serves.
func isRequestPrefix(buf []byte, path string) bool {
	n := min(len(buf), len("POST ")+len(path)+len(" HTTP/1.1\r\n"))
	for i := range n {
		if buf[i] != requestLineByte(path, i) {
			return false
		}
	}
	return true
}

func requestLineByte(path string, i int) byte {
	const method, proto = "POST ", " HTTP/1.1\r\n"
	switch {
	case i < len(method):
		return method[i]
	case i < len(method)+len(path):
		return path[i-len(method)]
	}
	return proto[i-len(method)-len(path)]
}

// parseHead parses buf, a whole request head ending in an empty line, into
// h; the header values go into vals (a new array when they do not fit) and
// the URL into u. It reports false when the request is not one the fast
// path serves: another request line; a header line that is not "name:
// value" with a token name and a value without control characters; no
// Host or several; no Content-Length, several, or one that is not a
// decimal number; any of Transfer-Encoding, Expect, Upgrade; a Connection
// other than keep-alive or close. net/http then answers it as it always
// would.
func parseHead(buf []byte, path string, h *head, vals []string, u *url.URL) bool {
	lineLen := len("POST ") + len(path) + len(" HTTP/1.1\r\n")
	if len(buf) < lineLen || !isRequestPrefix(buf[:lineLen], path) {
		return false
	}
	// One string holds every header value; the values are its slices.
	text := string(buf[lineLen : len(buf)-2])
	lines := bytes.Count(buf[lineLen:], []byte("\r\n")) - 1
	values := vals[:0]
	if cap(values) < lines {
		values = make([]string, 0, lines)
	}
	values = values[:lines]
	hdr := make(http.Header, lines)
	hosts, lengths := 0, 0
	for i := 0; len(text) > 0; i++ {
		eol := indexCRLF(text)
		if eol < 0 {
			return false
		}
		line := text[:eol]
		text = text[eol+2:]
		colon := strings.IndexByte(line, ':')
		if colon <= 0 || !httpwire.ValidHeaderName(line[:colon]) {
			return false
		}
		v := httpwire.TrimOWS(line[colon+1:])
		if !httpwire.ValidHeaderValue(v) {
			return false
		}
		key := canonicalKey(line[:colon])
		switch key {
		case "Host":
			hosts++
			if !validHost(v) {
				return false
			}
			h.host = v
		case "Content-Length":
			lengths++
			n, ok := httpwire.ParseContentLength(v)
			if !ok {
				return false
			}
			h.contentLength = n
		case "Connection":
			switch {
			case asciiEqualFold(v, "close"):
				h.close = true
			case asciiEqualFold(v, "keep-alive"):
			default:
				return false
			}
		case "Transfer-Encoding", "Expect", "Upgrade", "Te", "Http2-Settings", "Trailer":
			return false
		}
		if key == "Host" {
			continue // in r.Host only, as net/http has it
		}
		values[i] = v
		if prev := hdr[key]; prev != nil {
			hdr[key] = append(prev, v) // a new array: values stays intact
		} else {
			hdr[key] = values[i : i+1 : i+1]
		}
	}
	if hosts != 1 || lengths != 1 {
		return false
	}
	// As net/http: "Pragma: no-cache" without Cache-Control means it.
	if p := hdr["Pragma"]; len(p) > 0 && p[0] == "no-cache" && hdr["Cache-Control"] == nil {
		hdr["Cache-Control"] = []string{"no-cache"}
	}
	h.header = hdr
	*u = url.URL{Path: path}
	h.url = u
	return true
}

// canonicalKey returns the canonical form of a header name, without
// allocating for the names JSON-RPC clients send.
func canonicalKey(k string) string {
	switch k {
	case "Host", "host":
		return "Host"
	case "Content-Type", "content-type":
		return "Content-Type"
	case "Content-Length", "content-length":
		return "Content-Length"
	case "User-Agent", "user-agent":
		return "User-Agent"
	case "Accept", "accept":
		return "Accept"
	case "Accept-Encoding", "accept-encoding":
		return "Accept-Encoding"
	case "Connection", "connection":
		return "Connection"
	case "Origin", "origin":
		return "Origin"
	case "X-Request-Id", "x-request-id":
		return "X-Request-Id"
	case "X-Forwarded-For", "x-forwarded-for":
		return "X-Forwarded-For"
	case "X-Real-Ip", "x-real-ip":
		return "X-Real-Ip"
	}
	return textproto.CanonicalMIMEHeaderKey(k)
}

// validHost reports whether v is a host[:port] made of the characters a
// DNS name, an IPv4 or a bracketed IPv6 address use. Anything else goes to
// net/http, which knows the full grammar.
func validHost(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || c == '_':
		default:
			return false
		}
	}
	return true
}

// indexCRLF returns where the first line of s ends (its CR), or -1 when
// that line has no CRLF or holds a bare CR.
func indexCRLF(s string) int {
	i := strings.IndexByte(s, '\n')
	if i <= 0 || s[i-1] != '\r' || strings.IndexByte(s[:i-1], '\r') >= 0 {
		return -1
	}
	return i - 1
}

// asciiEqualFold reports whether s equals the lower-case ASCII word t,
// ignoring case.
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != t[i] {
			return false
		}
	}
	return true
}
