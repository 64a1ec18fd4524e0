package router

import (
	"bytes"
	"time"

	"github.com/hivegate/hivegate/config"
)

// routeNode is one node of the tries of the four sections (urls, ttls,
// timeouts, retries) merged: a call's path is walked once, with one map
// lookup per segment, instead of once per section. Each field is the
// section's node at this path, nil when the section has none.
type routeNode struct {
	children map[string]*routeNode
	url      *tnode[string]
	ttl      *tnode[config.TTL]
	timeout  *tnode[time.Duration]
	retries  *tnode[int]
}

// buildRoutes merges the router's four tries into r.routes.
func (r *Router) buildRoutes() {
	mergeInto(&r.routes, &r.urls.root, func(n *routeNode, t *tnode[string]) { n.url = t })
	mergeInto(&r.routes, &r.ttls.root, func(n *routeNode, t *tnode[config.TTL]) { n.ttl = t })
	mergeInto(&r.routes, &r.timeouts.root, func(n *routeNode, t *tnode[time.Duration]) { n.timeout = t })
	mergeInto(&r.routes, &r.retries.root, func(n *routeNode, t *tnode[int]) { n.retries = t })
}

// mergeInto records every node under t at the same path under n.
func mergeInto[T any](n *routeNode, t *tnode[T], set func(*routeNode, *tnode[T])) {
	set(n, t)
	for seg, child := range t.children {
		if n.children == nil {
			n.children = map[string]*routeNode{}
		}
		c := n.children[seg]
		if c == nil {
			c = &routeNode{}
			n.children[seg] = c
		}
		mergeInto(c, child, set)
	}
}

// found is the most specific value of one section met so far on a walk.
type found[T any] struct {
	v   T
	key string
	ok  bool
}

// visit applies the section's node t (nil: none) at a walk's step, as
// trie.match does: a value on the node beats the ones above it, and on the
// call's last segment a params= entry equal to the call's params beats it.
func (f *found[T]) visit(t *tnode[T], last bool, params *requestParams) {
	if t == nil {
		return
	}
	if t.has {
		f.v, f.key, f.ok = t.value, t.key, true
	}
	if last && len(t.params) > 0 {
		if form, valid := params.matchForm(); valid {
			for _, p := range t.params {
				if bytes.Equal(form, p.want) {
					f.v, f.key, f.ok = p.value, p.key, true
					return
				}
			}
		}
	}
}

// routeMatch is what one walk finds in the four sections.
type routeMatch struct {
	url     found[string]
	ttl     found[config.TTL]
	timeout found[time.Duration]
	retries found[int]
}

// match walks segs down the merged tries.
func (n *routeNode) match(segs []string, params *requestParams) routeMatch {
	var m routeMatch
	for i, s := range segs {
		c := n.children[s]
		if c == nil {
			break
		}
		n = c
		last := i == len(segs)-1
		m.url.visit(c.url, last, params)
		m.ttl.visit(c.ttl, last, params)
		m.timeout.visit(c.timeout, last, params)
		m.retries.visit(c.retries, last, params)
	}
	return m
}
