package jsonwire

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// escape decodes the escape at s[i] == '\\' in the contents of a valid
// string literal and returns the code point and the number of bytes it
// spans. An escaped high surrogate followed by an escaped low one is one
// code point; an escaped surrogate alone is returned as itself (0xD800 to
// 0xDFFF): the caller decides what a lone surrogate becomes.
func escape(s []byte, i int) (rune, int) {
	switch s[i+1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, _ := hex4(s, i+2)
		if utf16.IsSurrogate(r) && r < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if r2, ok := hex4(s, i+8); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
				return utf16.DecodeRune(r, r2), 12
			}
		}
		return r, 6
	default: // '"', '\\', '/'
		return rune(s[i+1]), 2
	}
}

// contents returns the bytes between the quotes of the literal lit.
func contents(lit []byte) ([]byte, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil, false
	}
	return lit[1 : len(lit)-1], true
}

// AppendUnquote appends the text of the string literal lit (as ScanString
// accepts it, quotes included) to dst as UTF-8. Lone surrogates and bytes
// that are not valid UTF-8 become U+FFFD, as with encoding/json: the result
// is text for a consumer that needs valid UTF-8, never a way to tell two
// strings apart (see the package documentation). It appends nothing when
// lit is not a string literal.
func AppendUnquote(dst, lit []byte) []byte {
	s, ok := contents(lit)
	if !ok {
		return dst
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			r, n := escape(s, i)
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			i += n
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, "\uFFFD"...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
		}
	}
	return dst
}

// Unquote is AppendUnquote into a new string. A literal without escapes
// whose contents are valid UTF-8 costs one copy.
func Unquote(lit []byte) string {
	s, ok := contents(lit)
	if !ok {
		return ""
	}
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	return string(AppendUnquote(make([]byte, 0, len(s)), lit))
}

// EqualString reports whether the string literal lit (quotes included)
// means exactly s, code unit for code unit (see the package documentation):
// a lone surrogate equals nothing in s, and a byte that is not valid UTF-8
// equals only that byte. It is false when lit is not a string literal.
func EqualString(lit []byte, s string) bool {
	c, ok := contents(lit)
	if !ok {
		return false
	}
	if bytes.IndexByte(c, '\\') < 0 {
		return string(c) == s
	}
	j := 0
	for i := 0; i < len(c); {
		if c[i] != '\\' {
			if j >= len(s) || s[j] != c[i] {
				return false
			}
			i++
			j++
			continue
		}
		r, n := escape(c, i)
		if utf16.IsSurrogate(r) {
			return false
		}
		var buf [utf8.UTFMax]byte
		k := utf8.EncodeRune(buf[:], r)
		if len(s)-j < k || s[j:j+k] != string(buf[:k]) {
			return false
		}
		i += n
		j += k
	}
	return j == len(s)
}
