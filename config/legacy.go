package config

import (
	"slices"
	"strconv"
	"time"
)

// parseLegacy loads jussi's JSON format: a `limits` object and an `upstreams`
// list whose urls/ttls/timeouts/retries are [key, value] pairs (or jussi's
// older {"prefix": key, "upstream_url"|"upstream_ttl"|...: value} objects),
// plus the settings sections of jussi's next branch (server, upstream,
// cache, logging, telemetry, prometheus: jussi.go). A file that is a list
// is the upstreams list alone, as jussi read its files until April 2018.
//
// A key given several urls pairs is routed to a backend of several nodes,
// one per URL, in file order. Each distinct list of URLs becomes a backend
// named after the first key routed to it. The default namespace is `steemd`
// when an upstream has that name (jussi's own node namespace), otherwise
// `hived`.
func parseLegacy(file string, data []byte) (*Config, error) {
	root, err := fromJSON(file, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: file}
	cfg := defaults()
	cfg.Source = file
	cfg.nsPos = Pos{File: file}
	cfg.Limits.AccountHistoryLimit = DefaultJussiAccountHistoryLimit
	upstreams := map[string]Pos{}
	var urls []urlPair
	if root.kind == kindSeq {
		// jussi before April 2018 (steemit/jussi e5a86b4) read the file as
		// the list of upstreams itself.
		root = &node{kind: kindMap, line: root.line, keys: []*node{{kind: kindScalar, str: "upstreams", line: root.line}}, vals: []*node{root}}
	}
	err = d.fields(root, "", func(key string, k, v *node) (bool, error) {
		switch key {
		case "limits":
			return true, d.limits(&cfg, v, key)
		case "auth":
			return true, d.authSection(&cfg, k, v)
		case "upstreams":
			if v.kind != kindSeq {
				return true, d.errf(v, key, "want a list of upstream objects, got %s", describe(v))
			}
			for i, u := range v.vals {
				if err := d.upstream(&cfg, u, i, upstreams, &urls); err != nil {
					return true, err
				}
			}
			return true, nil
		}
		return d.jussiSection(&cfg, key, k, v) // jussi.go
	})
	if err != nil {
		return nil, err
	}
	cfg.legacyRoutes(urls)
	if _, ok := upstreams["steemd"]; ok {
		cfg.DefaultNamespace = "steemd"
	}
	cfg.warnUnread()
	return &cfg, nil
}

// urlPair is one [key, url] pair of a legacy urls list.
type urlPair struct {
	key, url   string
	kpos, vpos Pos
}

// legacyRoutes turns the urls pairs into urls entries and backends: the
// pairs of one key, in file order, are the nodes of its backend.
func (c *Config) legacyRoutes(pairs []urlPair) {
	byKey := map[string][]string{}
	var order []urlPair
	for _, p := range pairs {
		list, seen := byKey[p.key]
		if !seen {
			order = append(order, p)
		}
		if !slices.Contains(list, p.url) {
			byKey[p.key] = append(list, p.url)
		}
	}
	for _, p := range order {
		name := c.legacyBackend(p.key, byKey[p.key], p.vpos)
		c.URLs = append(c.URLs, Entry[string]{Key: p.key, Value: name, Pos: p.kpos})
	}
}

func (d *decoder) upstream(cfg *Config, n *node, i int, seen map[string]Pos, urls *[]urlPair) error {
	at := "upstreams[" + strconv.Itoa(i) + "]"
	if n.kind != kindMap {
		return d.errf(n, at, "want an upstream object, got %s", describe(n))
	}
	nameNode := n.get("name")
	if nameNode == nil {
		return d.errf(n, at+".name", "upstream has no name")
	}
	name, err := d.str(nameNode, at+".name")
	if err != nil {
		return err
	}
	if !validNamespace(name) {
		return d.errf(nameNode, at+".name", "want a namespace name without dots, spaces or '=', got %q", name)
	}
	if prev, dup := seen[name]; dup {
		return d.errf(nameNode, at+".name", "upstream %q is also defined at %s", name, prev)
	}
	seen[name] = d.pos(nameNode)
	path := "upstreams[" + name + "]"
	return d.fields(n, path, func(key string, k, v *node) (bool, error) {
		p := path + "." + key
		switch key {
		case "name":
			return true, nil
		case "translate_to_appbase":
			on, err := d.boolean(v, p)
			if on {
				cfg.TranslateToAppbase = append(cfg.TranslateToAppbase, name)
				cfg.translatePos = d.pos(v)
			}
			return true, err
		case "urls":
			return true, d.pairs(v, p, "upstream_url", func(e string, kn, vn *node) error {
				u, err := d.str(vn, p+"."+e)
				if err != nil {
					return err
				}
				if err := checkURL(u); err != nil {
					return d.errf(vn, p+"."+e, "%w", err)
				}
				*urls = append(*urls, urlPair{key: e, url: u, kpos: d.pos(kn), vpos: d.pos(vn)})
				return nil
			})
		case "ttls":
			return true, d.pairs(v, p, "upstream_ttl", func(e string, kn, vn *node) error {
				t, err := d.ttl(vn, p+"."+e)
				cfg.TTLs = append(cfg.TTLs, Entry[TTL]{Key: e, Value: t, Pos: d.pos(kn)})
				return err
			})
		case "timeouts":
			return true, d.pairs(v, p, "upstream_timeout", func(e string, kn, vn *node) error {
				t, err := d.timeout(vn, p+"."+e)
				cfg.Timeouts = append(cfg.Timeouts, Entry[time.Duration]{Key: e, Value: t, Pos: d.pos(kn)})
				return err
			})
		case "retries":
			return true, d.pairs(v, p, "upstream_retries", func(e string, kn, vn *node) error {
				r, err := d.retries(vn, p+"."+e)
				cfg.Retries = append(cfg.Retries, Entry[int]{Key: e, Value: r, Pos: d.pos(kn)})
				return err
			})
		}
		return false, nil
	})
}

// pairs walks a legacy list of [key, value] pairs or {"prefix": key, valueKey: value} objects.
func (d *decoder) pairs(n *node, path, valueKey string, f func(key string, k, v *node) error) error {
	if n.kind != kindSeq {
		return d.errf(n, path, "want a list of [key, value] pairs, got %s", describe(n))
	}
	for _, item := range n.vals {
		var kn, vn *node
		switch item.kind {
		case kindSeq:
			if len(item.vals) != 2 {
				return d.errf(item, path, "want a [key, value] pair, got a list of %d", len(item.vals))
			}
			kn, vn = item.vals[0], item.vals[1]
		case kindMap:
			for i, k := range item.keys {
				switch k.str {
				case "prefix":
					kn = item.vals[i]
				case valueKey:
					vn = item.vals[i]
				default:
					return d.errf(k, path+"."+k.str, "unknown key (want prefix and %s)", valueKey)
				}
			}
			if kn == nil || vn == nil {
				return d.errf(item, path, "want {\"prefix\": key, %q: value}", valueKey)
			}
		default:
			return d.errf(item, path, "want a [key, value] pair, got %s", describe(item))
		}
		key, err := d.str(kn, path)
		if err != nil {
			return err
		}
		if key == "" {
			return d.errf(kn, path, "empty method key")
		}
		if err := f(key, kn, vn); err != nil {
			return err
		}
	}
	return nil
}

// legacyBackend returns the backend name for a key's node URLs (already
// checked by checkURL), creating the backend on first use. It is named
// after the first method key routed to that list of URLs (with a #2, #3...
// suffix on a clash). Backend names can appear in client-visible error
// details, so they are never derived from a URL: that would show clients
// an internal address.
func (c *Config) legacyBackend(key string, urls []string, pos Pos) string {
	for _, b := range c.Backends {
		if slices.Equal(b.NodeURLs(), urls) {
			return b.Name
		}
	}
	name := key
	for i := 2; c.hasBackend(name); i++ {
		name = key + "#" + strconv.Itoa(i)
	}
	b := Backend{Name: name, URL: urls[0], Pos: pos}
	if len(urls) > 1 {
		b.Nodes = urls
	}
	c.Backends = append(c.Backends, b)
	return name
}

func (c *Config) hasBackend(name string) bool {
	_, ok := c.BackendURL(name)
	return ok
}
