package jsonrpc

import (
	"encoding/json"
	"errors"

	"github.com/hivegate/hivegate/internal/jsonscan"
)

var (
	errTooDeep   = errors.New("nested too deeply")
	errEmptyBody = errors.New("empty body")
	errInvalid   = errors.New("invalid JSON")
)

// checkJSON validates data as one JSON value no deeper than maxDepth, in
// one pass over the bytes. It accepts exactly what json.Valid accepts
// (FuzzCheckJSON compares them), invalid UTF-8 inside strings included. A
// body that is both too deep and invalid is invalid: past maxDepth the
// verdict is json.Valid's.
func checkJSON(data []byte, maxDepth int) error {
	if len(data) == 0 {
		return errEmptyBody
	}
	switch err := validate(data, maxDepth); {
	case err == nil:
		return nil
	case errors.Is(err, errTooDeep) && json.Valid(data):
		return errTooDeep
	default:
		return errInvalid
	}
}

// validate is checkJSON's single pass.
func validate(b []byte, maxDepth int) error {
	var stackArr [DefaultMaxDepth]bool // the open containers, true for an object
	stack := stackArr[:0]
	i := 0
	for {
		// A value starts at i.
		i = skipWS(b, i)
		if i >= len(b) {
			return errInvalid
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return errTooDeep
			}
			obj := c == '{'
			stack = append(stack, obj)
			i = skipWS(b, i+1)
			if i < len(b) && b[i] == closer(obj) {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if obj {
				var ok bool
				if i, ok = validKey(b, i); !ok {
					return errInvalid
				}
			}
			continue
		case c == '"':
			end, ok := validString(b, i)
			if !ok {
				return errInvalid
			}
			i = end
		case c == '-' || (c >= '0' && c <= '9'):
			end, ok := validNumber(b, i)
			if !ok {
				return errInvalid
			}
			i = end
		case c == 't':
			if !hasLiteral(b, i, "true") {
				return errInvalid
			}
			i += 4
		case c == 'f':
			if !hasLiteral(b, i, "false") {
				return errInvalid
			}
			i += 5
		case c == 'n':
			if !hasLiteral(b, i, "null") {
				return errInvalid
			}
			i += 4
		default:
			return errInvalid
		}
		// A value ended at i: close containers, or go on to the next
		// element or member.
		for {
			i = skipWS(b, i)
			if len(stack) == 0 {
				if i != len(b) {
					return errInvalid
				}
				return nil
			}
			if i >= len(b) {
				return errInvalid
			}
			obj := stack[len(stack)-1]
			if b[i] == ',' {
				i++
				if obj {
					var ok bool
					if i, ok = validKey(b, i); !ok {
						return errInvalid
					}
				}
				break
			}
			if b[i] != closer(obj) {
				return errInvalid
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// key validates `"name" :` at or after i and returns the index after the colon.
func validKey(b []byte, i int) (int, bool) {
	i = skipWS(b, i)
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := validString(b, i)
	if !ok {
		return i, false
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// closer is the byte that closes an object (obj) or an array.
func closer(obj bool) byte {
	if obj {
		return '}'
	}
	return ']'
}

// validString validates the string whose opening quote is at b[i] and
// returns the index after its closing quote.
func validString(b []byte, i int) (int, bool) {
	i++
	for {
		if i = jsonscan.PlainRun(b, i); i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return i, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHexDigit(h) {
						return i, false
					}
				}
				i += 6
			default:
				return i, false
			}
		default: // a control character
			return i, false
		}
	}
}

// validNumber validates the number that starts at b[i] and returns the
// index after it.
func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// hasLiteral reports whether lit starts at b[i].
func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

func isHexDigit(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
