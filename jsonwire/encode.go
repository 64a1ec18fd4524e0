package jsonwire

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// safeSet marks the ASCII bytes written unescaped inside a JSON string:
// everything from 0x20 up except '"' and '\\'. Unlike encoding/json's
// default, '<', '>' and '&' are written raw, as hived and most Hive
// clients do. Every JSON string hivegate writes as text goes through here:
// error messages, request method names and the hived-JSON codec.
var safeSet = func() (s [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		s[c] = c != '"' && c != '\\'
	}
	return s
}()

// AppendString appends s to dst as a JSON string, with the escaping of
// encoding/json with SetEscapeHTML(false): \" \\ \b \f \n \r \t, other control bytes as
// \u00XX, invalid UTF-8 as \ufffd, and U+2028/U+2029 escaped.
func AppendString[S []byte | string](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safeSet[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		n := min(len(s)-i, utf8.UTFMax)
		c, size := utf8.DecodeRuneInString(string(s[i : i+n]))
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	dst = append(dst, '"')
	return dst
}
