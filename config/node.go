package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"gopkg.in/yaml.v3"
)

// nodeKind is the kind of a parsed configuration value.
type nodeKind int

const (
	kindScalar nodeKind = iota
	kindMap
	kindSeq
)

// node is a configuration value with its position, the common tree both the
// YAML and the JSON loaders walk so that every error can name file and line.
type node struct {
	kind   nodeKind
	line   int
	str    string // scalar text
	quoted bool   // scalar was a quoted string (YAML) or a JSON string
	null   bool
	keys   []*node // map keys, in file order
	vals   []*node // map values / sequence items
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

func fromYAML(data []byte) (*node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: kindMap, line: 1}, nil
		}
		return nil, err
	}
	return convertYAML(&doc)
}

func convertYAML(y *yaml.Node) (*node, error) {
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &node{kind: kindMap, line: y.Line}, nil
		}
		return convertYAML(y.Content[0])
	case yaml.AliasNode:
		return convertYAML(y.Alias)
	case yaml.MappingNode:
		n := &node{kind: kindMap, line: y.Line}
		seen := map[string]int{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key must be a plain value", k.Line)
			}
			if k.Value == "<<" {
				return nil, fmt.Errorf("line %d: YAML merge keys are not supported", k.Line)
			}
			if prev, dup := seen[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q repeats the key on line %d", k.Line, k.Value, prev)
			}
			seen[k.Value] = k.Line
			kn := &node{kind: kindScalar, line: k.Line, str: k.Value}
			vn, err := convertYAML(v)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, kn)
			n.vals = append(n.vals, vn)
		}
		return n, nil
	case yaml.SequenceNode:
		n := &node{kind: kindSeq, line: y.Line}
		for _, c := range y.Content {
			cn, err := convertYAML(c)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, cn)
		}
		return n, nil
	default:
		quoted := y.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0
		null := !quoted && (y.Tag == "!!null")
		return &node{kind: kindScalar, line: y.Line, str: y.Value, quoted: quoted || y.Tag == "!!str" && y.Style != 0, null: null}, nil
	}
}

// fromJSON parses JSON into a node tree, tracking line numbers through the
// decoder's input offset.
func fromJSON(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lines := lineIndex(data)
	n, err := readJSON(dec, lines)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("line %d: unexpected data after the top-level value", lines.at(dec.InputOffset()))
	}
	return n, nil
}

type lineIndex []byte

// at returns the 1-based line of the byte offset off.
func (l lineIndex) at(off int64) int {
	if off > int64(len(l)) {
		off = int64(len(l))
	}
	return bytes.Count(l[:off], []byte{'\n'}) + 1
}

// startLine returns the line of the token that ends at off, skipping back over
// the token itself is unnecessary for the line as tokens do not span lines.
func readJSON(dec *json.Decoder, lines lineIndex) (*node, error) {
	before := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(err, lines, dec.InputOffset())
	}
	line := lines.at(skipSpace(lines, before))
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: kindMap, line: line}
			seen := map[string]int{}
			for dec.More() {
				kb := dec.InputOffset()
				kt, err := dec.Token()
				if err != nil {
					return nil, jsonErr(err, lines, dec.InputOffset())
				}
				key, _ := kt.(string)
				kl := lines.at(skipSpace(lines, kb))
				if prev, dup := seen[key]; dup {
					return nil, fmt.Errorf("line %d: key %q repeats the key on line %d", kl, key, prev)
				}
				seen[key] = kl
				v, err := readJSON(dec, lines)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, &node{kind: kindScalar, line: kl, str: key, quoted: true})
				n.vals = append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, jsonErr(err, lines, dec.InputOffset())
			}
			return n, nil
		case '[':
			n := &node{kind: kindSeq, line: line}
			for dec.More() {
				v, err := readJSON(dec, lines)
				if err != nil {
					return nil, err
				}
				n.vals = append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, jsonErr(err, lines, dec.InputOffset())
			}
			return n, nil
		}
		return nil, fmt.Errorf("line %d: unexpected %q", line, t)
	case string:
		return &node{kind: kindScalar, line: line, str: t, quoted: true}, nil
	case json.Number:
		return &node{kind: kindScalar, line: line, str: t.String()}, nil
	case bool:
		return &node{kind: kindScalar, line: line, str: strconv.FormatBool(t)}, nil
	case nil:
		return &node{kind: kindScalar, line: line, null: true, str: "null"}, nil
	}
	return nil, fmt.Errorf("line %d: unexpected token", line)
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

func jsonErr(err error, lines lineIndex, off int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: %s", lines.at(se.Offset), se.Error())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("line %d: unexpected end of file", lines.at(off))
	}
	return fmt.Errorf("line %d: %w", lines.at(off), err)
}
