package jsonwire

import (
	"encoding/binary"
	"math/bits"
)

// IsSpace reports whether c is JSON whitespace: space, tab, CR or LF.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace (len(data) when there is none).
func SkipSpace(data []byte, i int) int {
	for i < len(data) && IsSpace(data[i]) {
		i++
	}
	return i
}

// TrimSpace returns data without the JSON whitespace around it. Unlike
// bytes.TrimSpace it leaves other Unicode spaces, which JSON does not allow,
// for the validator to refuse.
func TrimSpace(data []byte) []byte {
	i := SkipSpace(data, 0)
	j := len(data)
	for j > i && IsSpace(data[j-1]) {
		j--
	}
	return data[i:j]
}

// SWAR constants for plainRun: every byte 0x01, every byte 0x80.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// plainRun returns the index of the first byte at or after i that ends a
// run of plain string content: a quote, a backslash or a control character
// (len(b) when there is none). It tests eight bytes at a time.
func plainRun(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q := w ^ (lsb * '"')
		s := w ^ (lsb * '\\')
		// A byte of the mask is set where q or s has a zero byte, or w a
		// byte under 0x20. Only the lowest flagged byte is exact (borrows
		// may flag bytes above it), and it is the one wanted.
		mask := ((q - lsb) &^ q) | ((s - lsb) &^ s) | ((w - lsb*0x20) &^ w)
		if mask &= msb; mask != 0 {
			return i + bits.TrailingZeros64(mask)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// ScanString checks the string literal whose opening quote is at data[i]
// and returns the index just after its closing quote, and whether it holds
// escapes (a literal without escapes means its bytes between the quotes).
func ScanString(data []byte, i int) (end int, escaped bool, err error) {
	if i >= len(data) || data[i] != '"' {
		return i, false, unexpected(data, i, "a string")
	}
	j := i + 1
	for {
		if j = plainRun(data, j); j >= len(data) {
			return len(data), escaped, syntaxError(len(data), "unterminated string")
		}
		switch c := data[j]; c {
		case '"':
			return j + 1, escaped, nil
		case '\\':
			escaped = true
			if j+1 >= len(data) {
				return len(data), escaped, syntaxError(len(data), "unterminated string")
			}
			switch e := data[j+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if _, ok := hex4(data, j+2); !ok {
					return j, escaped, syntaxError(j, `invalid \u escape in string`)
				}
				j += 6
			default:
				return j + 1, escaped, syntaxError(j+1, "invalid escape character %q in string", e)
			}
		default:
			return j, escaped, syntaxError(j, "invalid control character %#x in string", c)
		}
	}
}

// hex4 reads the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// ScanNumber checks the number that starts at data[i] and returns the index
// just after it. It reads the longest number there is: "01" is the number
// 0 followed by a byte the caller must refuse.
func ScanNumber(data []byte, i int) (end int, err error) {
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i+1)
	default:
		if i > start {
			return i, unexpected(data, i, "a digit after '-'")
		}
		return i, unexpected(data, i, "a number")
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return j, syntaxError(j, "invalid number: no digits after the decimal point")
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return j, syntaxError(j, "invalid number: no digits in the exponent")
		}
		i = j
	}
	return i, nil
}

// scanLiteral checks that the word (true, false or null) starts at data[i]
// and returns the index after it.
func scanLiteral(data []byte, i int, word string) (int, error) {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return i, syntaxError(i, "invalid literal, expected %s", word)
	}
	return i + len(word), nil
}

// scanScalar checks the string, number or literal that starts at data[i]
// and returns the index after it.
func scanScalar(data []byte, i int) (int, error) {
	if i >= len(data) {
		return i, syntaxError(i, "unexpected end of JSON input")
	}
	switch c := data[i]; {
	case c == '"':
		end, _, err := ScanString(data, i)
		return end, err
	case c == '-' || isDigit(c):
		return ScanNumber(data, i)
	case c == 't':
		return scanLiteral(data, i, "true")
	case c == 'f':
		return scanLiteral(data, i, "false")
	case c == 'n':
		return scanLiteral(data, i, "null")
	}
	return i, unexpected(data, i, "a value")
}
