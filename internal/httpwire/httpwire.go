// Package httpwire holds the HTTP/1.1 field rules shared by hivegate's own
// HTTP/1.1 client (backend) and server (internal/h1serve): what a header
// name and a header value may contain on the wire.
package httpwire

import (
	"strings"
	"time"
)

// ValidHeaderName reports whether k is a non-empty token (RFC 9110 5.1).
func ValidHeaderName[T string | []byte](k T) bool {
	if len(k) == 0 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !IsTokenByte(k[i]) {
			return false
		}
	}
	return true
}

// IsTokenByte reports whether c may appear in a token (RFC 9110 5.6.2).
func IsTokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

// ValidHeaderValue reports whether v holds no control character other than
// a tab (RFC 9110 5.5); bytes >= 0x80 are allowed.
func ValidHeaderValue[T string | []byte](v T) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// maxContentLengthDigits bounds a Content-Length value: 18 digits always
// fit an int64.
const maxContentLengthDigits = 18

// ParseContentLength parses a Content-Length value: 1 to 18 decimal digits,
// no sign, no spaces, no list.
func ParseContentLength[T string | []byte](v T) (int64, bool) {
	if len(v) == 0 || len(v) > maxContentLengthDigits {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		d := v[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}

// TrimOWS trims the optional whitespace (spaces and tabs) around a header
// value (RFC 9110 5.6.3).
func TrimOWS(s string) string {
	return strings.Trim(s, " \t")
}

// LongAgo is a deadline in the past: setting it on a connection interrupts
// the I/O blocked on it.
func LongAgo() time.Time {
	return time.Unix(1, 0)
}
