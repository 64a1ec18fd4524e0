package config

import (
	"fmt"
	"time"
)

// droneOnlySettings are Drone settings keys hivegate accepts so that an
// existing Drone config.yaml loads unchanged, but that have no effect here.
// Each produces a warning naming what to use instead.
var droneOnlySettings = map[string]string{
	"add_cors_headers":            "hivegate always answers CORS preflight requests",
	"access_log_format":           "hivegate logs with log/slog; choose text or JSON with --log-format",
	"access_log_file":             "hivegate logs to standard error",
	"access_log_flush_every_line": "hivegate logs to standard error",
	"metrics_enabled":             "hivegate metrics are described in the README",
	"metrics_path":                "hivegate metrics are described in the README",
	"metrics_namespace":           "hivegate metrics are described in the README",
	"add_jussi_headers":           "hivegate sets x-hivegate-cache and x-hivegate-route",
}

// parseModern loads the modern YAML format.
func parseModern(file string, data []byte) (*Config, error) {
	root, err := fromYAML(file, data)
	if err != nil {
		return nil, err
	}
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
		case "limits":
			return true, d.limits(&cfg, v, key)
		case "equivalent_methods":
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: equivalent_methods is a Drone key hivegate does not use: hivegate already gives calls that mean the same thing one cache key", d.pos(k)))
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
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
			s.HTTP1FastPath, err = d.boolean(v, path)
		case "access_log", "metrics", "admin_listen", "admin_token", "tracing": // ops.go
			err = d.opsSetting(cfg, key, v, path)
		default:
			why, ok := droneOnlySettings[key]
			if !ok {
				return false, nil
			}
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %s is a Drone setting hivegate does not use: %s", d.pos(k), path, why))
		}
		return true, err
	})
}

func (d *decoder) backends(cfg *Config, n *node) error {
	return eachEntry(d, n, "backends", func(name string, kn, vn *node) error {
		u, err := d.str(vn, "backends."+name)
		if err != nil {
			return err
		}
		if err := checkURL(u); err != nil {
			return d.errf(vn, "backends."+name, "%w", err)
		}
		cfg.Backends = append(cfg.Backends, Backend{Name: name, URL: u, Pos: d.pos(kn)})
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
