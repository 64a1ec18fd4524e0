// Package config is hivegate's one configuration model and its two loaders:
// the modern YAML format (Drone's, with a `hivegate:` or `drone:` settings
// section) and the legacy JSON format (jussi's `upstreams` list). Every error
// names the file, the line and the key; unknown keys are errors.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// TTLKind says how long a cached answer lives.
type TTLKind int

// The TTL kinds. The zero value is TTLNoCache so that an unset TTL never
// caches.
const (
	TTLNoCache            TTLKind = iota // not cached (legacy -1)
	TTLSeconds                           // cached for Seconds
	TTLNoExpire                          // cached until evicted (legacy 0)
	TTLExpireIfReversible                // forever when irreversible, 9 s otherwise (legacy -2)
	// TTLUpstreamCacheControl caches an answer as long as the backend's
	// Cache-Control max-age says (Drone's HONOR_UPSTREAM_CACHE_CONTROL); an
	// answer without one is not cached.
	TTLUpstreamCacheControl
)

// TTL is a cache lifetime as written in a config.
type TTL struct {
	Kind    TTLKind
	Seconds int
}

// String renders the TTL as the config spelling: seconds or a word.
func (t TTL) String() string {
	switch t.Kind {
	case TTLSeconds:
		return strconv.Itoa(t.Seconds)
	case TTLNoExpire:
		return "NO_EXPIRE"
	case TTLExpireIfReversible:
		return "EXPIRE_IF_REVERSIBLE"
	case TTLUpstreamCacheControl:
		return "HONOR_UPSTREAM_CACHE_CONTROL"
	default:
		return "NO_CACHE"
	}
}

// Duration is the lifetime of a TTLSeconds value.
func (t TTL) Duration() time.Duration { return time.Duration(t.Seconds) * time.Second }

// parseTTL reads every spelling of a TTL: positive seconds, the words, and
// the legacy integers 0 (never expires), -1 (not cached), -2 (expire if
// reversible).
func parseTTL(s string) (TTL, error) {
	switch s {
	case "NO_CACHE":
		return TTL{Kind: TTLNoCache}, nil
	case "NO_EXPIRE":
		return TTL{Kind: TTLNoExpire}, nil
	case "EXPIRE_IF_REVERSIBLE":
		return TTL{Kind: TTLExpireIfReversible}, nil
	case "HONOR_UPSTREAM_CACHE_CONTROL":
		return TTL{Kind: TTLUpstreamCacheControl}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return TTL{}, fmt.Errorf("bad TTL %q: want seconds, NO_CACHE, NO_EXPIRE, EXPIRE_IF_REVERSIBLE, HONOR_UPSTREAM_CACHE_CONTROL, or legacy 0, -1, -2", s)
	}
	switch {
	case n > MaxTTLSeconds:
		return TTL{}, fmt.Errorf("bad TTL %d: over %d seconds; use NO_EXPIRE for answers that never expire", n, MaxTTLSeconds)
	case n > 0:
		return TTL{Kind: TTLSeconds, Seconds: n}, nil
	case n == 0:
		return TTL{Kind: TTLNoExpire}, nil
	case n == -1:
		return TTL{Kind: TTLNoCache}, nil
	case n == -2:
		return TTL{Kind: TTLExpireIfReversible}, nil
	}
	return TTL{}, fmt.Errorf("bad TTL %d: negative values other than -1 (NO_CACHE) and -2 (EXPIRE_IF_REVERSIBLE) mean nothing", n)
}

// Pos is where a configuration value was written.
type Pos struct {
	File string
	Line int
}

// String renders the position as file:line (or the file alone when the
// line is unknown).
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// Entry is one method-key entry of the urls, ttls, timeouts or retries
// sections: a method key such as "appbase.condenser_api.get_block" and its value.
type Entry[T any] struct {
	Key   string
	Value T
	Pos   Pos
}

// Backend is a named upstream: one node or several serving the same
// calls (see the backend package for how calls are spread over them).
type Backend struct {
	Name string
	// URL is the first node's base URL (http, https, ws or wss).
	URL string
	// Nodes are every node's base URL in config order, URL first; nil
	// means URL alone.
	Nodes []string
	Pos   Pos
}

// NodeURLs returns the base URL of every node of the backend, in config
// order.
func (b Backend) NodeURLs() []string {
	if len(b.Nodes) == 0 {
		return []string{b.URL}
	}
	return b.Nodes
}

// Settings are the proxy settings section (`hivegate:` or `drone:`).
// Its keys are read from `hivegate:` (or `drone:`) together with those of
// Ops and Drone's own (modern.go).
type Settings struct {
	// Hostname is the address the server binds.
	Hostname string `yaml:"hostname"`
	// Port is the port the server binds.
	Port int `yaml:"port" range:"0..65535"`
	// CacheMaxCapacity bounds the in-process cache, in bytes; 0 turns it
	// off.
	CacheMaxCapacity int64 `yaml:"cache_max_capacity" range:"0.."`
	// OperatorMessage is shown on GET /.
	OperatorMessage string `yaml:"operator_message"`
	// MiddlewareConnectionThreads is the number of connections kept per
	// backend node.
	MiddlewareConnectionThreads int `yaml:"middleware_connection_threads" range:"1..10000"`
	// LIBPollInterval is how often the last irreversible block is polled
	// (whole seconds).
	LIBPollInterval time.Duration `yaml:"lib_poll_interval" as:"interval"`
	// CORSAllowedOrigins are the browser origins allowed to call hivegate
	// (Connect-Web, gRPC-Web, fetch); empty or "*" allows any origin.
	CORSAllowedOrigins []string `yaml:"cors_allowed_origins"`
	// CORSOff turns the CORS headers off (Drone's add_cors_headers: false,
	// for a gateway behind a proxy that adds its own).
	CORSOff bool `yaml:"add_cors_headers" as:"not"`
	// NodeFailThreshold is the number of calls in a row a node may fail
	// before it is taken out of its backend (node_fail_threshold).
	NodeFailThreshold int `yaml:"node_fail_threshold" range:"1..1000"`
	// NodeMaxLagBlocks takes a node out of its backend while its head block
	// is more than this many blocks behind the best head of the backend's
	// nodes (node_max_lag_blocks); 0 turns the check off.
	NodeMaxLagBlocks int `yaml:"node_max_lag_blocks" range:"0..1000000"`
	// NodeMaxHeadAge takes a hived node out of service while its head block
	// is older than this (node_max_head_age, whole seconds); negative (0
	// in the file) turns the check off.
	NodeMaxHeadAge time.Duration `yaml:"node_max_head_age" as:"age"`
	// NodeMaxSyncAge takes a hivemind or HAfAH node out of service while
	// it is more than this behind the chain (node_max_sync_age); negative
	// (0 in the file) turns the check off.
	NodeMaxSyncAge time.Duration `yaml:"node_max_sync_age" as:"age"`
	// CompressMinBytes is the size from which a JSON-RPC answer is
	// gzip-encoded for a client that accepts it (compress_min_bytes); 0
	// turns compression off.
	CompressMinBytes int `yaml:"compress_min_bytes" range:"0..1073741824"`
	// WSConnsPerNode is the number of WebSocket connections kept per ws://
	// or wss:// node (jussi's upstream.websocket_pool.max_size); 0 means
	// MiddlewareConnectionThreads.
	WSConnsPerNode int
}

// Limits bound what one client may ask: the `limits:` section of both
// formats (limits.go). A zero value means the default (see
// Limits.WithDefaults); timeouts are whole seconds, at least 1.
type Limits struct {
	// BlacklistAccounts are account names whose requests are refused
	// (limits.blacklist_accounts, also spelled accounts_blacklist).
	BlacklistAccounts []string `yaml:"blacklist_accounts"`
	// MaxBatchSize is the largest JSON-RPC batch accepted.
	MaxBatchSize int `yaml:"max_batch_size" range:"1..10000"`
	// MaxBodyBytes is the largest request body accepted.
	MaxBodyBytes int64 `yaml:"max_body_bytes" range:"1024..1073741824"`
	// MaxJSONDepth is the deepest JSON nesting accepted in a request.
	MaxJSONDepth int `yaml:"max_json_depth" range:"2..1000"`
	// MaxHeaderBytes bounds a request's headers (limits.max_header_bytes).
	MaxHeaderBytes int `yaml:"max_header_bytes" range:"1024..16777216"`
	// ReadHeaderTimeout bounds the time to read a request's headers
	// (limits.read_header_timeout).
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout" as:"interval"`
	// ReadTimeout bounds the time to read a whole request
	// (limits.read_timeout).
	ReadTimeout time.Duration `yaml:"read_timeout" as:"interval"`
	// WriteTimeout bounds the time from the end of a request's headers to
	// the end of its response (limits.write_timeout).
	WriteTimeout time.Duration `yaml:"write_timeout" as:"interval"`
	// IdleTimeout bounds how long a keep-alive connection waits for its next
	// request (limits.idle_timeout).
	IdleTimeout time.Duration `yaml:"idle_timeout" as:"interval"`
	// MaxInFlight is the number of requests served at once; more are
	// refused at once (limits.max_in_flight).
	MaxInFlight int `yaml:"max_in_flight" range:"1..1000000"`
	// MaxInFlightPerClient is the number of requests one client address
	// may have at once, its bodies still arriving included; more are
	// refused at once (limits.max_in_flight_per_client). Zero means
	// MaxInFlight/8 (at least 1). Addresses in TrustedProxies are not
	// capped.
	MaxInFlightPerClient int `yaml:"max_in_flight_per_client" range:"1..1000000"`
	// MaxConnsPerClient is the number of connections one TCP peer may hold
	// open on the main listener; more are closed as soon as they are
	// accepted (limits.max_conns_per_client). Peers in TrustedProxies are
	// not capped.
	MaxConnsPerClient int `yaml:"max_conns_per_client" range:"1..1000000"`
	// MaxConcurrentStreams is the number of HTTP/2 streams (requests) one
	// connection may have open at once (limits.max_concurrent_streams).
	MaxConcurrentStreams int `yaml:"max_concurrent_streams" range:"1..10000"`
	// BodyTimeout bounds the time to receive a request's body once its
	// headers are in; the body is read before the request takes one of
	// the MaxInFlight places (limits.body_timeout). It is never longer
	// than ReadTimeout.
	BodyTimeout time.Duration `yaml:"body_timeout" as:"interval"`
	// RateLimitPerSecond is the sustained calls per second allowed per
	// client address, fractions allowed; 0 turns rate limiting off
	// (limits.rate_limit_per_second).
	RateLimitPerSecond float64 `yaml:"rate_limit_per_second" range:"0..1000000"`
	// RateLimitBurst is the calls a client may make at once after being idle
	// (limits.rate_limit_burst).
	RateLimitBurst int `yaml:"rate_limit_burst" range:"1..1000000"`
	// TrustedProxyHeader names the header (X-Forwarded-For, X-Real-IP) read
	// for the client address when the peer is a trusted proxy
	// (limits.trusted_proxy_header).
	TrustedProxyHeader string `yaml:"trusted_proxy_header" as:"header"`
	// TrustedProxies are the proxies whose TrustedProxyHeader is believed
	// (limits.trusted_proxies: addresses and CIDR ranges); nil means
	// loopback and private ranges.
	TrustedProxies []netip.Prefix `yaml:"trusted_proxies" as:"prefix"`
	// MaxResponseBytes caps one backend answer (limits.max_response_bytes).
	MaxResponseBytes int64 `yaml:"max_response_bytes" range:"1024..4294967296"`
	// MaxUpstreamBatchSize is the most calls of one client batch sent to a
	// backend in one JSON-RPC batch request; 1 sends every call on its own
	// (limits.max_upstream_batch_size).
	MaxUpstreamBatchSize int `yaml:"max_upstream_batch_size" range:"1..1000"`
	// NoUpstreamBatch names the backends that get every call on its own,
	// for nodes that do not take JSON-RPC batches (limits.no_upstream_batch).
	NoUpstreamBatch []string `yaml:"no_upstream_batch"`
	// AccountHistoryLimit refuses a get_account_history call (any api)
	// asking for more entries than this, before any upstream call, with
	// jussi's error 1701 (limits.account_history_limit); 0 turns the check
	// off. A jussi JSON config has jussi's default, 100.
	AccountHistoryLimit int `yaml:"account_history_limit" range:"0..1000000"`
}

// Config is the whole configuration, whichever format it came from. Its
// tagged fields are the top-level keys of the modern format; the settings
// and limits sections are read through modernFile (modern.go), the legacy
// format through jussiFile (jussi.go).
type Config struct {
	Source   string // file path, or "(embedded default)"
	Settings Settings
	// Backends are the upstreams: name → node URL, or a list of them
	// for a backend of several nodes.
	Backends []Backend `yaml:"backends"`
	// URLs route method keys to backends: key → backend name.
	URLs []Entry[string] `yaml:"urls"`
	// TTLs are the cache lifetimes by method key.
	TTLs []Entry[TTL] `yaml:"ttls"`
	// Timeouts are the backend timeouts by method key, whole seconds, 0
	// for none.
	Timeouts []Entry[time.Duration] `yaml:"timeouts" as:"timeout"`
	// Retries are the retries by method key, 0 to MaxRetries.
	Retries []Entry[int] `yaml:"retries" as:"retries"`
	// TranslateToAppbase are the namespaces whose calls are sent to the
	// node as condenser_api calls.
	TranslateToAppbase []string `yaml:"translate_to_appbase"`
	// EquivalentMethods rename calls before routing (Drone's
	// equivalent_methods): Key is a source method key without params
	// ("appbase.search_api.find_text"), Value the method the call is
	// renamed to, as a client would write it ("search-api.find_text").
	EquivalentMethods []Entry[string] `yaml:"equivalent_methods" as:"equivalents"`
	// DefaultNamespace is the namespace of bare method names.
	DefaultNamespace string `yaml:"default_namespace"`
	Limits           Limits
	// Cache is the `cache:` section: the optional shared Redis tier
	// (see cache.go).
	Cache CacheSettings `yaml:"cache"`
	// Ops are the operations keys of the settings section: access log,
	// metrics, admin listener, tracing (see ops.go).
	Ops Ops
	// Auth is the `auth:` section: the OAuth 2 service for Hive apps
	// (see auth.go); off unless auth.enabled.
	Auth AuthSettings `yaml:"auth"`
	// Quotas is the `quotas:` section: weighted call quotas per client
	// address and API key (see quota.go); off unless configured. YAML
	// only.
	Quotas QuotaSettings `yaml:"quotas"`
	// Streams is the `streams:` section: block and operation streams (see
	// stream.go). YAML only.
	Streams StreamSettings `yaml:"streams"`
	// Warnings are things worth an operator's attention that do not stop the
	// config from loading (for example Drone keys hivegate does not use).
	Warnings []string
}

// Defaults, in one place.
const (
	DefaultHostname          = "127.0.0.1"
	DefaultPort              = 8090
	DefaultCacheMaxCapacity  = 1 << 30 // 1 GiB
	DefaultConnectionThreads = 8
	DefaultLIBPollInterval   = 3 * time.Second
	DefaultNamespace         = "hived"
	MaxRetries               = 3
	// DefaultNodeFailThreshold is node_fail_threshold's default.
	DefaultNodeFailThreshold = 5
	// DefaultNodeMaxLagBlocks is node_max_lag_blocks's default: one minute
	// of blocks.
	DefaultNodeMaxLagBlocks = 20
	// DefaultNodeMaxHeadAge is node_max_head_age's default: haf_api_node
	// takes hived down when its head block is older than 15 seconds.
	DefaultNodeMaxHeadAge = 15 * time.Second
	// DefaultNodeMaxSyncAge is node_max_sync_age's default: haf_api_node
	// takes hivemind and HAfAH down when they are a minute behind.
	DefaultNodeMaxSyncAge = time.Minute
	// DefaultCompressMinBytes is compress_min_bytes's default.
	DefaultCompressMinBytes = 1024
	// DefaultJussiAccountHistoryLimit is jussi's limits.account_history_limit
	// when a jussi JSON config does not give it.
	DefaultJussiAccountHistoryLimit = 100
	// MaxTimeoutSeconds is the largest timeout a config may give (one day);
	// 0 means no timeout at all.
	MaxTimeoutSeconds = 86400
	// MaxTTLSeconds is the largest TTL in seconds (about 68 years); longer
	// lifetimes are spelled NO_EXPIRE.
	MaxTTLSeconds = 1<<31 - 1
)

// Error is a configuration error with its position and key.
type Error struct {
	Pos Pos
	Key string
	Err error
}

// Error renders the error as "file:line: key: message".
func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %v", e.Pos, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Pos, e.Key, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Load reads a config file, choosing the format by extension: .yaml/.yml is
// the modern format, .json the legacy one. Beside a NAME.yaml file, a
// NAME.local.yaml file, when there is one, is merged over it, as Drone does
// (local.go).
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if cfg, ok, err := loadWithLocal(path, data); ok {
		return cfg, err
	}
	return Parse(path, data)
}

// Parse parses config data; name is used for the format (by extension) and
// in error messages. Every error it returns is an *Error.
func Parse(name string, data []byte) (*Config, error) {
	var (
		root *yaml.Node
		err  error
		read func(*decoder, *yaml.Node) error
	)
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		root, err = fromYAML(name, data)
		read = (*decoder).modern
	case ".json":
		root, err = fromJSON(name, data)
		read = (*decoder).legacy
	default:
		return nil, &Error{Pos: Pos{File: name}, Err: errors.New("unknown config format: use .yaml/.yml (modern) or .json (legacy)")}
	}
	if err != nil {
		return nil, err
	}
	return load(name, root, read, nil, nil)
}

// load reads a parsed document into the defaults with read, lets edit
// change the result, and validates it.
func load(file string, root *yaml.Node, read func(*decoder, *yaml.Node) error, files map[*yaml.Node]string, edit func(*Config)) (*Config, error) {
	cfg := defaults()
	cfg.Source = file
	d := newDecoder(cfg, file)
	d.files = files
	if err := read(d, root); err != nil {
		return nil, err
	}
	if edit != nil {
		edit(cfg)
	}
	if err := cfg.validate(d); err != nil {
		return nil, err
	}
	return cfg, nil
}

// BackendURL returns the base URL of the named backend.
func (c *Config) BackendURL(name string) (string, bool) {
	for _, b := range c.Backends {
		if b.Name == name {
			return b.URL, true
		}
	}
	return "", false
}

// BackendMap returns backend name → URL (the first node's).
func (c *Config) BackendMap() map[string]string {
	m := make(map[string]string, len(c.Backends))
	for _, b := range c.Backends {
		m[b.Name] = b.URL
	}
	return m
}

// BackendNodes returns backend name → every node's URL, in config order.
func (c *Config) BackendNodes() map[string][]string {
	m := make(map[string][]string, len(c.Backends))
	for _, b := range c.Backends {
		m[b.Name] = b.NodeURLs()
	}
	return m
}

// Listen returns the host:port address the server binds (IPv6 hosts in
// brackets).
func (c *Config) Listen() string {
	return net.JoinHostPort(c.Settings.Hostname, strconv.Itoa(c.Settings.Port))
}
