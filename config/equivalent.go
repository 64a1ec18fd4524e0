package config

import (
	"fmt"
	"strings"
)

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
