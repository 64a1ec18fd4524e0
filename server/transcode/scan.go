package transcode

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects the decoder accepts.
const maxDepth = 1000

// decoder is a small hand-written JSON scanner that decodes straight into
// protobuf messages; it never builds an intermediate tree.
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
	c := d.peek()
	got := "end of input"
	switch {
	case c == '"':
		got = "a string"
	case c == '{':
		got = "an object"
	case c == '[':
		got = "an array"
	case c == 't' || c == 'f':
		got = "a boolean"
	case c == 'n':
		got = "null"
	case c == '-' || isDigit(c):
		got = "a number"
	case c != 0:
		got = fmt.Sprintf("invalid character %q", c)
	}
	return d.errorf("expected %s, got %s", want, got)
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
// call. Invalid UTF-8 is replaced by U+FFFD, as encoding/json does.
func (d *decoder) readString() (s []byte, escaped bool, err error) {
	if d.peek() != '"' {
		return nil, false, d.unexpected("a string")
	}
	start := d.pos + 1
	ascii := true
	for i := start; i < len(d.data); i++ {
		switch c := d.data[i]; {
		case c == '"':
			s = d.data[start:i]
			if !ascii && !utf8.Valid(s) {
				return d.readStringSlow(start)
			}
			d.pos = i + 1
			return s, false, nil
		case c == '\\':
			return d.readStringSlow(start)
		case c < 0x20:
			d.pos = i
			return nil, false, d.errorf("invalid control character %#x in string", c)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	d.pos = len(d.data)
	return nil, false, d.errorf("unterminated string")
}

// readStringSlow decodes a string with escapes or invalid UTF-8 into scratch.
func (d *decoder) readStringSlow(start int) ([]byte, bool, error) {
	out := d.scratch[:0]
	i := start
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.scratch = out
			return out, true, nil
		case c < 0x20:
			d.pos = i
			return nil, false, d.errorf("invalid control character %#x in string", c)
		case c == '\\':
			if i+1 >= len(d.data) {
				d.pos = i
				return nil, false, d.errorf("unterminated string")
			}
			e := d.data[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.data[i:])
				if !ok {
					d.pos = i
					return nil, false, d.errorf("invalid \\u escape in string")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+6 <= len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
						r2, ok = hex4(d.data[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				d.pos = i - 1
				return nil, false, d.errorf("invalid escape character %q in string", e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, "\uFFFD"...)
			} else {
				out = append(out, d.data[i:i+size]...)
			}
			i += size
		}
	}
	d.pos = len(d.data)
	return nil, false, d.errorf("unterminated string")
}

// hex4 parses four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
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

// readNumber consumes a JSON number and returns its literal text.
func (d *decoder) readNumber() ([]byte, error) {
	d.peek()
	start := d.pos
	i := start
	n := len(d.data)
	if i < n && d.data[i] == '-' {
		i++
	}
	switch {
	case i < n && d.data[i] == '0':
		i++
	case i < n && d.data[i] >= '1' && d.data[i] <= '9':
		for i < n && isDigit(d.data[i]) {
			i++
		}
	default:
		return nil, d.unexpected("a number")
	}
	if i < n && d.data[i] == '.' {
		i++
		if i >= n || !isDigit(d.data[i]) {
			d.pos = i
			return nil, d.errorf("invalid number: no digits after the decimal point")
		}
		for i < n && isDigit(d.data[i]) {
			i++
		}
	}
	if i < n && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < n && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if i >= n || !isDigit(d.data[i]) {
			d.pos = i
			return nil, d.errorf("invalid number: no digits in the exponent")
		}
		for i < n && isDigit(d.data[i]) {
			i++
		}
	}
	d.pos = i
	return d.data[start:i], nil
}

// skipValue consumes any JSON value, checking its syntax.
func (d *decoder) skipValue() error {
	switch c := d.peek(); {
	case c == '"':
		_, _, err := d.readString()
		return err
	case c == '{':
		if err := d.enter(); err != nil {
			return err
		}
		defer d.leave()
		d.pos++
		if d.peek() == '}' {
			d.pos++
			return nil
		}
		for {
			if _, _, err := d.readString(); err != nil {
				return err
			}
			if err := d.expect(':', "':' after object key"); err != nil {
				return err
			}
			if err := d.skipValue(); err != nil {
				return err
			}
			if done, err := d.next('}'); done || err != nil {
				return err
			}
		}
	case c == '[':
		if err := d.enter(); err != nil {
			return err
		}
		defer d.leave()
		d.pos++
		if d.peek() == ']' {
			d.pos++
			return nil
		}
		for {
			if err := d.skipValue(); err != nil {
				return err
			}
			if done, err := d.next(']'); done || err != nil {
				return err
			}
		}
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	default:
		_, err := d.readNumber()
		return err
	}
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
