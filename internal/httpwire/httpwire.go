// Package httpwire holds the HTTP/1.1 field rules shared by hivegate's own
// HTTP/1.1 client (backend) and server (internal/h1serve): what a header
// name and a header value may contain on the wire.
package httpwire

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
