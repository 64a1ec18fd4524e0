package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// nodeKind is the kind of a parsed configuration value.
type nodeKind int

const (
	kindScalar nodeKind = iota
	kindMap
	kindSeq
)

// Scalar tags, the YAML core schema's names; JSON values get the same tags.
const (
	tagStr   = "!!str"
	tagInt   = "!!int"
	tagFloat = "!!float"
	tagBool  = "!!bool"
	tagNull  = "!!null"
)

// Limits on the shape of a config document. Real configs are a few hundred
// values a few levels deep; the limits keep a hostile or broken file (a YAML
// alias bomb, a self-referencing anchor, a deeply nested JSON list) from
// exhausting memory or the stack.
const (
	maxNodes = 100_000
	maxDepth = 64
)

// node is a configuration value with its position, the common tree both the
// YAML and the JSON loaders walk so that every error can name file and line.
type node struct {
	kind   nodeKind
	line   int
	str    string // scalar text
	tag    string // scalar tag: tagStr, tagInt, tagFloat, tagBool, tagNull (or a YAML custom tag)
	quoted bool   // scalar was a quoted string (YAML) or a JSON string
	null   bool
	keys   []*node // map keys, in file order
	vals   []*node // map values / sequence items
	// file, when set, is the file the value came from when it is not the
	// one being loaded (a merged config.local.yaml: local.go).
	file string
}

// get returns the value under key in a map node, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k.str == key {
			return n.vals[i]
		}
	}
	return nil
}

// keyOf joins a parent path and a map key for error messages. List items
// share their list's path: the line tells them apart.
func keyOf(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// converter turns a parser's tree into nodes, enforcing the size limits and
// rejecting duplicate keys.
type converter struct {
	file  string
	nodes int
}

func (c *converter) errf(line int, key, format string, args ...any) error {
	return &Error{Pos: Pos{File: c.file, Line: line}, Key: key, Err: fmt.Errorf(format, args...)}
}

// count charges one node against the budget.
func (c *converter) count(line int, path string, depth int) error {
	c.nodes++
	if c.nodes > maxNodes {
		return c.errf(line, path, "the document has more than %d values (a YAML alias bomb?)", maxNodes)
	}
	if depth > maxDepth {
		return c.errf(line, path, "values nested more than %d levels deep (a self-referencing YAML anchor?)", maxDepth)
	}
	return nil
}

// yamlLine matches the line yaml.v3 puts in most of its error messages.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// fromYAML parses one YAML document. An empty document is an empty mapping;
// a second document is an error.
func fromYAML(file string, data []byte) (n *node, err error) {
	defer func() {
		// yaml.v3 has had panics on malformed input; a config error is
		// the right answer to any of them.
		if r := recover(); r != nil {
			n, err = nil, &Error{Pos: Pos{File: file}, Err: fmt.Errorf("YAML parser failed: %v", r)}
		}
	}()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: kindMap, line: 1}, nil
		}
		return nil, yamlError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		if err != nil {
			return nil, yamlError(file, err)
		}
		return nil, &Error{Pos: Pos{File: file, Line: line}, Err: errors.New("a second YAML document: a config file holds exactly one")}
	}
	c := &converter{file: file}
	return c.yaml(&doc, "", 0)
}

func yamlError(file string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Pos: Pos{File: file, Line: line}, Err: errors.New(m[2])}
	}
	return &Error{Pos: Pos{File: file}, Err: err}
}

func (c *converter) yaml(y *yaml.Node, path string, depth int) (*node, error) {
	if err := c.count(y.Line, path, depth); err != nil {
		return nil, err
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &node{kind: kindMap, line: y.Line}, nil
		}
		return c.yaml(y.Content[0], path, depth+1)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, c.errf(y.Line, path, "alias to an unknown anchor")
		}
		return c.yaml(y.Alias, path, depth+1)
	case yaml.MappingNode:
		n := &node{kind: kindMap, line: y.Line}
		seen := map[string]int{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, c.errf(k.Line, path, "a key must be a plain value")
			}
			full := keyOf(path, k.Value)
			if k.Value == "<<" && k.Tag == "!!merge" {
				return nil, c.errf(k.Line, full, "YAML merge keys are not supported: write the keys out")
			}
			if prev, dup := seen[k.Value]; dup {
				return nil, c.errf(k.Line, full, "duplicate key: also given on line %d", prev)
			}
			seen[k.Value] = k.Line
			kn := &node{kind: kindScalar, line: k.Line, str: k.Value, tag: tagStr}
			vn, err := c.yaml(v, full, depth+1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, kn)
			n.vals = append(n.vals, vn)
		}
		return n, nil
	case yaml.SequenceNode:
		n := &node{kind: kindSeq, line: y.Line}
		for _, e := range y.Content {
			en, err := c.yaml(e, path, depth+1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, en)
		}
		return n, nil
	default:
		quoted := y.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
		return &node{
			kind:   kindScalar,
			line:   y.Line,
			str:    y.Value,
			tag:    y.ShortTag(),
			quoted: quoted || y.ShortTag() == tagStr && y.Style&yaml.TaggedStyle != 0,
			null:   y.ShortTag() == tagNull,
		}, nil
	}
}

// fromJSON parses JSON into a node tree, tracking line numbers through the
// decoder's input offset.
func fromJSON(file string, data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	c := &converter{file: file}
	j := &jsonReader{converter: c, dec: dec, data: data, lines: newLineIndex(data)}
	n, err := j.value("", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, c.errf(j.lines.at(skipSpace(data, dec.InputOffset())), "", "unexpected data after the top-level value")
	}
	return n, nil
}

// lineIndex holds the offsets of the newlines in a document.
type lineIndex []int64

func newLineIndex(data []byte) lineIndex {
	var l lineIndex
	for i, b := range data {
		if b == '\n' {
			l = append(l, int64(i))
		}
	}
	return l
}

// at returns the 1-based line of the byte offset off.
func (l lineIndex) at(off int64) int {
	return sort.Search(len(l), func(i int) bool { return l[i] >= off }) + 1
}

type jsonReader struct {
	*converter
	dec   *json.Decoder
	data  []byte
	lines lineIndex
}

// token reads the next token and the line it starts on.
func (j *jsonReader) token(path string) (json.Token, int, error) {
	before := j.dec.InputOffset()
	tok, err := j.dec.Token()
	if err != nil {
		return nil, 0, j.syntax(err, path)
	}
	return tok, j.lines.at(skipSpace(j.data, before)), nil
}

func (j *jsonReader) value(path string, depth int) (*node, error) {
	tok, line, err := j.token(path)
	if err != nil {
		return nil, err
	}
	if err := j.count(line, path, depth); err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: kindMap, line: line}
			seen := map[string]int{}
			for j.dec.More() {
				kt, kl, err := j.token(path)
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				full := keyOf(path, key)
				if prev, dup := seen[key]; dup {
					return nil, j.errf(kl, full, "duplicate key: also given on line %d", prev)
				}
				seen[key] = kl
				v, err := j.value(full, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, &node{kind: kindScalar, line: kl, str: key, tag: tagStr, quoted: true})
				n.vals = append(n.vals, v)
			}
			if _, _, err := j.token(path); err != nil {
				return nil, err
			}
			return n, nil
		case '[':
			n := &node{kind: kindSeq, line: line}
			for j.dec.More() {
				v, err := j.value(path, depth+1)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			if _, _, err := j.token(path); err != nil {
				return nil, err
			}
			return n, nil
		}
		return nil, j.errf(line, path, "unexpected %q", t.String())
	case string:
		return &node{kind: kindScalar, line: line, str: t, tag: tagStr, quoted: true}, nil
	case json.Number:
		tag := tagInt
		if _, err := strconv.ParseInt(t.String(), 10, 64); err != nil {
			tag = tagFloat
		}
		return &node{kind: kindScalar, line: line, str: t.String(), tag: tag}, nil
	case bool:
		return &node{kind: kindScalar, line: line, str: strconv.FormatBool(t), tag: tagBool}, nil
	case nil:
		return &node{kind: kindScalar, line: line, null: true, str: "null", tag: tagNull}, nil
	}
	return nil, j.errf(line, path, "unexpected token")
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// syntax turns a decoder error into an Error with the line it happened on.
func (j *jsonReader) syntax(err error, path string) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return j.errf(j.lines.at(se.Offset), path, "JSON syntax error: %v", se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return j.errf(j.lines.at(j.dec.InputOffset()), path, "unexpected end of file")
	}
	return j.errf(j.lines.at(j.dec.InputOffset()), path, "%v", err)
}
