package router

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/hivegate/hivegate/jsonrpc"
)

// canonicalKey builds namespace.api.method[.params=<canonical JSON>] in one
// allocation when it can: the buffer is sized for the key, and the string
// shares it (as strings.Builder does; b is never written again). Keys live
// long in the cache, so when sorting an object made the buffer grow, the
// key is copied into an exactly sized string instead of keeping the slack.
func canonicalKey(segs []string, params json.RawMessage) (string, error) {
	n := len(segs)
	for _, s := range segs {
		n += len(s)
	}
	if params != nil {
		n += len(".params=") + len(params)
	}
	b, err := appendKey(make([]byte, 0, n), segs, params)
	if err != nil {
		return "", err
	}
	if cap(b)-len(b) > 16+len(b)/8 {
		return string(b), nil
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// appendKey appends namespace.api.method[.params=<canonical JSON>] to dst.
func appendKey(dst []byte, segs []string, params json.RawMessage) ([]byte, error) {
	for i, s := range segs {
		if i > 0 {
			dst = append(dst, '.')
		}
		dst = append(dst, s...)
	}
	if params != nil {
		dst = append(dst, ".params="...)
		var err error
		if dst, err = AppendCanonical(dst, params); err != nil {
			return nil, fmt.Errorf("%w: params are not valid JSON: %v", ErrInvalidMethod, err)
		}
	}
	return dst, nil
}

// AppendCanonical appends the canonical form of the JSON value v: compact,
// object keys sorted at every level (by their decoded UTF-8 bytes; members
// with equal keys keep their order), strings re-encoded only when they hold
// escapes or invalid UTF-8 (so "\u0041" and "A" give one key). Numbers keep
// their text: 1 and 1.0 are different cache keys, since a node may treat
// them differently.
func AppendCanonical(dst []byte, v []byte) ([]byte, error) {
	return appendCanonical(dst, v, false)
}

// appendMatchForm is AppendCanonical with numbers normalised to their value
// (1, 1.0, 10e-1 and 0.1e1 are one form; -0 is 0). Config params= keys are
// compared with request params in this form: as JSON values, not as text.
func appendMatchForm(dst []byte, v []byte) ([]byte, error) {
	return appendCanonical(dst, v, true)
}

func appendCanonical(dst []byte, v []byte, normNumbers bool) ([]byte, error) {
	s := scanner{data: v, normNumbers: normNumbers}
	s.skip()
	dst, err := s.value(dst)
	if err != nil {
		return nil, err
	}
	s.skip()
	if s.pos != len(s.data) {
		return nil, s.errf("trailing data")
	}
	return dst, nil
}

// scanner reads one JSON value and writes its canonical form.
type scanner struct {
	data        []byte
	pos         int
	depth       int
	normNumbers bool
	scratch     []byte // for reordering object members, allocated on first need
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

func (s *scanner) errf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", s.pos, fmt.Sprintf(format, args...))
}

func (s *scanner) skip() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value(dst []byte) ([]byte, error) {
	if s.pos >= len(s.data) {
		return nil, s.errf("unexpected end")
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(dst)
	case c == '[':
		return s.array(dst)
	case c == '"':
		start := s.pos
		esc, err := s.str()
		if err != nil {
			return nil, err
		}
		raw := s.data[start:s.pos]
		if !esc {
			return append(dst, raw...), nil
		}
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return nil, s.errf("bad string")
		}
		return jsonrpc.AppendString(dst, str), nil
	case c == 't':
		return s.lit(dst, "true")
	case c == 'f':
		return s.lit(dst, "false")
	case c == 'n':
		return s.lit(dst, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		if err := s.number(); err != nil {
			return nil, err
		}
		if s.normNumbers {
			return appendNormNumber(dst, s.data[start:s.pos]), nil
		}
		return append(dst, s.data[start:s.pos]...), nil
	}
	return nil, s.errf("unexpected %q", s.data[s.pos])
}

func (s *scanner) lit(dst []byte, word string) ([]byte, error) {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		return nil, s.errf("bad literal")
	}
	s.pos += len(word)
	return append(dst, word...), nil
}

// number advances over a JSON number, checking its grammar.
func (s *scanner) number() error {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	digits := func() int {
		n := 0
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
			n++
		}
		return n
	}
	intStart := s.pos
	if n := digits(); n == 0 || (n > 1 && s.data[intStart] == '0') {
		return s.errf("bad number")
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if digits() == 0 {
			return s.errf("bad number")
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if digits() == 0 {
			return s.errf("bad number")
		}
	}
	return nil
}

// str advances over a string literal; it reports whether the string must be
// re-encoded: it holds escapes or invalid UTF-8.
func (s *scanner) str() (bool, error) {
	s.pos++ // opening quote
	esc := false
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return esc, nil
		case c == '\\':
			esc = true
			s.pos += 2
		case c < 0x20:
			return false, s.errf("control character in string")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s.data[s.pos:])
			if r == utf8.RuneError && size == 1 {
				esc = true // re-encode: invalid UTF-8 becomes U+FFFD
			}
			s.pos += size
		default:
			s.pos++
		}
	}
	return false, s.errf("unterminated string")
}

func (s *scanner) array(dst []byte) ([]byte, error) {
	if s.depth++; s.depth > maxDepth {
		return nil, s.errf("nested too deeply")
	}
	defer func() { s.depth-- }()
	s.pos++
	dst = append(dst, '[')
	s.skip()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return append(dst, ']'), nil
	}
	for {
		var err error
		s.skip()
		if dst, err = s.value(dst); err != nil {
			return nil, err
		}
		s.skip()
		if s.pos >= len(s.data) {
			return nil, s.errf("unterminated array")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			dst = append(dst, ',')
		case ']':
			s.pos++
			return append(dst, ']'), nil
		default:
			return nil, s.errf("want , or ]")
		}
	}
}

// member is one object member already written to the output: its decoded
// key (for sorting) and where its canonical "key":value bytes lie in dst.
type member struct {
	key        []byte
	start, end int
}

// object writes the members in input order straight into dst and reorders
// them only when they are not already sorted (clients that build params
// from sorted maps or structs send them sorted). Reordering is
// O(n log n) in members and linear in bytes, whatever the input: it uses
// dst's spare capacity when there is room, else one scratch buffer per scan.
func (s *scanner) object(dst []byte) ([]byte, error) {
	if s.depth++; s.depth > maxDepth {
		return nil, s.errf("nested too deeply")
	}
	defer func() { s.depth-- }()
	s.pos++
	dst = append(dst, '{')
	s.skip()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return append(dst, '}'), nil
	}
	body := len(dst)
	var small [8]member
	members := small[:0]
	sorted := true
	for {
		s.skip()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return nil, s.errf("want an object key")
		}
		start := s.pos
		esc, err := s.str()
		if err != nil {
			return nil, err
		}
		m := member{start: len(dst)}
		if esc {
			var key string
			if err := json.Unmarshal(s.data[start:s.pos], &key); err != nil {
				return nil, s.errf("bad key")
			}
			m.key = []byte(key)
			dst = jsonrpc.AppendString(dst, key)
		} else {
			m.key = s.data[start+1 : s.pos-1]
			dst = append(dst, s.data[start:s.pos]...)
		}
		s.skip()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, s.errf("want :")
		}
		s.pos++
		s.skip()
		dst = append(dst, ':')
		if dst, err = s.value(dst); err != nil {
			return nil, err
		}
		m.end = len(dst)
		if n := len(members); n > 0 && bytes.Compare(members[n-1].key, m.key) > 0 {
			sorted = false
		}
		members = append(members, m)
		s.skip()
		if s.pos >= len(s.data) {
			return nil, s.errf("unterminated object")
		}
		if s.data[s.pos] == ',' {
			s.pos++
			dst = append(dst, ',')
			continue
		}
		if s.data[s.pos] == '}' {
			s.pos++
			break
		}
		return nil, s.errf("want , or }")
	}
	if !sorted {
		slices.SortStableFunc(members, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		end := len(dst) // dst[body:end] is the members joined by commas
		if cap(dst)-end >= end-body {
			// Assemble the sorted members in dst's spare capacity, then
			// move them back: no allocation.
			out := dst[end:end]
			for i, m := range members {
				if i > 0 {
					out = append(out, ',')
				}
				out = append(out, dst[m.start:m.end]...)
			}
			copy(dst[body:end], out)
		} else {
			// Copy the members aside (one buffer per scan, reused by
			// every object) and write them back sorted.
			if s.scratch == nil {
				// No object is longer than the input, bar invalid
				// UTF-8 re-encoded as U+FFFD.
				s.scratch = make([]byte, 0, max(len(s.data), end-body))
			}
			s.scratch = append(s.scratch[:0], dst[body:end]...)
			w := dst[:body]
			for i, m := range members {
				if i > 0 {
					w = append(w, ',')
				}
				w = append(w, s.scratch[m.start-body:m.end-body]...)
			}
		}
	}
	return append(dst, '}'), nil
}

// maxExpDigits bounds the exponent digits a normalised number keeps exact;
// beyond it (exponents of a quadrillion and more) the exponent saturates.
const maxExpDigits = 15

// appendNormNumber appends a canonical spelling of the value of the JSON
// number num (already checked by scanner.number): [-]0.<digits>e<exp> with
// no leading or trailing zeros in digits, or 0. Equal values give equal
// bytes, exactly, whatever their size: no float64 rounding.
func appendNormNumber(dst, num []byte) []byte {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	var intPart, frac, exp []byte
	intPart = num
	if i := bytes.IndexAny(num, ".eE"); i >= 0 {
		intPart = num[:i]
		rest := num[i:]
		if rest[0] == '.' {
			frac = rest[1:]
			if j := bytes.IndexAny(frac, "eE"); j >= 0 {
				exp = frac[j+1:]
				frac = frac[:j]
			}
		} else {
			exp = rest[1:]
		}
	}
	digit := func(i int) byte {
		if i < len(intPart) {
			return intPart[i]
		}
		return frac[i-len(intPart)]
	}
	n := len(intPart) + len(frac)
	lead := 0
	for lead < n && digit(lead) == '0' {
		lead++
	}
	if lead == n {
		return append(dst, '0')
	}
	end := n
	for digit(end-1) == '0' {
		end--
	}
	// value = 0.<digits[lead:end]> × 10^(len(intPart) - lead + exp)
	e := int64(len(intPart) - lead)
	if len(exp) > 0 {
		expNeg := exp[0] == '-'
		if exp[0] == '-' || exp[0] == '+' {
			exp = exp[1:]
		}
		exp = bytes.TrimLeft(exp, "0")
		var x int64
		if len(exp) > maxExpDigits {
			x = 1_000_000_000_000_000
		} else {
			for _, c := range exp {
				x = x*10 + int64(c-'0')
			}
		}
		if expNeg {
			x = -x
		}
		e += x
	}
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, '0', '.')
	for i := lead; i < end; i++ {
		dst = append(dst, digit(i))
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, e, 10)
}
