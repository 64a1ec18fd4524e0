package transcode

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/hivegate/hivegate/jsonwire"
)

// maxDepth bounds the nesting of arrays and objects the decoder accepts.
const maxDepth = jsonwire.MaxDepth

// decoder decodes straight into protobuf messages; it never builds an
// intermediate tree. It walks the document's structure itself (it needs
// the path for its errors) and leaves the lexing of strings, numbers and
// skipped values to jsonwire.
type decoder struct {
	data    []byte
	pos     int
	depth   int
	path    []pathSeg
	unknown Unknown
	scratch []byte // unescaped string contents
	out     []byte // the protobuf wire encoding being built
}

// errorf returns an *Error at the current path and offset.
func (d *decoder) errorf(format string, args ...any) error {
	return &Error{Path: renderPath(d.path), Offset: d.pos, Msg: fmt.Sprintf(format, args...)}
}

// peek skips whitespace and returns the next byte, or 0 at the end.
func (d *decoder) peek() byte {
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; c {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return c
		}
	}
	return 0
}

// unexpected describes the value starting at the current position, for errors.
func (d *decoder) unexpected(want string) error {
	d.peek()
	return d.errorf("expected %s, got %s", want, jsonwire.Describe(d.data, d.pos))
}

// lexError turns an error of jsonwire into an *Error at the current path,
// at the offset jsonwire found the problem.
func (d *decoder) lexError(err error) error {
	var e *jsonwire.Error
	if !errors.As(err, &e) {
		return d.errorf("%v", err)
	}
	d.pos = e.Offset
	if errors.Is(err, jsonwire.ErrTooDeep) {
		return d.errorf("JSON nested deeper than %d levels", maxDepth)
	}
	return d.errorf("%s", e.Msg)
}

// expect consumes byte c (after whitespace) or fails.
func (d *decoder) expect(c byte, want string) error {
	if d.peek() != c {
		return d.unexpected(want)
	}
	d.pos++
	return nil
}

// literal consumes one of the words null, true, false.
func (d *decoder) literal(word string) error {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(word)) {
		return d.errorf("invalid literal, expected %s", word)
	}
	d.pos += len(word)
	return nil
}

// enter and leave track nesting depth.
func (d *decoder) enter() error {
	d.depth++
	if d.depth > maxDepth {
		return d.errorf("JSON nested deeper than %d levels", maxDepth)
	}
	return nil
}

func (d *decoder) leave() { d.depth-- }

// pushKey and pushIndex extend the current path; pop removes the last step.
func (d *decoder) pushKey(k []byte) { d.path = append(d.path, pathSeg{key: k}) }
func (d *decoder) pushIndex(i int) {
	d.path = append(d.path, pathSeg{index: i, isIndex: true})
}
func (d *decoder) pop() { d.path = d.path[:len(d.path)-1] }

// addUnknown records the current path as unknown.
func (d *decoder) addUnknown() { d.unknown = append(d.unknown, renderPath(d.path)) }

// readString consumes a JSON string and returns its contents. The result
// aliases the input when the string has no escapes and is valid UTF-8
// (escaped is false); otherwise it aliases d.scratch, valid until the next
// call. Lone surrogates and invalid UTF-8 become U+FFFD, as encoding/json
// does (jsonwire.AppendUnquote): protobuf strings must be valid UTF-8.
func (d *decoder) readString() (s []byte, escaped bool, err error) {
	if d.peek() != '"' {
		return nil, false, d.unexpected("a string")
	}
	start := d.pos
	end, esc, err := jsonwire.ScanString(d.data, start)
	if err != nil {
		return nil, false, d.lexError(err)
	}
	d.pos = end
	if s = d.data[start+1 : end-1]; !esc && utf8.Valid(s) {
		return s, false, nil
	}
	d.scratch = jsonwire.AppendUnquote(d.scratch[:0], d.data[start:end])
	return d.scratch, true, nil
}

// readNumber consumes a JSON number and returns its literal text.
func (d *decoder) readNumber() ([]byte, error) {
	d.peek()
	start := d.pos
	end, err := jsonwire.ScanNumber(d.data, start)
	if err != nil {
		return nil, d.lexError(err)
	}
	d.pos = end
	return d.data[start:end], nil
}

// skipValue consumes any JSON value, checking its syntax, within the depth
// left.
func (d *decoder) skipValue() error {
	d.peek()
	end, err := jsonwire.Skip(d.data, d.pos, maxDepth-d.depth)
	if err != nil {
		return d.lexError(err)
	}
	d.pos = end
	return nil
}

// next consumes the separator after an element: ',' (more follow, done is
// false) or the closing byte (done is true).
func (d *decoder) next(closing byte) (done bool, err error) {
	switch d.peek() {
	case ',':
		d.pos++
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.unexpected(fmt.Sprintf("',' or '%c'", closing))
}
