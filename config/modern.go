package config

import (
	"fmt"
	"time"
)

// parseModern loads the modern YAML format.
func parseModern(file string, data []byte) (*Config, error) {
	root, err := fromYAML(file, data)
	if err != nil {
		return nil, err
	}
	return modernFrom(file, root)
}

// modernFrom loads a parsed modern YAML document.
func modernFrom(file string, root *node) (*Config, error) {
	var err error
	d := &decoder{file: file}
	cfg := defaults()
	cfg.Source = file
	cfg.nsPos = Pos{File: file}
	settingsSeen := ""
	err = d.fields(root, "", func(key string, k, v *node) (bool, error) {
		switch key {
		case "hivegate", "drone":
			if settingsSeen != "" {
				return true, d.errf(k, key, "the settings section is given twice (also as %q)", settingsSeen)
			}
			settingsSeen = key
			return true, d.settings(&cfg, v, key)
		case "backends":
			return true, d.backends(&cfg, v)
		case "urls":
			return true, eachEntry(d, v, key, func(e string, kn, vn *node) error {
				s, err := d.str(vn, key+"."+e)
				cfg.URLs = append(cfg.URLs, Entry[string]{Key: e, Value: s, Pos: d.pos(kn)})
				return err
			})
		case "ttls":
			return true, eachEntry(d, v, key, func(e string, kn, vn *node) error {
				t, err := d.ttl(vn, key+"."+e)
				cfg.TTLs = append(cfg.TTLs, Entry[TTL]{Key: e, Value: t, Pos: d.pos(kn)})
				return err
			})
		case "timeouts":
			return true, eachEntry(d, v, key, func(e string, kn, vn *node) error {
				t, err := d.timeout(vn, key+"."+e)
				cfg.Timeouts = append(cfg.Timeouts, Entry[time.Duration]{Key: e, Value: t, Pos: d.pos(kn)})
				return err
			})
		case "retries":
			return true, eachEntry(d, v, key, func(e string, kn, vn *node) error {
				r, err := d.retries(vn, key+"."+e)
				cfg.Retries = append(cfg.Retries, Entry[int]{Key: e, Value: r, Pos: d.pos(kn)})
				return err
			})
		case "translate_to_appbase":
			cfg.translatePos = d.pos(v)
			cfg.TranslateToAppbase, err = d.strings(v, key)
			return true, err
		case "default_namespace":
			cfg.nsPos = d.pos(v)
			cfg.DefaultNamespace, err = d.str(v, key)
			return true, err
		case "cache":
			return true, d.cacheSection(&cfg, k, v)
		case "auth":
			return true, d.authSection(&cfg, k, v)
		case "quotas":
			return true, d.quotaSection(&cfg, k, v) // quota.go
		case "streams":
			return true, d.streamSection(&cfg, k, v) // stream.go
		case "limits":
			return true, d.limits(&cfg, v, key)
		case "equivalent_methods":
			return true, d.equivalentMethods(&cfg, v)
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if cfg.droneMetrics && cfg.sectionMetrics {
		return nil, &Error{Pos: Pos{File: file}, Key: settingsSeen + ".metrics", Err: fmt.Errorf("give the public metrics either as %s.metrics {enabled, path} or as Drone's metrics_enabled and metrics_path, not both", settingsSeen)}
	}
	return &cfg, nil
}

func (d *decoder) settings(cfg *Config, n *node, section string) error {
	s := &cfg.Settings
	return d.fields(n, section, func(key string, k, v *node) (bool, error) {
		path := section + "." + key
		var err error
		switch key {
		case "port":
			var p int64
			p, err = d.integer(v, path)
			if err == nil && (p < 0 || p > 65535) {
				err = d.errf(v, path, "port %d out of range 0..65535", p)
			}
			s.Port = int(p)
		case "hostname":
			s.Hostname, err = d.str(v, path)
		case "cache_max_capacity":
			s.CacheMaxCapacity, err = d.integer(v, path)
			if err == nil && s.CacheMaxCapacity < 0 {
				err = d.errf(v, path, "cache_max_capacity is negative: use 0 to turn the cache off")
			}
		case "operator_message":
			s.OperatorMessage, err = d.str(v, path)
		case "middleware_connection_threads":
			var t int64
			t, err = d.integer(v, path)
			if err == nil && (t < 1 || t > 10000) {
				err = d.errf(v, path, "middleware_connection_threads %d out of range 1..10000", t)
			}
			s.MiddlewareConnectionThreads = int(t)
		case "lib_poll_interval":
			var t time.Duration
			t, err = d.timeout(v, path)
			if err == nil && t == 0 {
				err = d.errf(v, path, "lib_poll_interval must be at least 1 second")
			}
			s.LIBPollInterval = t
		case "cors_allowed_origins":
			s.CORSAllowedOrigins, err = d.strings(v, path)
		case "http1_fast_path":
			// Sessions up to 0.1 served HTTP/1.1 JSON-RPC on a connection
			// loop of their own; net/http serves everything now. Files that
			// set the key still load.
			if _, err = d.boolean(v, path); err == nil {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %s has no effect: net/http serves every request", d.pos(k), path))
			}
		case "access_log", "metrics", "admin_listen", "admin_allowed_hosts", "admin_token", "tracing": // ops.go
			err = d.opsSetting(cfg, key, v, path)
		case "node_fail_threshold":
			s.NodeFailThreshold, err = d.intIn(v, path, 1, 1000)
		case "node_max_lag_blocks":
			s.NodeMaxLagBlocks, err = d.intIn(v, path, 0, 1_000_000)
		case "node_max_head_age", "node_max_sync_age":
			var secs int
			if secs, err = d.intIn(v, path, 0, 86400); err == nil && secs > 0 && secs < 3 {
				err = d.errf(v, path, "%s %d is shorter than a block (3 s): use 0 to turn the check off", key, secs)
			}
			age := time.Duration(secs) * time.Second
			if secs == 0 {
				age = -1 // off
			}
			if key == "node_max_head_age" {
				s.NodeMaxHeadAge = age
			} else {
				s.NodeMaxSyncAge = age
			}
		case "compress_min_bytes":
			s.CompressMinBytes, err = d.intIn(v, path, 0, 1<<30)
		default:
			return d.droneSetting(cfg, key, k, v, path) // drone.go
		}
		return true, err
	})
}

// backends reads the backends section: name → URL, or name → a list of
// URLs for a backend of several nodes.
func (d *decoder) backends(cfg *Config, n *node) error {
	return eachEntry(d, n, "backends", func(name string, kn, vn *node) error {
		path := "backends." + name
		var urls []string
		if vn.kind == kindSeq {
			if len(vn.vals) == 0 {
				return d.errf(vn, path, "empty list: a backend needs at least one node URL")
			}
			for _, item := range vn.vals {
				u, err := d.str(item, path)
				if err != nil {
					return err
				}
				if err := checkURL(u); err != nil {
					return d.errf(item, path, "%w", err)
				}
				urls = append(urls, u)
			}
		} else {
			u, err := d.str(vn, path)
			if err != nil {
				return d.errf(vn, path, "want a node URL or a list of them, got %s", describe(vn))
			}
			if err := checkURL(u); err != nil {
				return d.errf(vn, path, "%w", err)
			}
			urls = []string{u}
		}
		b := Backend{Name: name, URL: urls[0], Pos: d.pos(kn)}
		if len(urls) > 1 {
			b.Nodes = urls
		}
		cfg.Backends = append(cfg.Backends, b)
		return nil
	})
}

// limits reads the limits section (both formats); see limits.go.
func (d *decoder) limits(cfg *Config, n *node, section string) error {
	return d.limitsSection(&cfg.Limits, n, section)
}

// eachEntry walks a map of method keys (or names) to values.
func eachEntry(d *decoder, n *node, section string, f func(key string, k, v *node) error) error {
	if n.kind == kindScalar && n.null {
		return nil
	}
	if n.kind != kindMap {
		return d.errf(n, section, "want a mapping, got %s", describe(n))
	}
	for i, k := range n.keys {
		if k.str == "" {
			return d.errf(k, section, "empty key")
		}
		if err := f(k.str, k, n.vals[i]); err != nil {
			return err
		}
	}
	return nil
}
