package router

import "github.com/hivegate/hivegate/config"

// KeyMap maps config method keys to values of any kind and finds the one
// that applies to a call exactly as urls, ttls, timeouts and retries are
// resolved: on whole segments, most specific first, a params= entry
// matching the call's params beating its method. Sections other than the
// four routing ones use it (auth.require_token). It is immutable and safe
// for concurrent use.
type KeyMap[T any] struct {
	t trie[T]
}

// NewKeyMap builds a KeyMap from a config section's entries. A malformed
// key, or two keys that mean the same, is a *config.Error naming the
// file, line and section.key.
func NewKeyMap[T any](entries []config.Entry[T], section string) (*KeyMap[T], error) {
	m := &KeyMap[T]{}
	if err := insertAll(&m.t, entries, section); err != nil {
		return nil, err
	}
	return m, nil
}

// Lookup returns the value of the most specific key matching c, and that
// key; ok is false when no key matches.
func (m *KeyMap[T]) Lookup(c *Call) (v T, key string, ok bool) {
	var buf [3]string
	segs := c.appendSegments(buf[:0])
	params := requestParams{raw: c.Params}
	var f found[T]
	n := &m.t.root
	for i, s := range segs {
		next := n.children[s]
		if next == nil {
			break
		}
		n = next
		f.visit(n, i == len(segs)-1, &params)
	}
	return f.v, f.key, f.ok
}

// Empty reports whether the map has no keys.
func (m *KeyMap[T]) Empty() bool { return len(m.t.root.children) == 0 }
