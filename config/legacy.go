package config

import (
	"time"
)

// parseLegacy loads jussi's JSON format: a `limits` object and an `upstreams`
// list whose urls/ttls/timeouts/retries are [key, value] pairs (or jussi's
// older {"prefix": key, "upstream_url"|"upstream_ttl"|...: value} objects).
// Each distinct URL becomes a backend named after the first key that uses it.
func parseLegacy(file string, data []byte) (*Config, error) {
	root, err := fromJSON(data)
	if err != nil {
		return nil, &Error{Pos: Pos{File: file}, Err: err}
	}
	d := &decoder{file: file}
	cfg := defaults()
	cfg.Source = file
	cfg.DefaultNamespace = ""
	err = d.fields(root, "", func(key string, k, v *node) (bool, error) {
		switch key {
		case "limits":
			return true, d.limits(&cfg, v, key)
		case "upstreams":
			if v.kind != kindSeq {
				return true, d.errf(v, key, "want a list of upstream objects")
			}
			for _, u := range v.vals {
				if err := d.upstream(&cfg, u); err != nil {
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
	if cfg.DefaultNamespace == "" {
		cfg.DefaultNamespace = DefaultNamespace
		for _, b := range cfg.upstreamNames {
			if b == "steemd" {
				cfg.DefaultNamespace = "steemd"
			}
		}
	}
	cfg.upstreamNames = nil
	return &cfg, nil
}

func (d *decoder) upstream(cfg *Config, n *node) error {
	if n.kind != kindMap {
		return d.errf(n, "upstreams", "want an upstream object")
	}
	nameNode := n.get("name")
	if nameNode == nil {
		return d.errf(n, "upstreams", "upstream has no name")
	}
	name, err := d.str(nameNode, "upstreams.name")
	if err != nil {
		return err
	}
	cfg.upstreamNames = append(cfg.upstreamNames, name)
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
			}
			return true, err
		case "urls":
			return true, d.pairs(v, p, "upstream_url", func(e string, kn, vn *node) error {
				u, err := d.str(vn, p+"."+e)
				if err != nil {
					return err
				}
				cfg.URLs = append(cfg.URLs, Entry[string]{Key: e, Value: cfg.legacyBackend(e, u, d.pos(kn)), Pos: d.pos(kn)})
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
		return d.errf(n, path, "want a list of [key, value] pairs")
	}
	for _, item := range n.vals {
		var kn, vn *node
		switch item.kind {
		case kindSeq:
			if len(item.vals) != 2 {
				return d.errf(item, path, "want a [key, value] pair, got %d elements", len(item.vals))
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
			return d.errf(item, path, "want a [key, value] pair")
		}
		key, err := d.str(kn, path)
		if err != nil || key == "" {
			return d.errf(kn, path, "want a method key string")
		}
		if err := f(key, kn, vn); err != nil {
			return err
		}
	}
	return nil
}

// legacyBackend returns the backend name for a legacy URL, creating it on
// first use: the backend is named after the first key routed to that URL.
func (c *Config) legacyBackend(key, url string, pos Pos) string {
	for _, b := range c.Backends {
		if b.URL == url {
			return b.Name
		}
	}
	c.Backends = append(c.Backends, Backend{Name: key, URL: url, Pos: pos})
	return key
}
