package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Both formats are read into a tree of *yaml.Node (JSON too: jsonReader
// below), checked here for shape (size, depth, duplicate keys, merge keys)
// with its aliases resolved, so that one decoder (decode.go) reads both and
// every error can name file and line.

// Limits on the shape of a config document. Real configs are a few hundred
// values a few levels deep; the limits keep a hostile or broken file (a YAML
// alias bomb, a self-referencing anchor, a deeply nested JSON list) from
// exhausting memory or the stack.
const (
	maxNodes = 100_000
	maxDepth = 64
)

// The scalar tags of the YAML core schema; JSON values get the same tags.
const (
	tagStr   = "!!str"
	tagInt   = "!!int"
	tagFloat = "!!float"
	tagBool  = "!!bool"
	tagNull  = "!!null"
)

// keyOf joins a parent path and a map key for error messages. List items
// share their list's path: the line tells them apart.
func keyOf(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// shape checks a tree against the limits, enforcing them while it resolves
// aliases, and rejects duplicate and merge keys.
type shape struct {
	file  string
	nodes int
}

func (c *shape) errf(line int, key, format string, args ...any) error {
	return &Error{Pos: Pos{File: c.file, Line: line}, Key: key, Err: fmt.Errorf(format, args...)}
}

// check returns a copy of y with its aliases replaced by copies of what
// they name (so that no node is shared: local.go merges in place), its
// scalar tags resolved, and a document node replaced by its content.
func (c *shape) check(y *yaml.Node, path string, depth int) (*yaml.Node, error) {
	c.nodes++
	if c.nodes > maxNodes {
		return nil, c.errf(y.Line, path, "the document has more than %d values (a YAML alias bomb?)", maxNodes)
	}
	if depth > maxDepth {
		return nil, c.errf(y.Line, path, "values nested more than %d levels deep (a self-referencing YAML anchor?)", maxDepth)
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &yaml.Node{Kind: yaml.MappingNode, Line: y.Line}, nil
		}
		return c.check(y.Content[0], path, depth+1)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, c.errf(y.Line, path, "alias to an unknown anchor")
		}
		return c.check(y.Alias, path, depth+1)
	}
	cp := *y
	y = &cp
	y.Content = slices.Clone(y.Content)
	switch y.Kind {
	case yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k := y.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, c.errf(k.Line, path, "a key must be a plain value")
			}
			full := keyOf(path, k.Value)
			if k.Value == "<<" && k.ShortTag() == "!!merge" {
				return nil, c.errf(k.Line, full, "YAML merge keys are not supported: write the keys out")
			}
			if prev, dup := seen[k.Value]; dup {
				return nil, c.errf(k.Line, full, "duplicate key: also given on line %d", prev)
			}
			seen[k.Value] = k.Line
			v, err := c.check(y.Content[i+1], full, depth+1)
			if err != nil {
				return nil, err
			}
			y.Content[i+1] = v
		}
	case yaml.SequenceNode:
		for i, e := range y.Content {
			v, err := c.check(e, path, depth+1)
			if err != nil {
				return nil, err
			}
			y.Content[i] = v
		}
	default:
		y.Tag = y.ShortTag()
	}
	return y, nil
}

// yamlLine matches the line yaml.v3 puts in most of its error messages.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// fromYAML parses one YAML document. An empty document is an empty mapping;
// a second document is an error.
func fromYAML(file string, data []byte) (n *yaml.Node, err error) {
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
			return &yaml.Node{Kind: yaml.MappingNode, Line: 1}, nil
		}
		return nil, yamlError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, yamlError(file, err)
		}
		return nil, &Error{Pos: Pos{File: file, Line: extra.Line}, Err: errors.New("a second YAML document: a config file holds exactly one")}
	}
	return (&shape{file: file}).check(&doc, "", 0)
}

func yamlError(file string, err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Pos: Pos{File: file, Line: line}, Err: errors.New(m[2])}
	}
	return &Error{Pos: Pos{File: file}, Err: err}
}

// fromJSON parses JSON into the same tree, tracking line numbers through
// the decoder's input offset.
func fromJSON(file string, data []byte) (*yaml.Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	j := &jsonReader{shape: &shape{file: file}, dec: dec, data: data, lines: newLineIndex(data)}
	n, err := j.value("", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, j.errf(j.lines.at(skipSpace(data, dec.InputOffset())), "", "unexpected data after the top-level value")
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
	*shape
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

func (j *jsonReader) value(path string, depth int) (*yaml.Node, error) {
	tok, line, err := j.token(path)
	if err != nil {
		return nil, err
	}
	j.nodes++
	if j.nodes > maxNodes {
		return nil, j.errf(line, path, "the document has more than %d values", maxNodes)
	}
	if depth > maxDepth {
		return nil, j.errf(line, path, "values nested more than %d levels deep", maxDepth)
	}
	scalar := func(tag, value string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value, Line: line}
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.SequenceNode, Line: line}
		if t == '{' {
			n.Kind = yaml.MappingNode
		}
		seen := map[string]int{}
		for j.dec.More() {
			item := path
			if t == '{' {
				kt, kl, err := j.token(path)
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				item = keyOf(path, key)
				if prev, dup := seen[key]; dup {
					return nil, j.errf(kl, item, "duplicate key: also given on line %d", prev)
				}
				seen[key] = kl
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: tagStr, Value: key, Line: kl})
			}
			v, err := j.value(item, depth+1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		if _, _, err := j.token(path); err != nil {
			return nil, err
		}
		return n, nil
	case string:
		return scalar(tagStr, t), nil
	case json.Number:
		tag := tagInt
		if _, err := strconv.ParseInt(t.String(), 10, 64); err != nil {
			tag = tagFloat
		}
		return scalar(tag, t.String()), nil
	case bool:
		return scalar(tagBool, strconv.FormatBool(t)), nil
	}
	return scalar(tagNull, "null"), nil
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
