package router

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hivegate/hivegate/jsonrpc"
)

// canonicalKey builds namespace.api.method[.params=<canonical JSON>].
func canonicalKey(segs []string, params json.RawMessage) (string, error) {
	n := len(segs)
	for _, s := range segs {
		n += len(s)
	}
	b := make([]byte, 0, n+len(params)+8)
	for i, s := range segs {
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, s...)
	}
	if params != nil {
		b = append(b, ".params="...)
		var err error
		b, err = AppendCanonical(b, params)
		if err != nil {
			return "", fmt.Errorf("%w: params are not valid JSON", ErrInvalidMethod)
		}
	}
	return string(b), nil
}

// AppendCanonical appends the canonical form of the JSON value v: compact,
// object keys sorted at every level, strings re-encoded only when they hold
// escapes (so "\u0041" and "A" give one key). Numbers keep their text.
func AppendCanonical(dst []byte, v []byte) ([]byte, error) {
	s := scanner{data: v}
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

type scanner struct {
	data  []byte
	pos   int
	depth int
}

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

func (s *scanner) number() error {
	start := s.pos
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
	if digits() == 0 || (s.data[intStart] == '0' && s.pos-intStart > 1) {
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
	if s.pos == start {
		return s.errf("bad number")
	}
	return nil
}

// str advances over a string literal; it reports whether it holds escapes.
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

type member struct {
	key   string // decoded key, for sorting
	value []byte // canonical "key":value bytes
}

func (s *scanner) object(dst []byte) ([]byte, error) {
	if s.depth++; s.depth > maxDepth {
		return nil, s.errf("nested too deeply")
	}
	defer func() { s.depth-- }()
	s.pos++
	s.skip()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return append(dst, '{', '}'), nil
	}
	var members []member
	for {
		s.skip()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return nil, s.errf("want an object key")
		}
		start := s.pos
		if _, err := s.str(); err != nil {
			return nil, err
		}
		var key string
		if err := json.Unmarshal(s.data[start:s.pos], &key); err != nil {
			return nil, s.errf("bad key")
		}
		s.skip()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, s.errf("want :")
		}
		s.pos++
		s.skip()
		mb := jsonrpc.AppendString(nil, key)
		mb = append(mb, ':')
		mb, err := s.value(mb)
		if err != nil {
			return nil, err
		}
		members = append(members, member{key: key, value: mb})
		s.skip()
		if s.pos >= len(s.data) {
			return nil, s.errf("unterminated object")
		}
		if s.data[s.pos] == ',' {
			s.pos++
			continue
		}
		if s.data[s.pos] == '}' {
			s.pos++
			break
		}
		return nil, s.errf("want , or }")
	}
	slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, m.value...)
	}
	return append(dst, '}'), nil
}
