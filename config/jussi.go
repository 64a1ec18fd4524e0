package config

import (
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// jussiFile is jussi's JSON format: a `limits` object and an `upstreams`
// list whose urls/ttls/timeouts/retries are [key, value] pairs (or jussi's
// older {"prefix": key, "upstream_url"|"upstream_ttl"|...: value} objects),
// plus the settings sections of jussi's next branch (steemit/jussi, next:
// internal/config/config.go, read with viper from the same file): server,
// upstream, cache, logging, telemetry and prometheus. Each of their keys is
// implemented or, where hivegate has no equivalent, accepted with a warning
// that says what hivegate does instead; a value that asks for what hivegate
// does anyway loads silently. Keys jussi documents (docs/CONFIGURATION.md)
// but never reads are accepted with a warning that says so (warn:"unread").
// docs/configuration.md lists them all.
type jussiFile struct {
	Limits     limitsSection   `yaml:"limits"`
	Auth       *AuthSettings   `yaml:"auth"`
	Upstreams  upstreams       `yaml:"upstreams"`
	Server     jussiServer     `yaml:"server"`
	Upstream   jussiUpstream   `yaml:"upstream"`
	Cache      jussiCache      `yaml:"cache"`
	Logging    jussiLogging    `yaml:"logging"`
	Telemetry  jussiTelemetry  `yaml:"telemetry"`
	Prometheus jussiPrometheus `yaml:"prometheus"`
}

// upstream is one object of jussi's upstreams list.
type upstream struct {
	Name               string                 `yaml:"name"`
	TranslateToAppbase bool                   `yaml:"translate_to_appbase"`
	URLs               []urlPair              `yaml:"urls" pairs:"upstream_url" as:"url"`
	TTLs               []Entry[TTL]           `yaml:"ttls" pairs:"upstream_ttl"`
	Timeouts           []Entry[time.Duration] `yaml:"timeouts" pairs:"upstream_timeout" as:"timeout"`
	Retries            []Entry[int]           `yaml:"retries" pairs:"upstream_retries" as:"retries"`
}

type jussiServer struct {
	Host            *string  `yaml:"host"`
	Port            *int     `yaml:"port" range:"0..65535"`
	BatchSizeLimit  *int     `yaml:"batch_size_limit" range:"1..10000"`
	Workers         int64    `yaml:"workers" warn:"hivegate serves requests on every CPU (GOMAXPROCS), with no worker processes"`
	TCPBacklog      int64    `yaml:"tcp_backlog" warn:"hivegate listens with the system's backlog (net.core.somaxconn on Linux)"`
	RequestTimeout  anyValue `yaml:"request_timeout" warn:"unread"`
	ResponseTimeout anyValue `yaml:"response_timeout" warn:"unread"`
}

type jussiUpstream struct {
	TestURLs         bool `yaml:"test_urls" when:"true" warn:"hivegate does not test the upstream URLs before it starts: it probes every node in the background and reports the ones it cannot reach (GET /, metrics)"`
	WebsocketEnabled bool `yaml:"websocket_enabled" when:"false" warn:"hivegate always calls ws:// and wss:// URLs over WebSocket"`
	WebsocketPool    struct {
		MaxSize    *int  `yaml:"max_size" range:"1..10000"`
		MinSize    int64 `yaml:"min_size" warn:"hivegate opens WebSocket connections when calls need them, up to upstream.websocket_pool.max_size per node"`
		QueueSize  int64 `yaml:"queue_size" warn:"hivegate sends any number of calls on one WebSocket connection at once, matched to their answers by id"`
		ReadLimit  int64 `yaml:"read_limit" warn:"hivegate caps every answer at limits.max_response_bytes (default 64 MiB), whatever the transport"`
		WriteLimit int64 `yaml:"write_limit" warn:"hivegate caps every answer at limits.max_response_bytes (default 64 MiB), whatever the transport"`
		MaxMsgSize int64 `yaml:"max_msg_size" warn:"hivegate caps every answer at limits.max_response_bytes (default 64 MiB), whatever the transport"`
	} `yaml:"websocket_pool"`
}

// jussiCache is jussi's cache section: the in-process cache switch and the
// Redis tier (hivegate's cache: section of the YAML format).
type jussiCache struct {
	Enabled         bool           `yaml:"enabled"`
	RedisURL        *string        `yaml:"redis_url" as:"redis_url"`
	ReadReplicaURLs *[]string      `yaml:"read_replica_urls" as:"redis_url"`
	ReadTimeout     *time.Duration `yaml:"read_timeout" as:"fseconds" range:"1ns..10s"`
	TestBeforeAdd   bool           `yaml:"test_before_add" when:"true" warn:"hivegate writes an entry to Redis without reading it first"`
	Memory          struct {
		MaxSize    int64    `yaml:"max_size" warn:"hivegate's cache is bounded in bytes, not entries: 1073741824 bytes (1 GiB) by default"`
		Enabled    anyValue `yaml:"enabled" warn:"unread"`
		DefaultTTL anyValue `yaml:"default_ttl" warn:"unread"`
	} `yaml:"memory"`
	Redis struct {
		Address      string   `yaml:"address"`
		Password     string   `yaml:"password"`
		DB           int64    `yaml:"db"`
		Compression  bool     `yaml:"compression"`
		PoolSize     int64    `yaml:"pool_size" warn:"hivegate bounds every Redis operation by cache.read_timeout (its redis_timeout) and sizes its Redis pool itself"`
		ReadTimeout  int64    `yaml:"read_timeout" warn:"hivegate bounds every Redis operation by cache.read_timeout (its redis_timeout) and sizes its Redis pool itself"`
		WriteTimeout int64    `yaml:"write_timeout" warn:"hivegate bounds every Redis operation by cache.read_timeout (its redis_timeout) and sizes its Redis pool itself"`
		DialTimeout  int64    `yaml:"dial_timeout" warn:"hivegate bounds every Redis operation by cache.read_timeout (its redis_timeout) and sizes its Redis pool itself"`
		Enabled      anyValue `yaml:"enabled" warn:"unread"`
		URL          anyValue `yaml:"url" warn:"unread"`
	} `yaml:"redis"`
}

type jussiLogging struct {
	Level           string   `yaml:"level" warn:"hivegate logs at level info to standard error with RFC 3339 times (log/slog)"`
	Output          string   `yaml:"output" warn:"hivegate logs at level info to standard error with RFC 3339 times (log/slog)"`
	TimestampFormat string   `yaml:"timestamp_format" warn:"hivegate logs at level info to standard error with RFC 3339 times (log/slog)"`
	Format          string   `yaml:"format" warn:"choose hivegate's log format with --log-format text|json (%v asked)"`
	IncludeCaller   bool     `yaml:"include_caller" when:"true" warn:"hivegate's log lines carry no source location"`
	Caller          anyValue `yaml:"caller" warn:"unread"`
}

// jussiTelemetry is jussi's OpenTelemetry section, mapped onto
// hivegate.tracing: on when enabled (jussi's default) and an endpoint is
// given. jussi's endpoints may lack a scheme ("jaeger:4318"); hivegate
// exports OTLP over HTTP.
type jussiTelemetry struct {
	Enabled            bool     `yaml:"enabled"`
	OTLPEndpoint       string   `yaml:"otlp_endpoint"`
	TracesEndpoint     string   `yaml:"traces_endpoint"`
	ServiceName        string   `yaml:"service_name"`
	ResourceAttributes string   `yaml:"resource_attributes" warn:"hivegate's spans carry service.name and service.version only"`
	Jaeger             anyValue `yaml:"jaeger" warn:"unread"`
}

// jussiPrometheus is jussi's metrics endpoint, which it serves on the main
// port (to loopback clients only, by default). hivegate serves metrics on
// its admin listener (loopback, 127.0.0.1:9090 by default) and on the main
// port only when asked to, to everyone.
type jussiPrometheus struct {
	Enabled       bool     `yaml:"enabled"`
	Path          *string  `yaml:"path" as:"metrics_path"`
	LocalhostOnly bool     `yaml:"localhost_only"`
	AllowedIPs    []string `yaml:"allowed_ips"`
	Port          anyValue `yaml:"port" warn:"unread"`
}

func (t *jussiTelemetry) setDefaults()  { t.Enabled = true }
func (p *jussiPrometheus) setDefaults() { p.Enabled, p.LocalhostOnly = true, true }
func (j *jussiCache) setDefaults()      { j.Enabled, j.Redis.Compression = true, true }

// legacy reads jussi's format. A file that is a list is the upstreams list
// alone, as jussi read its files until April 2018 (steemit/jussi e5a86b4).
func (d *decoder) legacy(root *yaml.Node) error {
	c := d.cfg
	c.Limits.AccountHistoryLimit = DefaultJussiAccountHistoryLimit
	if root.Kind == yaml.SequenceNode {
		root = &yaml.Node{Kind: yaml.MappingNode, Line: root.Line, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: tagStr, Value: "upstreams", Line: root.Line}, root}}
	}
	f := jussiFile{Limits: limitsSection{Limits: &c.Limits}, Auth: &c.Auth}
	f.Server.Host, f.Server.Port, f.Server.BatchSizeLimit = &c.Settings.Hostname, &c.Settings.Port, &c.Limits.MaxBatchSize
	f.Upstream.WebsocketPool.MaxSize = &c.Settings.WSConnsPerNode
	f.Cache.RedisURL, f.Cache.ReadReplicaURLs, f.Cache.ReadTimeout = &c.Cache.RedisURL, &c.Cache.RedisReplicaURLs, &c.Cache.RedisTimeout
	f.Prometheus.Path = &c.Ops.MetricsPath
	return d.value(root, "", reflect.ValueOf(&f).Elem(), "")
}

// validate turns the upstreams into routes.
func (f *jussiFile) validate(d *decoder, _ string) error {
	c := d.cfg
	var urls []urlPair
	for _, u := range f.Upstreams {
		if u.TranslateToAppbase {
			c.TranslateToAppbase = append(c.TranslateToAppbase, u.Name)
		}
		if u.Name == "steemd" {
			c.DefaultNamespace = "steemd" // jussi's own node namespace
		}
		urls = append(urls, u.URLs...)
		c.TTLs = append(c.TTLs, u.TTLs...)
		c.Timeouts = append(c.Timeouts, u.Timeouts...)
		c.Retries = append(c.Retries, u.Retries...)
	}
	c.legacyRoutes(urls)
	return nil
}

func (j *jussiCache) validate(d *decoder, path string) error {
	c, n := d.cfg, d.at(path)
	c.Cache.Pos = d.pos(d.keyAt(path))
	if !j.Enabled {
		c.Settings.CacheMaxCapacity = 0
	}
	if !j.Redis.Compression {
		c.Cache.RedisCompressMinBytes = MaxRedisCompressMinBytes
	}
	if r := j.Redis; c.Cache.RedisURL == "" && r.Address != "" {
		// jussi's own construction (CacheConfig.GetRedisURL).
		u := url.URL{Scheme: "redis", Host: r.Address}
		if r.Password != "" {
			u.User = url.UserPassword("", r.Password)
		}
		if r.DB > 0 {
			u.Path = "/" + strconv.FormatInt(r.DB, 10)
		}
		c.Cache.RedisURL = u.String()
		if err := checkRedisURL(c.Cache.RedisURL); err != nil {
			return d.wrap(n, "cache.redis.address", err)
		}
	}
	if c.Cache.RedisURL == "" && len(c.Cache.RedisReplicaURLs) > 0 {
		return d.errf(n, "cache.read_replica_urls", "read replicas need a primary: set cache.redis_url or cache.redis.address too")
	}
	return nil
}

func (t *jussiTelemetry) validate(d *decoder, _ string) error {
	if !t.Enabled {
		return nil
	}
	endpoint := t.OTLPEndpoint
	if t.TracesEndpoint != "" {
		endpoint = t.TracesEndpoint
	}
	if endpoint == "" {
		d.warn(d.keyAt("telemetry"), "telemetry", "no otlp_endpoint: tracing stays off")
		return nil
	}
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	if err := checkOTLPEndpoint(endpoint); err != nil {
		return d.wrap(d.at("telemetry"), "telemetry.otlp_endpoint", err)
	}
	tr := Tracing{OTLPEndpoint: endpoint, ServiceName: t.ServiceName, Pos: d.pos(d.keyAt("telemetry"))}
	tr.setDefaults()
	if t.ServiceName != "" {
		tr.ServiceName = t.ServiceName
	}
	d.cfg.Ops.Tracing = tr
	return nil
}

func (p *jussiPrometheus) validate(d *decoder, _ string) error {
	at := d.keyAt("prometheus.enabled")
	if at == nil {
		at = d.at("prometheus")
	}
	switch {
	case !p.Enabled:
	case p.LocalhostOnly || len(p.AllowedIPs) > 0:
		d.warn(at, "prometheus", "hivegate serves metrics to loopback clients on its admin listener (%s) rather than on the main port; restrict other clients with hivegate.admin_listen and admin_token", DefaultAdminListen)
	default:
		d.cfg.Ops.PublicMetrics = true
	}
	return nil
}

// upstreams is jussi's list of upstream objects. An upstream's keys are
// named after it in messages: upstreams[steemd].ttls.
type upstreams []upstream

func (us *upstreams) decode(d *decoder, n *yaml.Node, path string) error {
	if n.Kind != yaml.SequenceNode {
		return d.errf(n, path, "want a list of upstream objects, got %s", describe(n))
	}
	seen := map[string]Pos{}
	for i, item := range n.Content {
		at := path + "[" + strconv.Itoa(i) + "]"
		if item.Kind != yaml.MappingNode {
			return d.errf(item, at, "want an upstream object, got %s", describe(item))
		}
		var nameNode *yaml.Node
		for j := 0; j+1 < len(item.Content); j += 2 {
			if item.Content[j].Value == "name" {
				nameNode = item.Content[j+1]
			}
		}
		if nameNode == nil {
			return d.errf(item, at+".name", "upstream has no name")
		}
		name, err := str(nameNode)
		switch {
		case err != nil:
			return d.wrap(nameNode, at+".name", err)
		case !validNamespace(name):
			return d.errf(nameNode, at+".name", "want a namespace name without dots, spaces or '=', got %q", name)
		}
		if prev, dup := seen[name]; dup {
			return d.errf(nameNode, at+".name", "upstream %q is also defined at %s", name, prev)
		}
		seen[name] = d.pos(nameNode)
		*us = append(*us, upstream{})
		if err := d.value(item, path+"["+name+"]", reflect.ValueOf(&(*us)[len(*us)-1]).Elem(), ""); err != nil {
			return err
		}
	}
	return nil
}

// urlPair is one [key, url] pair of a legacy urls list.
type urlPair struct {
	Entry[string]
	vpos Pos // where the URL is
}

func (p *urlPair) setKey(key string, kpos, vpos Pos) reflect.Value {
	p.vpos = vpos
	return p.Entry.setKey(key, kpos, vpos)
}

// legacyRoutes turns the urls pairs into urls entries and backends: the
// pairs of one key, in file order, are the nodes of its backend.
func (c *Config) legacyRoutes(pairs []urlPair) {
	byKey := map[string][]string{}
	var order []urlPair
	for _, p := range pairs {
		list, seen := byKey[p.Key]
		if !seen {
			order = append(order, p)
		}
		if !slices.Contains(list, p.Value) {
			byKey[p.Key] = append(list, p.Value)
		}
	}
	for _, p := range order {
		name := c.legacyBackend(p.Key, byKey[p.Key], p.vpos)
		c.URLs = append(c.URLs, Entry[string]{Key: p.Key, Value: name, Pos: p.Pos})
	}
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
