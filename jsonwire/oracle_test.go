package jsonwire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the oracle the fuzz targets compare jsonwire with, written
// without jsonwire: encoding/json (json.Valid, json.Decoder with UseNumber)
// reads the structure, and a string's code units are read from its raw
// literal by the rule of the package documentation.

// node is a JSON value as the oracle sees it.
type node struct {
	kind  byte    // 's' string, 'n' number, 'l' true/false/null, 'a' array, 'o' object
	text  string  // a number's text as written, or the literal
	units []int32 // a string: code points, lone surrogates (0xD800-0xDFFF), invalid bytes as -1-b
	elems []node  // array elements, or object member values
	names [][]int32
}

// decodeTree reads valid JSON (json.Valid is true) into a node.
func decodeTree(data []byte) (node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	r := treeReader{dec: dec, data: data}
	n, err := r.value()
	if err != nil {
		return node{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return node{}, fmt.Errorf("trailing data: %v", err)
	}
	return n, nil
}

type treeReader struct {
	dec  *json.Decoder
	data []byte
}

// token returns the next token and, for a string, its raw literal.
func (r *treeReader) token() (json.Token, []byte, error) {
	before := r.dec.InputOffset()
	tok, err := r.dec.Token()
	if err != nil {
		return nil, nil, err
	}
	after := r.dec.InputOffset()
	if _, ok := tok.(string); !ok {
		return tok, nil, nil
	}
	// Between the two offsets: whitespace, a ',' or ':', whitespace, the
	// literal.
	span := r.data[before:after]
	return tok, span[bytes.IndexByte(span, '"'):], nil
}

func (r *treeReader) value() (node, error) {
	tok, lit, err := r.token()
	if err != nil {
		return node{}, err
	}
	return r.valueFrom(tok, lit)
}

func (r *treeReader) valueFrom(tok json.Token, lit []byte) (node, error) {
	switch t := tok.(type) {
	case json.Delim:
		n := node{kind: 'a'}
		if t == '{' {
			n.kind = 'o'
		}
		for r.dec.More() {
			if n.kind == 'o' {
				_, name, err := r.token()
				if err != nil {
					return node{}, err
				}
				n.names = append(n.names, units(name))
			}
			e, err := r.value()
			if err != nil {
				return node{}, err
			}
			n.elems = append(n.elems, e)
		}
		if _, _, err := r.token(); err != nil { // the closing delimiter
			return node{}, err
		}
		return n, nil
	case string:
		return node{kind: 's', units: units(lit)}, nil
	case json.Number:
		return node{kind: 'n', text: string(t)}, nil
	case bool:
		return node{kind: 'l', text: strconv.FormatBool(t)}, nil
	case nil:
		return node{kind: 'l', text: "null"}, nil
	}
	return node{}, fmt.Errorf("unexpected token %v", tok)
}

// units reads the code units of a valid string literal: raw UTF-8
// sequences and escapes as code points, an escaped high surrogate and the
// escaped low surrogate right after it as one code point, other escaped
// surrogates as themselves, and each byte of invalid UTF-8 as -1-b.
func units(lit []byte) []int32 {
	s := lit[1 : len(lit)-1]
	var out []int32
	escaped := []bool{}
	for i := 0; i < len(s); {
		if s[i] == '\\' {
			var r int32
			switch s[i+1] {
			case 'u':
				v, _ := strconv.ParseUint(string(s[i+2:i+6]), 16, 32)
				r = int32(v)
				i += 6
			default:
				r = map[byte]int32{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[s[i+1]]
				i += 2
			}
			out, escaped = append(out, r), append(escaped, true)
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = -1 - int32(s[i])
		}
		out, escaped = append(out, r), append(escaped, false)
		i += n
	}
	// Pair escaped surrogates, left to right.
	var paired []int32
	for i := 0; i < len(out); i++ {
		if escaped[i] && out[i] >= 0xD800 && out[i] < 0xDC00 && i+1 < len(out) && escaped[i+1] && out[i+1] >= 0xDC00 && out[i+1] < 0xE000 {
			paired = append(paired, 0x10000+(out[i]-0xD800)<<10+(out[i+1]-0xDC00))
			i++
			continue
		}
		paired = append(paired, out[i])
	}
	return paired
}

// identity is the oracle's notion of "the same JSON value for routing and
// caching": equal number text, strings equal as code-unit sequences,
// arrays element by element, objects equal when for every name the
// sequence of values under that name is equal (members of different names
// in any order; duplicates of one name in the order sent).
func identity(n node) string {
	switch n.kind {
	case 's':
		return "s" + fmt.Sprint(n.units)
	case 'n', 'l':
		return string(n.kind) + n.text
	case 'a':
		parts := make([]string, len(n.elems))
		for i, e := range n.elems {
			parts[i] = strconv.Quote(identity(e))
		}
		return "a" + strings.Join(parts, ",")
	}
	groups := map[string][]string{}
	for i, e := range n.elems {
		name := fmt.Sprint(n.names[i])
		groups[name] = append(groups[name], strconv.Quote(identity(e)))
	}
	names := make([]string, 0, len(groups))
	for name := range groups {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("o")
	for _, name := range names {
		b.WriteString(strconv.Quote(name) + ":" + strconv.Quote(strings.Join(groups[name], ",")) + ";")
	}
	return b.String()
}

// respell writes n as JSON again, spelled differently but meaning the same:
// random whitespace, members of different names in a random order (those
// of one name in their order), and each string's code units written raw or
// escaped at random.
func respell(dst []byte, n node, rng *rand.Rand) []byte {
	ws := func() {
		for range rng.IntN(3) {
			dst = append(dst, " \t\r\n"[rng.IntN(4)])
		}
	}
	ws()
	switch n.kind {
	case 's':
		dst = respellString(dst, n.units, rng)
	case 'n', 'l':
		dst = append(dst, n.text...)
	case 'a':
		dst = append(dst, '[')
		for i, e := range n.elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = respell(dst, e, rng)
		}
		ws()
		dst = append(dst, ']')
	case 'o':
		// A random order that keeps members of one name in order: shuffle
		// the slots, then give each name's members its slots in order.
		order := rng.Perm(len(n.elems))
		byName := map[string][]int{}
		for i := range n.elems {
			name := fmt.Sprint(n.names[i])
			byName[name] = append(byName[name], i)
		}
		slots := make([]int, len(order))
		used := map[string]int{}
		for k, i := range order {
			name := fmt.Sprint(n.names[i])
			slots[k] = byName[name][used[name]]
			used[name]++
		}
		dst = append(dst, '{')
		for k, i := range slots {
			if k > 0 {
				dst = append(dst, ',')
			}
			ws()
			dst = respellString(dst, n.names[i], rng)
			ws()
			dst = append(dst, ':')
			dst = respell(dst, n.elems[i], rng)
		}
		ws()
		dst = append(dst, '}')
	}
	ws()
	return dst
}

func respellString(dst []byte, us []int32, rng *rand.Rand) []byte {
	hex := func(r int32) {
		s := fmt.Sprintf("%04x", r)
		if rng.IntN(2) == 0 {
			s = strings.ToUpper(s)
		}
		dst = append(dst, `\u`+s...)
	}
	dst = append(dst, '"')
	for _, u := range us {
		switch {
		case u < 0: // an invalid byte: only raw
			dst = append(dst, byte(-1-u))
		case u >= 0xD800 && u < 0xE000: // a lone surrogate: only escaped
			hex(u)
		case u >= 0x10000 && rng.IntN(2) == 0:
			hex(0xD800 + (u-0x10000)>>10)
			hex(0xDC00 + (u-0x10000)&0x3FF)
		case u < 0x20 || u == '"' || u == '\\' || rng.IntN(3) == 0:
			short := map[int32]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}[u]
			if short != "" && rng.IntN(2) == 0 {
				dst = append(dst, short...)
			} else if u < 0x10000 {
				hex(u)
			} else {
				dst = utf8.AppendRune(dst, u)
			}
		default:
			dst = utf8.AppendRune(dst, u)
		}
	}
	return append(dst, '"')
}

// depthOf returns the deepest nesting in data, counting brackets outside
// strings (exact on valid JSON).
func depthOf(data []byte) int {
	d, deepest, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			d++
			deepest = max(deepest, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

// tooDeepFirst reports whether data, read from the start, is valid JSON up
// to a container opened deeper than maxDepth: the prefix up to that opening
// bracket, with the open containers closed, is valid to json.Valid.
func tooDeepFirst(data []byte, maxDepth int) bool {
	var open []byte
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			open = append(open, c)
			if len(open) > maxDepth {
				prefix := slices.Clone(data[:i+1])
				for j := len(open) - 1; j >= 0; j-- {
					prefix = append(prefix, open[j]+2) // '[' → ']', '{' → '}'
				}
				return json.Valid(prefix)
			}
		case c == ']' || c == '}':
			if len(open) == 0 {
				return false
			}
			open = open[:len(open)-1]
		}
	}
	return false
}
