package backend

import (
	"errors"

	"github.com/hivegate/hivegate/internal/jsonscan"
)

// The scanner below validates JSON and finds where a value ends in one pass,
// without decoding anything. The pool uses it to locate the members of a
// backend's answer so that the result bytes are handed on exactly as the
// backend wrote them (no re-encoding, no allocation per value). It accepts
// exactly what encoding/json's Valid accepts (a fuzz test checks this),
// including invalid UTF-8 inside strings, which hived can emit and which is
// passed through untouched.

// errTruncated reports that the input ended inside a value.
var errTruncated = errors.New("truncated JSON")

// errSyntax reports a byte that cannot appear where it was found.
var errSyntax = errors.New("invalid JSON")

// isSpace reports whether c is JSON insignificant whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipValue validates the JSON value that starts at b[i] (after optional
// whitespace) and returns the index just past it. Nesting is tracked on an
// explicit stack, so deep input cannot exhaust the goroutine stack.
func skipValue(b []byte, i int) (int, error) {
	var stackArr [32]byte
	stack := stackArr[:0]
	var err error
	for {
		// Parse one value at i.
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, errTruncated
		}
		switch c := b[i]; {
		case c == '{':
			i = skipSpace(b, i+1)
			if i >= len(b) {
				return i, errTruncated
			}
			if b[i] == '}' {
				i++
				break
			}
			stack = append(stack, '{')
			if i, err = skipKey(b, i); err != nil {
				return i, err
			}
			continue
		case c == '[':
			i = skipSpace(b, i+1)
			if i >= len(b) {
				return i, errTruncated
			}
			if b[i] == ']' {
				i++
				break
			}
			stack = append(stack, '[')
			continue
		case c == '"':
			if i, err = skipString(b, i); err != nil {
				return i, err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if i, err = skipNumber(b, i); err != nil {
				return i, err
			}
		case c == 't':
			if i, err = skipLiteral(b, i, "true"); err != nil {
				return i, err
			}
		case c == 'f':
			if i, err = skipLiteral(b, i, "false"); err != nil {
				return i, err
			}
		case c == 'n':
			if i, err = skipLiteral(b, i, "null"); err != nil {
				return i, err
			}
		default:
			return i, errSyntax
		}
		// A value ended at i: close finished containers, or move on to the
		// next element or member.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, errTruncated
			}
			top := stack[len(stack)-1]
			c := b[i]
			if c == ',' {
				i++
				if top == '{' {
					if i, err = skipKey(b, i); err != nil {
						return i, err
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				i++
				stack = stack[:len(stack)-1]
				continue
			}
			return i, errSyntax
		}
	}
}

// skipKey validates `"key" :` at b[i] (after optional whitespace) and returns
// the index just past the colon.
func skipKey(b []byte, i int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return i, errTruncated
	}
	if b[i] != '"' {
		return i, errSyntax
	}
	i, err := skipString(b, i)
	if err != nil {
		return i, err
	}
	i = skipSpace(b, i)
	if i >= len(b) {
		return i, errTruncated
	}
	if b[i] != ':' {
		return i, errSyntax
	}
	return i + 1, nil
}

// skipString validates the string whose opening quote is at b[i] and returns
// the index just past its closing quote.
func skipString(b []byte, i int) (int, error) {
	i++ // opening quote
	for i < len(b) {
		if i = jsonscan.PlainRun(b, i); i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return len(b), errTruncated
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= len(b) {
						return len(b), errTruncated
					}
					if !isHex(b[k]) {
						return k, errSyntax
					}
				}
				i += 6
			default:
				return i + 1, errSyntax
			}
		case c < 0x20:
			return i, errSyntax
		default:
			i++
		}
	}
	return i, errTruncated
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// isDigit reports whether c is a decimal digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipNumber validates the number starting at b[i] and returns the index just
// past it. A number cut off by the end of input after '-', '.', 'e' or the
// exponent sign is truncated; a complete prefix like "12" is accepted here and
// left to the caller's context to judge.
func skipNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return i, errTruncated
	}
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, errSyntax
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) {
			return i, errTruncated
		}
		if !isDigit(b[i]) {
			return i, errSyntax
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) {
			return i, errTruncated
		}
		if !isDigit(b[i]) {
			return i, errSyntax
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, nil
}

// skipLiteral validates the literal lit (true, false or null) at b[i].
func skipLiteral(b []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(b) {
			return i + k, errTruncated
		}
		if b[i+k] != lit[k] {
			return i + k, errSyntax
		}
	}
	return i + len(lit), nil
}
