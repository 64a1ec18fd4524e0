package router

import "encoding/json"

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
	want  any
	value T
	key   string
}

func (t *trie[T]) insert(ck configKey, key string, v T) {
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
		n.params = append(n.params, paramsEntry[T]{want: ck.params, value: v, key: key})
		return
	}
	n.has, n.value, n.key = true, v, key
}

// match returns the most specific value for a call's segments and params,
// with the config key that matched; ok is false when nothing matches.
func (t *trie[T]) match(segs []string, params json.RawMessage) (v T, key string, ok bool) {
	n := &t.root
	for i, s := range segs {
		c := n.children[s]
		if c == nil {
			break
		}
		n = c
		if c.has {
			v, key, ok = c.value, c.key, true
		}
		if i == len(segs)-1 && len(c.params) > 0 {
			for _, p := range c.params {
				if paramsEqual(params, p.want) {
					return p.value, p.key, true
				}
			}
		}
	}
	return v, key, ok
}
