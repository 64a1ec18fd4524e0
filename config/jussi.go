package config

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The settings sections of jussi's next branch (steemit/jussi, next:
// internal/config/config.go, read with viper from the same JSON file as the
// upstreams): server, upstream, cache, logging, telemetry and prometheus.
// Each key is implemented or, where hivegate has no equivalent, accepted
// with a warning that says what hivegate does instead; a value that asks
// for what hivegate does anyway loads silently. Keys jussi documents
// (docs/CONFIGURATION.md) but never reads are accepted with a warning that
// says so. docs/configuration.md lists them all.

// jussiSection reads one top-level section of jussi's next branch. It
// reports false for a key that is not one.
func (d *decoder) jussiSection(cfg *Config, key string, k, v *node) (bool, error) {
	switch key {
	case "server":
		return true, d.jussiServer(cfg, v)
	case "upstream":
		return true, d.jussiUpstream(cfg, v)
	case "cache":
		return true, d.jussiCache(cfg, k, v)
	case "logging":
		return true, d.jussiLogging(cfg, v)
	case "telemetry":
		return true, d.jussiTelemetry(cfg, k, v)
	case "prometheus":
		return true, d.jussiPrometheus(cfg, v)
	}
	return false, nil
}

// warnAt records a warning about the key at k.
func (d *decoder) warnAt(cfg *Config, k *node, path, format string, args ...any) {
	cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %s: ", d.pos(k), path)+fmt.Sprintf(format, args...))
}

// unreadByJussi warns about a key jussi documents but never reads.
func (d *decoder) unreadByJussi(cfg *Config, k *node, path string) {
	d.warnAt(cfg, k, path, "jussi documents this key but never reads it; hivegate ignores it too")
}

// warnUnread warns about the limits keys jussi documents but never reads.
func (c *Config) warnUnread() {
	for _, u := range c.Limits.unread {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: jussi documents this key but never reads it; hivegate ignores it too (the batch limit is limits.max_batch_size)", u.pos, u.path))
	}
}

func (d *decoder) jussiServer(cfg *Config, n *node) error {
	s := &cfg.Settings
	return d.fields(n, "server", func(key string, k, v *node) (bool, error) {
		path := "server." + key
		var err error
		switch key {
		case "host":
			s.Hostname, err = d.str(v, path)
		case "port":
			var p int
			p, err = d.intIn(v, path, 0, 65535)
			s.Port = p
		case "batch_size_limit":
			cfg.Limits.MaxBatchSize, err = d.intIn(v, path, 1, 10000)
		case "workers":
			if _, err = d.integer(v, path); err == nil {
				d.warnAt(cfg, k, path, "hivegate serves requests on every CPU (GOMAXPROCS), with no worker processes")
			}
		case "tcp_backlog":
			if _, err = d.integer(v, path); err == nil {
				d.warnAt(cfg, k, path, "hivegate listens with the system's backlog (net.core.somaxconn on Linux)")
			}
		case "request_timeout", "response_timeout":
			d.unreadByJussi(cfg, k, path)
		default:
			return false, nil
		}
		return true, err
	})
}

func (d *decoder) jussiUpstream(cfg *Config, n *node) error {
	return d.fields(n, "upstream", func(key string, k, v *node) (bool, error) {
		path := "upstream." + key
		switch key {
		case "test_urls":
			on, err := d.boolean(v, path)
			if on {
				d.warnAt(cfg, k, path, "hivegate does not test the upstream URLs before it starts: it probes every node in the background and reports the ones it cannot reach (GET /, metrics)")
			}
			return true, err
		case "websocket_enabled":
			on, err := d.boolean(v, path)
			if !on {
				d.warnAt(cfg, k, path, "hivegate always calls ws:// and wss:// URLs over WebSocket")
			}
			return true, err
		case "websocket_pool":
			return true, d.jussiWSPool(cfg, v, path)
		}
		return false, nil
	})
}

func (d *decoder) jussiWSPool(cfg *Config, n *node, section string) error {
	return d.fields(n, section, func(key string, k, v *node) (bool, error) {
		path := section + "." + key
		var err error
		switch key {
		case "max_size":
			cfg.Settings.WSConnsPerNode, err = d.intIn(v, path, 1, 10000)
		case "min_size":
			if _, err = d.integer(v, path); err == nil {
				d.warnAt(cfg, k, path, "hivegate opens WebSocket connections when calls need them, up to upstream.websocket_pool.max_size per node")
			}
		case "queue_size":
			if _, err = d.integer(v, path); err == nil {
				d.warnAt(cfg, k, path, "hivegate sends any number of calls on one WebSocket connection at once, matched to their answers by id")
			}
		case "read_limit", "write_limit", "max_msg_size":
			if _, err = d.integer(v, path); err == nil {
				d.warnAt(cfg, k, path, "hivegate caps every answer at limits.max_response_bytes (default 64 MiB), whatever the transport")
			}
		default:
			return false, nil
		}
		return true, err
	})
}

// jussiCache reads jussi's cache section: the in-process cache switch and
// the Redis tier (hivegate's cache: section of the YAML format).
func (d *decoder) jussiCache(cfg *Config, k, n *node) error {
	s := defaultCacheSettings()
	s.Pos = d.pos(k)
	var redisAddr, redisPassword string
	redisDB := int64(0)
	err := d.fields(n, "cache", func(key string, kn, v *node) (bool, error) {
		path := "cache." + key
		var err error
		switch key {
		case "enabled":
			var on bool
			if on, err = d.boolean(v, path); err == nil && !on {
				cfg.Settings.CacheMaxCapacity = 0
			}
		case "redis_url":
			if s.RedisURL, err = d.str(v, path); err == nil && s.RedisURL != "" {
				err = d.redisURL(v, path, s.RedisURL)
			}
		case "read_replica_urls":
			if s.RedisReplicaURLs, err = d.strings(v, path); err == nil {
				for i, u := range s.RedisReplicaURLs {
					if err = d.redisURL(v.vals[i], path, u); err != nil {
						break
					}
				}
			}
		case "read_timeout":
			s.RedisTimeout, err = d.jussiSeconds(v, path, MaxRedisTimeout)
		case "test_before_add":
			var on bool
			if on, err = d.boolean(v, path); err == nil && on {
				d.warnAt(cfg, kn, path, "hivegate writes an entry to Redis without reading it first")
			}
		case "memory":
			err = d.fields(v, path, func(mk string, mkn, mv *node) (bool, error) {
				mpath := path + "." + mk
				switch mk {
				case "max_size":
					_, err := d.integer(mv, mpath)
					if err == nil {
						d.warnAt(cfg, mkn, mpath, "hivegate's cache is bounded in bytes, not entries: %d bytes (1 GiB) by default", DefaultCacheMaxCapacity)
					}
					return true, err
				case "enabled", "default_ttl":
					d.unreadByJussi(cfg, mkn, mpath)
					return true, nil
				}
				return false, nil
			})
		case "redis":
			err = d.fields(v, path, func(rk string, rkn, rv *node) (bool, error) {
				rpath := path + "." + rk
				var err error
				switch rk {
				case "address":
					redisAddr, err = d.str(rv, rpath)
				case "password":
					redisPassword, err = d.str(rv, rpath)
				case "db":
					redisDB, err = d.integer(rv, rpath)
				case "compression":
					var on bool
					if on, err = d.boolean(rv, rpath); err == nil && !on {
						s.RedisCompressMinBytes = MaxRedisCompressMinBytes
					}
				case "pool_size", "read_timeout", "write_timeout", "dial_timeout":
					if _, err = d.integer(rv, rpath); err == nil {
						d.warnAt(cfg, rkn, rpath, "hivegate bounds every Redis operation by cache.read_timeout (its redis_timeout) and sizes its Redis pool itself")
					}
				case "enabled", "url":
					d.unreadByJussi(cfg, rkn, rpath)
				default:
					return false, nil
				}
				return true, err
			})
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	if s.RedisURL == "" && redisAddr != "" {
		// jussi's own construction (CacheConfig.GetRedisURL).
		u := url.URL{Scheme: "redis", Host: redisAddr}
		if redisPassword != "" {
			u.User = url.UserPassword("", redisPassword)
		}
		if redisDB > 0 {
			u.Path = "/" + strconv.FormatInt(redisDB, 10)
		}
		s.RedisURL = u.String()
		if err := d.redisURL(n, "cache.redis.address", s.RedisURL); err != nil {
			return err
		}
	}
	if s.RedisURL == "" && len(s.RedisReplicaURLs) > 0 {
		return d.errf(n, "cache.read_replica_urls", "read replicas need a primary: set cache.redis_url or cache.redis.address too")
	}
	cfg.Cache = s
	return nil
}

// jussiSeconds reads a positive number of seconds (fractions allowed), at
// most max: jussi's redis timeout.
func (d *decoder) jussiSeconds(n *node, key string, max time.Duration) (time.Duration, error) {
	if n.kind != kindScalar || (n.tag != tagInt && n.tag != tagFloat) {
		return 0, d.errf(n, key, "want a number of seconds, got %s", describe(n))
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.str, "_", ""), 64)
	t := time.Duration(v * float64(time.Second))
	if err != nil || math.IsNaN(v) || t <= 0 || t > max {
		return 0, d.errf(n, key, "%s out of range: want more than 0 and at most %v", n.str, max)
	}
	return t, nil
}

func (d *decoder) jussiLogging(cfg *Config, n *node) error {
	return d.fields(n, "logging", func(key string, k, v *node) (bool, error) {
		path := "logging." + key
		var err error
		switch key {
		case "level", "output", "timestamp_format":
			if _, err = d.str(v, path); err == nil {
				d.warnAt(cfg, k, path, "hivegate logs at level info to standard error with RFC 3339 times (log/slog)")
			}
		case "format":
			var f string
			if f, err = d.str(v, path); err == nil {
				d.warnAt(cfg, k, path, "choose hivegate's log format with --log-format text|json (%s asked)", f)
			}
		case "include_caller":
			var on bool
			if on, err = d.boolean(v, path); err == nil && on {
				d.warnAt(cfg, k, path, "hivegate's log lines carry no source location")
			}
		case "caller":
			d.unreadByJussi(cfg, k, path)
		default:
			return false, nil
		}
		return true, err
	})
}

// jussiTelemetry maps jussi's OpenTelemetry section onto hivegate.tracing:
// on when enabled and an endpoint is given. jussi's endpoints may lack a
// scheme ("jaeger:4318"); hivegate exports OTLP over HTTP.
func (d *decoder) jussiTelemetry(cfg *Config, k, n *node) error {
	enabled := true // jussi's default
	var endpoint, traces, service string
	err := d.fields(n, "telemetry", func(key string, kn, v *node) (bool, error) {
		path := "telemetry." + key
		var err error
		switch key {
		case "enabled":
			enabled, err = d.boolean(v, path)
		case "otlp_endpoint":
			endpoint, err = d.str(v, path)
		case "traces_endpoint":
			traces, err = d.str(v, path)
		case "service_name":
			service, err = d.str(v, path)
		case "resource_attributes":
			if _, err = d.str(v, path); err == nil {
				d.warnAt(cfg, kn, path, "hivegate's spans carry service.name and service.version only")
			}
		case "jaeger":
			d.unreadByJussi(cfg, kn, path)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil || !enabled {
		return err
	}
	if traces != "" {
		endpoint = traces
	}
	if endpoint == "" {
		d.warnAt(cfg, k, "telemetry", "no otlp_endpoint: tracing stays off")
		return nil
	}
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	if err := checkOTLPEndpoint(endpoint); err != nil {
		return d.errf(n, "telemetry.otlp_endpoint", "%v", err)
	}
	t := Tracing{OTLPEndpoint: endpoint, SampleRatio: DefaultSampleRatio, ServiceName: DefaultServiceName, Pos: d.pos(k)}
	if service != "" {
		t.ServiceName = service
	}
	cfg.Ops.Tracing = t
	return nil
}

// jussiPrometheus maps jussi's metrics endpoint, which it serves on the
// main port (to loopback clients only, by default). hivegate serves metrics
// on its admin listener (loopback, 127.0.0.1:9090 by default) and on the
// main port only when asked to, to everyone.
func (d *decoder) jussiPrometheus(cfg *Config, n *node) error {
	enabled, localOnly := true, true // jussi's defaults
	var allowed []string
	var at *node
	o := &cfg.Ops
	err := d.fields(n, "prometheus", func(key string, k, v *node) (bool, error) {
		path := "prometheus." + key
		var err error
		switch key {
		case "enabled":
			enabled, err = d.boolean(v, path)
			at = k
		case "path":
			var s string
			if s, err = d.str(v, path); err == nil {
				if !validMetricsPath(s) {
					return true, d.errf(v, path, "want an absolute URL path other than / such as /metrics, got %q", s)
				}
				o.MetricsPath = s
			}
		case "localhost_only":
			localOnly, err = d.boolean(v, path)
		case "allowed_ips":
			allowed, err = d.strings(v, path)
		case "port":
			d.unreadByJussi(cfg, k, path)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	if at == nil {
		at = n
	}
	switch {
	case !enabled:
	case localOnly || len(allowed) > 0:
		d.warnAt(cfg, at, "prometheus", "hivegate serves metrics to loopback clients on its admin listener (%s) rather than on the main port; restrict other clients with hivegate.admin_listen and admin_token", DefaultAdminListen)
	default:
		o.PublicMetrics = true
	}
	return nil
}
