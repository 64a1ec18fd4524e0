package router

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hivegate/hivegate/jsonwire"
)

// trie maps config keys to values, matched on whole dot-separated segments.
// The deepest node holding a value along a call's path wins: a params-level
// entry beats its method, which beats its api, which beats its namespace.
type trie[T any] struct {
	root tnode[T]
}

type tnode[T any] struct {
	children map[string]*tnode[T]
	params   []paramsEntry[T]
	has      bool
	value    T
	key      string // the config key that set value
}

type paramsEntry[T any] struct {
	want  []byte // match form of the params value
	value T
	key   string
}

// insert adds a config key. Two keys that mean the same (the same path, or
// the same params value spelled differently) are an error.
func (t *trie[T]) insert(ck configKey, key string, v T) error {
	n := &t.root
	for _, s := range ck.segs {
		if n.children == nil {
			n.children = map[string]*tnode[T]{}
		}
		c := n.children[s]
		if c == nil {
			c = &tnode[T]{}
			n.children[s] = c
		}
		n = c
	}
	if ck.hasParams {
		for _, p := range n.params {
			if bytes.Equal(p.want, ck.params) {
				return fmt.Errorf("same params value as key %q", p.key)
			}
		}
		n.params = append(n.params, paramsEntry[T]{want: ck.params, value: v, key: key})
		return nil
	}
	if n.has {
		return fmt.Errorf("same key as %q", n.key)
	}
	n.has, n.value, n.key = true, v, key
	return nil
}

// requestParams is a call's params as matched against params= keys. The
// match form is computed at most once per Resolve, and only when a trie
// node on the call's path has params= entries.
type requestParams struct {
	raw  json.RawMessage
	form []byte
	done bool
	ok   bool
}

func (p *requestParams) matchForm() ([]byte, bool) {
	if !p.done {
		p.done = true
		if p.raw != nil {
			f, err := jsonwire.AppendMatchForm(make([]byte, 0, len(p.raw)+16), p.raw)
			p.form, p.ok = f, err == nil
		}
	}
	return p.form, p.ok
}
