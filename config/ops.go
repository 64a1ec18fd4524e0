package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Ops are the operations keys of the settings section (`hivegate:`): the
// access log, the Prometheus endpoint of the main listener, the admin
// listener and tracing. The defaults (defaults()): access log on, metrics
// on the admin listener only, the admin listener at DefaultAdminListen, no
// tracing.
type Ops struct {
	// AccessLogOff turns the one-line-per-request access log off
	// (hivegate.access_log: false).
	AccessLogOff bool `yaml:"access_log" as:"not"`
	// PublicMetrics makes the main listener serve Prometheus metrics too
	// (hivegate.metrics.enabled: true), rate-limited like any request; the
	// admin listener always serves them.
	PublicMetrics bool
	// MetricsPath is where the main listener serves metrics
	// (hivegate.metrics.path, Drone's metrics_path); empty means
	// DefaultMetricsPath.
	MetricsPath string
	// MetricsNamespace prefixes hivegate's own metric names
	// (hivegate.metrics.namespace, Drone's metrics_namespace); empty means
	// DefaultMetricsNamespace. The Go runtime's go_* and process_* metrics
	// keep their names.
	MetricsNamespace string
	// DebugEndpoints serves Drone's debug views on the admin listener
	// (debug_endpoints_enabled): GET /cache-size, /cache-entries and
	// /debug/heap_profile, /debug/memory_stats.
	DebugEndpoints bool `yaml:"debug_endpoints_enabled"`
	// AdminListen is the HOST:PORT of the admin listener
	// (hivegate.admin_listen, DefaultAdminListen unless set); empty: no
	// admin listener.
	AdminListen string `yaml:"admin_listen" as:"listen"`
	// AdminListenSet tells that AdminListen was given (the config key or
	// serve --admin-listen) rather than defaulted: an explicit address
	// that cannot be bound stops the start, a busy default only warns.
	AdminListenSet bool
	// AdminAllowedHosts are host names, besides the loopback names and IP
	// addresses, that the admin listener accepts in a request's Host
	// header (hivegate.admin_allowed_hosts), lower case, without port.
	// Other names are refused: a web page that rebinds its own name to
	// this machine (DNS rebinding) cannot read the admin endpoints.
	AdminAllowedHosts []string `yaml:"admin_allowed_hosts" as:"host"`
	// AdminToken, when set, is the bearer token every admin request must
	// carry (hivegate.admin_token).
	AdminToken string `yaml:"admin_token" as:"token"`
	// Tracing configures OpenTelemetry tracing (hivegate.tracing).
	Tracing Tracing `yaml:"tracing"`
}

// Tracing is the hivegate.tracing section. Tracing is on when
// OTLPEndpoint is set.
type Tracing struct {
	// OTLPEndpoint is the OTLP/HTTP collector's base URL, such as
	// http://127.0.0.1:4318; spans are POSTed to its /v1/traces unless the
	// URL has a path of its own.
	OTLPEndpoint string `yaml:"otlp_endpoint" as:"otlp"`
	// SampleRatio is the fraction of requests traced, 0 to 1
	// (DefaultSampleRatio when the key is absent).
	SampleRatio float64 `yaml:"sample_ratio" range:"0..1"`
	// ServiceName is the service.name resource attribute
	// (DefaultServiceName when the key is absent).
	ServiceName string `yaml:"service_name" as:"nonempty"`
	// Pos is where the section was given (zero when it was not).
	Pos Pos
}

// Defaults of the operations keys.
const (
	DefaultMetricsPath = "/metrics"
	// DefaultMetricsNamespace prefixes hivegate's metric names.
	DefaultMetricsNamespace = "hivegate"
	// DefaultAdminListen is the admin listener's address: loopback only, so
	// that metrics and the admin endpoints are not on the public port.
	DefaultAdminListen = "127.0.0.1:9090"
	DefaultSampleRatio = 0.1
	DefaultServiceName = "hivegate"
	// maxAdminTokenLen bounds admin_token: a bearer token, not a document.
	maxAdminTokenLen = 1024
)

// Enabled reports whether tracing is configured.
func (t Tracing) Enabled() bool { return t.OTLPEndpoint != "" }

// Namespace returns the prefix of hivegate's metric names.
func (o Ops) Namespace() string {
	if o.MetricsNamespace == "" {
		return DefaultMetricsNamespace
	}
	return o.MetricsNamespace
}

// Metrics returns the path the main listener serves metrics at, and
// whether it serves them at all.
func (o Ops) Metrics() (path string, on bool) {
	if o.MetricsPath == "" {
		return DefaultMetricsPath, o.PublicMetrics
	}
	return o.MetricsPath, o.PublicMetrics
}

// SetAdminListen sets the admin listener's address as given explicitly
// (serve --admin-listen): HOST:PORT, or "" for no admin listener.
func (o *Ops) SetAdminListen(addr string) error {
	if addr != "" {
		if err := checkListen(addr); err != nil {
			return err
		}
	}
	o.AdminListen, o.AdminListenSet = addr, true
	return nil
}

// AdminHostAllowed reports whether the admin listener serves a request
// whose Host header is host (with or without port): "localhost", any IP
// address (a browser sends an IP address as Host only when the page's own
// origin is that address, so DNS rebinding cannot forge one), the host of
// admin_listen, or a name of admin_allowed_hosts; case-insensitive.
func (o Ops) AdminHostAllowed(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"), "."))
	if name == "" {
		return false
	}
	if name == "localhost" {
		return true
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	if h, _, err := net.SplitHostPort(o.AdminListen); err == nil && strings.EqualFold(h, name) {
		return true
	}
	for _, a := range o.AdminAllowedHosts {
		if a == name {
			return true
		}
	}
	return false
}

// validate checks the operations keys of the settings section sec.
func (o *Ops) validate(d *decoder, sec string) error {
	if o.AdminAllowedHosts = slices.DeleteFunc(o.AdminAllowedHosts, func(h string) bool { return h == "" }); len(o.AdminAllowedHosts) == 0 {
		o.AdminAllowedHosts = nil // IP addresses only
	}
	if v := d.at(sec + ".admin_listen"); v != nil {
		o.AdminListenSet = true
		if host, _, _ := net.SplitHostPort(o.AdminListen); o.AdminListen != "" && !isLoopbackHost(host) {
			d.cfg.Warnings = append(d.cfg.Warnings, fmt.Sprintf("%s: %s.admin_listen %q is not a loopback address: anyone who can reach it can reload the config and read the route table; set admin_token or listen on 127.0.0.1", d.pos(v), sec, o.AdminListen))
		}
	}
	if v := d.at(sec + ".tracing"); v != nil {
		o.Tracing.Pos = d.pos(v)
		if o.Tracing.OTLPEndpoint == "" {
			return d.errf(v, sec+".tracing.otlp_endpoint", "missing: tracing needs the collector's OTLP/HTTP URL, such as http://127.0.0.1:4318 (remove the section to turn tracing off)")
		}
	}
	return nil
}

// validHostName accepts a DNS name: dot-separated labels of letters,
// digits and inner hyphens (underscores too, as some internal names have
// them), each 1 to 63 characters, 253 in all.
func validHostName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// metricNamespace is what Prometheus allows as a metric name prefix.
var metricNamespace = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// checkListen accepts HOST:PORT with a numeric port (host may be empty:
// every interface).
func checkListen(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("want HOST:PORT such as 127.0.0.1:9090, got %q", s)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("port %q out of range 0..65535", port)
	}
	return nil
}

// isLoopbackHost reports a host that only this machine can reach.
func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// tokenChars reports whether s holds only visible ASCII characters.
func tokenChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// validMetricsPath accepts an absolute path without query, fragment,
// spaces or dot segments, other than "/" (the JSON-RPC endpoint).
func validMetricsPath(s string) bool {
	if len(s) < 2 || len(s) > 256 || s[0] != '/' || strings.Contains(s, "//") {
		return false
	}
	for _, seg := range strings.Split(s[1:], "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '/' || c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// checkOTLPEndpoint accepts an http or https URL with a host and no query.
func checkOTLPEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("want the collector's OTLP/HTTP URL without credentials or query, such as http://127.0.0.1:4318, got %q", RedactURL(s))
	}
	return nil
}
