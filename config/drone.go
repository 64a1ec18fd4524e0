package config

import (
	"fmt"
	"regexp"
)

// Drone's settings (openhive-network/drone, src/config.rs DroneConfig)
// besides the five both formats share (port, hostname, cache_max_capacity,
// operator_message, middleware_connection_threads). Each is implemented or,
// where hivegate has no equivalent, accepted with a warning that says what
// hivegate does instead; a value that asks for what hivegate does anyway
// loads silently. docs/configuration.md lists them.

// droneSetting reads one Drone-only setting of the settings section. It
// reports false for a key that is not one.
func (d *decoder) droneSetting(cfg *Config, key string, k, v *node, path string) (bool, error) {
	warn := func(format string, args ...any) {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %s: ", d.pos(k), path)+fmt.Sprintf(format, args...))
	}
	o := &cfg.Ops
	switch key {
	case "add_cors_headers":
		on, err := d.boolean(v, path)
		cfg.Settings.CORSOff = !on
		return true, err
	case "add_jussi_headers":
		on, err := d.boolean(v, path)
		if on {
			warn("hivegate sends no X-Jussi-* headers (one of them would show a backend's URL); single answers carry x-hivegate-cache and x-hivegate-route instead")
		}
		return true, err
	case "access_log_format":
		s, err := d.str(v, path)
		if err != nil {
			return true, err
		}
		switch s {
		case "simple": // hivegate's default text log
		case "json":
			warn("hivegate writes its access log in the format of its other logs: run it with --log-format json")
		default:
			// Drone logs nothing to the console in a format it does not know.
			warn("hivegate writes its access log in the format of its other logs (--log-format text or json), one msg=request line per request")
		}
		return true, nil
	case "access_log_file":
		s, err := d.str(v, path)
		if err == nil && s != "" {
			warn("hivegate writes its access log to standard error with its other logs (one msg=request line per request); redirect it to %s or collect it from there", s)
		}
		return true, err
	case "access_log_flush_every_line":
		// hivegate writes every log line at once, as Drone does with true.
		_, err := d.boolean(v, path)
		return true, err
	case "metrics_enabled":
		on, err := d.boolean(v, path)
		o.PublicMetrics = on
		cfg.droneMetrics = true
		return true, err
	case "metrics_path":
		s, err := d.str(v, path)
		if err != nil {
			return true, err
		}
		if !validMetricsPath(s) {
			return true, d.errf(v, path, "want an absolute URL path other than / such as /metrics, got %q", s)
		}
		o.MetricsPath = s
		cfg.droneMetrics = true
		return true, nil
	case "metrics_namespace":
		s, err := d.metricsNamespace(v, path)
		o.MetricsNamespace = s
		return true, err
	case "debug_endpoints_enabled":
		on, err := d.boolean(v, path)
		o.DebugEndpoints = on
		return true, err
	case "max_conn_lifetime_secs":
		// A setting of Drone's test branches (not of a release): recycle a
		// client connection after this many seconds.
		n, err := d.integer(v, path)
		if err == nil && n > 0 {
			warn("hivegate does not cut busy client connections; an idle one is closed after limits.idle_timeout")
		}
		return true, err
	}
	return false, nil
}

// metricNamespace is what Prometheus allows as a metric name prefix.
var metricNamespace = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// metricsNamespace reads a metric name prefix such as hivegate or drone.
func (d *decoder) metricsNamespace(n *node, key string) (string, error) {
	s, err := d.str(n, key)
	if err == nil && (!metricNamespace.MatchString(s) || len(s) > 64) {
		err = d.errf(n, key, "want a Prometheus name prefix such as hivegate or drone (letters, digits, _), got %q", s)
	}
	return s, err
}
