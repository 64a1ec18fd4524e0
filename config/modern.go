package config

import (
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// modernFile is the top level of the modern YAML format (Drone's): the
// tagged fields of Config, the settings section under either name, and the
// limits section.
type modernFile struct {
	*Config
	Hivegate settingsSection `yaml:"hivegate"`
	Drone    settingsSection `yaml:"drone"`
	Limits   limitsSection   `yaml:"limits"`
}

// settingsSection is the settings section, `hivegate:` or `drone:`: the
// keys of Settings and Ops, the public metrics section, and Drone's keys.
type settingsSection struct {
	*Settings
	*Ops
	droneKeys
	// Metrics are the public metrics: hivegate.metrics {enabled, path,
	// namespace}.
	Metrics metricsKeys `yaml:"metrics"`
	// HTTP1FastPath served HTTP/1.1 JSON-RPC on a connection loop of its
	// own up to session 0.1; net/http serves everything now. Files that
	// set it still load, with a warning.
	HTTP1FastPath fastPath `yaml:"http1_fast_path"`
}

// metricsKeys point at the Ops fields that the public metrics keys set.
type metricsKeys struct {
	Enabled   *bool   `yaml:"enabled"`
	Path      *string `yaml:"path" as:"metrics_path"`
	Namespace *string `yaml:"namespace" as:"metrics_namespace"`
}

// droneKeys are Drone's settings (openhive-network/drone, src/config.rs
// DroneConfig) besides those hivegate shares (Settings, Ops). Each is
// implemented or, where hivegate has no equivalent, accepted with a warning
// that says what hivegate does instead; a value that asks for what
// hivegate does anyway loads silently. docs/configuration.md lists them.
type droneKeys struct {
	MetricsEnabled   *bool     `yaml:"metrics_enabled"`
	MetricsPath      *string   `yaml:"metrics_path" as:"metrics_path"`
	MetricsNamespace *string   `yaml:"metrics_namespace" as:"metrics_namespace"`
	AddJussiHeaders  bool      `yaml:"add_jussi_headers" when:"true" warn:"hivegate sends no X-Jussi-* headers (one of them would show a backend's URL); single answers carry x-hivegate-cache and x-hivegate-route instead"`
	AccessLogFormat  logFormat `yaml:"access_log_format"`
	AccessLogFile    string    `yaml:"access_log_file" when:"nonzero" warn:"hivegate writes its access log to standard error with its other logs (one msg=request line per request); redirect it to %v or collect it from there"`
	// AccessLogFlushEveryLine: hivegate writes every log line at once, as
	// Drone does with true.
	AccessLogFlushEveryLine bool `yaml:"access_log_flush_every_line"`
	// MaxConnLifetimeSecs is a setting of Drone's test branches (not of a
	// release): recycle a client connection after this many seconds.
	MaxConnLifetimeSecs int64 `yaml:"max_conn_lifetime_secs" when:"nonzero" warn:"hivegate does not cut busy client connections; an idle one is closed after limits.idle_timeout"`
}

// logFormat is Drone's access_log_format: simple (hivegate's text log),
// json, or a format Drone does not know (then it logs nothing).
type logFormat string

func (f *logFormat) decode(d *decoder, n *yaml.Node, path string) error {
	s, err := str(n)
	switch {
	case err != nil:
		return d.wrap(n, path, err)
	case s == "json":
		d.warn(n, path, "hivegate writes its access log in the format of its other logs: run it with --log-format json")
	case s != "simple":
		d.warn(n, path, "hivegate writes its access log in the format of its other logs (--log-format text or json), one msg=request line per request")
	}
	*f = logFormat(s)
	return nil
}

// fastPath is http1_fast_path, which has no effect any more.
type fastPath bool

func (*fastPath) decode(d *decoder, n *yaml.Node, path string) error {
	if _, err := boolean(n); err != nil {
		return d.wrap(n, path, err)
	}
	d.cfg.Warnings = append(d.cfg.Warnings, fmt.Sprintf("%s: %s has no effect: net/http serves every request", d.pos(n), path))
	return nil
}

// modern reads the modern format.
func (d *decoder) modern(root *yaml.Node) error {
	c := d.cfg
	o := &c.Ops
	s := settingsSection{Settings: &c.Settings, Ops: o,
		Metrics:   metricsKeys{&o.PublicMetrics, &o.MetricsPath, &o.MetricsNamespace},
		droneKeys: droneKeys{MetricsEnabled: &o.PublicMetrics, MetricsPath: &o.MetricsPath, MetricsNamespace: &o.MetricsNamespace},
	}
	f := modernFile{Config: c, Hivegate: s, Drone: s, Limits: limitsSection{Limits: &c.Limits}}
	return d.value(root, "", reflect.ValueOf(&f).Elem(), "")
}

// validate checks the settings section sec as a whole.
func (s *settingsSection) validate(d *decoder, sec string) error {
	if d.given("hivegate") && d.given("drone") {
		first, second := d.keyAt("hivegate"), d.keyAt("drone")
		if second.Line < first.Line {
			first, second = second, first
		}
		return d.errf(second, second.Value, "the settings section is given twice (also as %q)", first.Value)
	}
	if d.given(sec+".metrics") && (d.given(sec+".metrics_enabled") || d.given(sec+".metrics_path")) {
		return d.errf(nil, sec+".metrics", "give the public metrics either as %s.metrics {enabled, path} or as Drone's metrics_enabled and metrics_path, not both", sec)
	}
	return s.Ops.validate(d, sec)
}

// setKey makes e the entry of key.
func (e *Entry[T]) setKey(key string, pos, _ Pos) reflect.Value {
	e.Key, e.Pos = key, pos
	return reflect.ValueOf(&e.Value).Elem()
}

// setKey makes b the backend named key; its value is its node URLs.
func (b *Backend) setKey(key string, pos, _ Pos) reflect.Value {
	b.Name, b.Pos = key, pos
	return reflect.ValueOf((*backendNodes)(b)).Elem()
}

// backendNodes is a backend's value: a node URL or a list of them.
type backendNodes Backend

func (b *backendNodes) decode(d *decoder, n *yaml.Node, path string) error {
	items := []*yaml.Node{n}
	switch {
	case n.Kind == yaml.SequenceNode && len(n.Content) == 0:
		return d.errf(n, path, "empty list: a backend needs at least one node URL")
	case n.Kind == yaml.SequenceNode:
		items = n.Content
	case n.Kind != yaml.ScalarNode || n.Tag != tagStr:
		return d.errf(n, path, "want a node URL or a list of them, got %s", describe(n))
	}
	for _, item := range items {
		var u string
		if err := d.value(item, path, reflect.ValueOf(&u).Elem(), `as:"url"`); err != nil {
			return err
		}
		b.Nodes = append(b.Nodes, u)
	}
	if b.URL = b.Nodes[0]; len(b.Nodes) == 1 {
		b.Nodes = nil
	}
	return nil
}

// equivalents is Drone's equivalent_methods section: each key is a
// destination method, as a client would call it ("block_api.get_block"),
// and its value the list of source method keys renamed to it, in their full
// form with the namespace ("appbase.condenser_api.get_block"). hivegate
// keeps them source first (Config.EquivalentMethods).
type equivalents []Entry[string]

func (e *equivalents) decode(d *decoder, n *yaml.Node, path string) error {
	var dests []Entry[[]string]
	if err := d.value(n, path, reflect.ValueOf(&dests).Elem(), ""); err != nil {
		return err
	}
	for _, dest := range dests {
		v := d.at(path + "." + dest.Key)
		for i, src := range dest.Value {
			item := v
			if v.Kind == yaml.SequenceNode {
				item = v.Content[i]
			}
			*e = append(*e, Entry[string]{Key: src, Value: dest.Key, Pos: d.pos(item)})
		}
	}
	return nil
}
