package jsonwire

import (
	"bytes"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendCanonical appends the canonical form of the JSON value v (with
// optional whitespace around it) to dst: compact, object members sorted by
// name at every level, numbers as written, strings with the fewest escapes
// and lone surrogates and invalid UTF-8 kept exactly. The package
// documentation gives the rules. v may be nested MaxDepth levels deep; an
// error wraps ErrInvalid or ErrTooDeep, and then dst's new bytes are
// meaningless.
//
// It allocates nothing when dst has room for the result, bar objects whose
// members must be reordered and whose bytes do not also fit in dst's spare
// capacity (one buffer per call then).
func AppendCanonical(dst, v []byte) ([]byte, error) {
	return appendCanonical(dst, v, false)
}

// AppendMatchForm is AppendCanonical with each number written as its exact
// value ([-]0.<digits>e<exponent>, or 0): 1, 1.0, 10e-1 and 0.1e1 are one
// form, -0 is 0. It compares JSON values when number spelling must not
// matter, as configured params= keys are compared with a call's params.
func AppendMatchForm(dst, v []byte) ([]byte, error) {
	return appendCanonical(dst, v, true)
}

func appendCanonical(dst, v []byte, normNumbers bool) ([]byte, error) {
	c := canon{data: v, normNumbers: normNumbers}
	dst, end, err := c.value(dst, SkipSpace(v, 0), MaxDepth)
	if err != nil {
		return dst, err
	}
	if i := SkipSpace(v, end); i != len(v) {
		return dst, syntaxError(i, "invalid character %q after top-level value", v[i])
	}
	return dst, nil
}

// canon writes one value's canonical form.
type canon struct {
	data        []byte
	normNumbers bool
	scratch     []byte // for reordering object members, allocated on first need
}

// value appends the canonical form of the value at data[i] (no whitespace
// before it), nested at most depth levels, and returns the index after it.
func (c *canon) value(dst []byte, i, depth int) ([]byte, int, error) {
	data := c.data
	if i >= len(data) {
		return dst, i, syntaxError(i, "unexpected end of JSON input")
	}
	switch ch := data[i]; {
	case ch == '{':
		return c.object(dst, i, depth)
	case ch == '[':
		return c.array(dst, i, depth)
	case ch == '"':
		end, esc, err := ScanString(data, i)
		if err != nil {
			return dst, end, err
		}
		if !esc {
			return append(dst, data[i:end]...), end, nil
		}
		return appendCanonicalString(dst, data[i:end]), end, nil
	case ch == '-' || isDigit(ch):
		end, err := ScanNumber(data, i)
		if err != nil {
			return dst, end, err
		}
		if c.normNumbers {
			return appendNormNumber(dst, data[i:end]), end, nil
		}
		return append(dst, data[i:end]...), end, nil
	}
	end, err := scanScalar(data, i)
	if err != nil {
		return dst, end, err
	}
	return append(dst, data[i:end]...), end, nil
}

func (c *canon) array(dst []byte, i, depth int) ([]byte, int, error) {
	it := Elements(c.data, i, depth)
	dst = append(dst, '[')
	for n := 0; it.Next(); n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		var end int
		var err error
		if dst, end, err = c.value(dst, it.Offset(), it.Depth()); err != nil {
			return dst, end, err
		}
		it.SetValueEnd(end)
	}
	if it.err != nil {
		return dst, 0, it.err
	}
	return append(dst, ']'), it.end, nil
}

// member is one object member already written to dst: where its name's
// canonical contents (between the quotes) and its whole "name":value lie.
type member struct {
	nameStart, nameEnd int
	start, end         int
}

// object writes the members in input order straight into dst and reorders
// them only when they are not already sorted (clients that build params
// from sorted maps or structs send them sorted). Reordering is O(n log n)
// in members and linear in bytes, whatever the input: it uses dst's spare
// capacity when there is room, else one scratch buffer per call.
func (c *canon) object(dst []byte, i, depth int) ([]byte, int, error) {
	it := Members(c.data, i, depth)
	dst = append(dst, '{')
	body := len(dst)
	var small [8]member
	members := small[:0]
	sorted := true
	for it.Next() {
		if len(members) > 0 {
			dst = append(dst, ',')
		}
		m := member{start: len(dst)}
		name := it.Name()
		if bytes.IndexByte(name, '\\') < 0 {
			dst = append(dst, name...)
		} else {
			dst = appendCanonicalString(dst, name)
		}
		m.nameStart, m.nameEnd = m.start+1, len(dst)-1
		dst = append(dst, ':')
		var end int
		var err error
		if dst, end, err = c.value(dst, it.Offset(), it.Depth()); err != nil {
			return dst, end, err
		}
		it.SetValueEnd(end)
		m.end = len(dst)
		if n := len(members); n > 0 && bytes.Compare(dst[members[n-1].nameStart:members[n-1].nameEnd], dst[m.nameStart:m.nameEnd]) > 0 {
			sorted = false
		}
		members = append(members, m)
	}
	if it.err != nil {
		return dst, 0, it.err
	}
	if !sorted {
		dst = c.reorder(dst, body, members)
	}
	return append(dst, '}'), it.end, nil
}

// reorder sorts the members written at dst[body:] by name (stably: equal
// names keep their order) and rewrites them in that order.
func (c *canon) reorder(dst []byte, body int, members []member) []byte {
	slices.SortStableFunc(members, func(a, b member) int {
		return bytes.Compare(dst[a.nameStart:a.nameEnd], dst[b.nameStart:b.nameEnd])
	})
	end := len(dst) // dst[body:end] is the members joined by commas
	if cap(dst)-end >= end-body {
		// Assemble the sorted members in dst's spare capacity, then move
		// them back: no allocation.
		out := dst[end:end]
		for i, m := range members {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, dst[m.start:m.end]...)
		}
		copy(dst[body:end], out)
		return dst
	}
	// Copy the members aside (one buffer per call, reused by every object)
	// and write them back sorted.
	if c.scratch == nil {
		// A canonical form is never longer than its input (the match
		// form's numbers can be: append grows the buffer then).
		c.scratch = make([]byte, 0, max(len(c.data), end-body))
	}
	c.scratch = append(c.scratch[:0], dst[body:end]...)
	w := dst[:body]
	for i, m := range members {
		if i > 0 {
			w = append(w, ',')
		}
		w = append(w, c.scratch[m.start-body:m.end-body]...)
	}
	return dst
}

// appendCanonicalString appends the canonical spelling of the valid string
// literal lit, which holds escapes: each escape decoded and written back
// with the fewest escapes, lone surrogates as lowercase \uXXXX escapes,
// every raw byte (valid UTF-8 or not) as it is.
func appendCanonicalString(dst, lit []byte) []byte {
	s := lit[1 : len(lit)-1]
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			dst = append(dst, s[i:]...)
			break
		}
		dst = append(dst, s[i:i+j]...)
		i += j
		r, n := escape(s, i)
		i += n
		switch {
		case r == '"' || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r < 0x20 || utf16.IsSurrogate(r):
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
		default:
			dst = utf8.AppendRune(dst, r)
		}
	}
	return append(dst, '"')
}
