package jsonwire

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrInvalid is wrapped by every error about input that breaks the JSON
// grammar.
var ErrInvalid = errors.New("invalid JSON")

// ErrTooDeep is wrapped by every error about input nested deeper than the
// limit a caller gave; such an error does not wrap ErrInvalid.
var ErrTooDeep = errors.New("JSON nested too deeply")

// Error is what went wrong and where. It wraps ErrTooDeep when the input is
// nested too deeply, ErrInvalid otherwise.
type Error struct {
	// Offset is the byte offset in the input where the problem was found;
	// it is the input's length when the input ended too early.
	Offset int
	// Msg says what was wrong, for example "invalid escape character 'q'
	// in string" or "JSON nested deeper than 64 levels".
	Msg     string
	tooDeep bool
}

// Error implements error.
func (e *Error) Error() string {
	return e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns ErrTooDeep or ErrInvalid.
func (e *Error) Unwrap() error {
	if e.tooDeep {
		return ErrTooDeep
	}
	return ErrInvalid
}

// syntaxError returns an *Error wrapping ErrInvalid.
func syntaxError(off int, format string, args ...any) error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// tooDeep returns an *Error wrapping ErrTooDeep.
func tooDeep(off, maxDepth int) error {
	return &Error{Offset: off, Msg: fmt.Sprintf("JSON nested deeper than %d levels", maxDepth), tooDeep: true}
}

// unexpected reports that data[i] does not start what was wanted ("a value",
// "',' or ']'").
func unexpected(data []byte, i int, want string) error {
	return syntaxError(i, "expected %s, got %s", want, Describe(data, i))
}

// Describe names the token that starts at data[i] for error messages:
// "a string", "an object", "an array", "a boolean", "null", "a number",
// "invalid character 'x'" or "end of input".
func Describe(data []byte, i int) string {
	if i >= len(data) {
		return "end of input"
	}
	switch c := data[i]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || isDigit(c):
		return "a number"
	default:
		return fmt.Sprintf("invalid character %q", c)
	}
}
