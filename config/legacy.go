package config

import (
	"strconv"
	"time"
)

// parseLegacy loads jussi's JSON format: a `limits` object and an `upstreams`
// list whose urls/ttls/timeouts/retries are [key, value] pairs (or jussi's
// older {"prefix": key, "upstream_url"|"upstream_ttl"|...: value} objects).
// Each distinct URL becomes a backend named after its host (host:port).
// The default namespace is `steemd` when an upstream has that name (jussi's
// own node namespace), otherwise `hived`.
func parseLegacy(file string, data []byte) (*Config, error) {
	root, err := fromJSON(file, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: file}
	cfg := defaults()
	cfg.Source = file
	cfg.nsPos = Pos{File: file}
	upstreams := map[string]Pos{}
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
				if err := d.upstream(&cfg, u, i, upstreams); err != nil {
					return true, err
				}
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := upstreams["steemd"]; ok {
		cfg.DefaultNamespace = "steemd"
	}
	return &cfg, nil
}

func (d *decoder) upstream(cfg *Config, n *node, i int, seen map[string]Pos) error {
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
				cfg.URLs = append(cfg.URLs, Entry[string]{Key: e, Value: cfg.legacyBackend(e, u, d.pos(vn)), Pos: d.pos(kn)})
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

// legacyBackend returns the backend name for a legacy URL (already checked
// by checkURL), creating the backend on first use. It is named after the
// first method key routed to that URL (with a #2, #3... suffix on a clash).
// Backend names can appear in client-visible error details, so they are
// never derived from the URL: that would show clients an internal address.
func (c *Config) legacyBackend(key, raw string, pos Pos) string {
	for _, b := range c.Backends {
		if b.URL == raw {
			return b.Name
		}
	}
	name := key
	for i := 2; c.hasBackend(name); i++ {
		name = key + "#" + strconv.Itoa(i)
	}
	c.Backends = append(c.Backends, Backend{Name: name, URL: raw, Pos: pos})
	return name
}

func (c *Config) hasBackend(name string) bool {
	_, ok := c.BackendURL(name)
	return ok
}
