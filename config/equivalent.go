package config

import (
	"fmt"
	"strings"
)

// equivalentMethods reads Drone's equivalent_methods section: each key is a
// destination method, as a client would call it ("block_api.get_block"),
// and its value the list of source method keys renamed to it, in their full
// form with the namespace ("appbase.condenser_api.get_block"). hivegate keeps
// them source first (Config.EquivalentMethods).
func (d *decoder) equivalentMethods(cfg *Config, n *node) error {
	return eachEntry(d, n, "equivalent_methods", func(dest string, kn, vn *node) error {
		path := "equivalent_methods." + dest
		sources, err := d.strings(vn, path)
		if err != nil {
			return err
		}
		for i, src := range sources {
			pos := d.pos(vn)
			if vn.kind == kindSeq && i < len(vn.vals) {
				pos = d.pos(vn.vals[i])
			}
			cfg.EquivalentMethods = append(cfg.EquivalentMethods, Entry[string]{Key: src, Value: dest, Pos: pos})
		}
		return nil
	})
}

// checkEquivalents checks the shape of every equivalent_methods entry: a
// source is a method key of two or three segments without params (Drone
// looks sources up by namespace.api.method or namespace.method), given once;
// a destination is a method name of one to three parts. Loops (a renamed to
// b, b to a) are found by the router, which knows how each destination
// parses.
func (c *Config) checkEquivalents() error {
	seen := map[string]Pos{}
	for _, e := range c.EquivalentMethods {
		key := "equivalent_methods." + e.Value
		if prev, dup := seen[e.Key]; dup {
			return &Error{Pos: e.Pos, Key: key, Err: fmt.Errorf("source %q is also renamed at %s", e.Key, prev)}
		}
		seen[e.Key] = e.Pos
		segs := strings.Split(e.Key, ".")
		if len(segs) < 2 || len(segs) > 3 || strings.Contains(e.Key, "params=") || !allNames(segs) {
			return &Error{Pos: e.Pos, Key: key, Err: fmt.Errorf("source %q: want a method key namespace.api.method or namespace.method (such as appbase.condenser_api.get_block), without params", e.Key)}
		}
		if len(segs) == 2 && (strings.HasSuffix(segs[0], "_api") || segs[0] == "jsonrpc") {
			// Drone loads such a source and never matches it.
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: source %q never matches: a call to %s is keyed appbase.%s (write that)", e.Pos, key, e.Key, e.Key, e.Key))
		}
		dsegs := strings.Split(e.Value, ".")
		if len(dsegs) > 3 || e.Value == "call" || !allNames(dsegs) {
			return &Error{Pos: e.Pos, Key: key, Err: fmt.Errorf("destination %q: want a method as a client calls it, such as block_api.get_block", e.Value)}
		}
	}
	return nil
}

// allNames reports whether every segment is a valid name: printable ASCII
// without dots, spaces or '='.
func allNames(segs []string) bool {
	for _, s := range segs {
		if !validNamespace(s) {
			return false
		}
	}
	return true
}
