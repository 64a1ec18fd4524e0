package backend

import (
	"crypto/tls"
	"time"
)

// Default values of Options. They live here, in one place.
const (
	// DefaultMaxConnsPerBackend is the connection pool size per backend
	// (middleware_connection_threads in the configuration).
	DefaultMaxConnsPerBackend = 8
	// DefaultMaxResponseBytes caps one backend answer (64 MiB).
	DefaultMaxResponseBytes int64 = 64 << 20
	// DefaultDialTimeout bounds one TCP (and TLS) connection attempt.
	DefaultDialTimeout = 5 * time.Second
	// DefaultHealthInterval is the period of the background prober.
	DefaultHealthInterval = 10 * time.Second
	// DefaultFailThreshold is the number of consecutive failures after which
	// a backend is reported down.
	DefaultFailThreshold = 5
	// DefaultNodeProbeInterval is the period of the prober: it reads each
	// node's head block or sync state to judge it, and brings a node that
	// failed back into service.
	DefaultNodeProbeInterval = 3 * time.Second
	// DefaultMaxHeadAge is the oldest a hived node's head block may be for
	// the node to stay in service: haf_api_node takes hived down when its
	// head block is older than 15 seconds (five missed blocks).
	DefaultMaxHeadAge = 15 * time.Second
	// DefaultMaxSyncAge is how far behind the chain a hivemind or HAfAH
	// node may be for it to stay in service: haf_api_node takes them down
	// when their last block is more than a minute old.
	DefaultMaxSyncAge = time.Minute
	// DefaultUserAgent is sent to backends when Options.UserAgent is empty.
	DefaultUserAgent = "hivegate"
	// MaxRetries is the largest number of retries a Request may ask for.
	MaxRetries = 3
)

// probeTimeout bounds one health probe.
const probeTimeout = 5 * time.Second

// Options tunes a Pool. The zero value of every field except HealthInterval
// means "use the default"; HealthInterval 0 (or negative) disables the
// background prober, so callers that want it start from DefaultOptions.
type Options struct {
	// MaxConnsPerBackend is the maximum number of open connections per
	// backend, idle keep-alive ones included (health probes share them).
	// Calls beyond it wait for a free connection (bounded by their context).
	MaxConnsPerBackend int
	// MaxResponseBytes caps the body of one answer; a larger answer fails
	// with KindUpstreamResponseTooLarge and is not read past the cap.
	MaxResponseBytes int64
	// DialTimeout bounds one connection attempt. A dial that times out is a
	// transport failure and is retried when the call's deadline allows.
	DialTimeout time.Duration
	// HealthInterval is the period of the prober started by Start; 0 or
	// negative disables it.
	HealthInterval time.Duration
	// FailThreshold is the number of consecutive failed attempts or probes
	// after which a backend is reported down.
	FailThreshold int
	// MaxLagBlocks takes a node of a backend of several nodes out of
	// service while its head block is more than this many blocks behind
	// the best head of the backend's nodes; 0 turns the check off.
	MaxLagBlocks int
	// NodeProbeInterval is the period at which the prober reads every
	// node's head or sync state (DefaultNodeProbeInterval when 0); the
	// prober runs only when HealthInterval is positive.
	NodeProbeInterval time.Duration
	// MaxHeadAge takes a hived node out of service while its head block is
	// older than this (DefaultMaxHeadAge when 0; negative turns the check
	// off, for a chain replayed from the past).
	MaxHeadAge time.Duration
	// MaxSyncAge takes a hivemind or HAfAH node out of service while it is
	// more than this behind the chain (DefaultMaxSyncAge when 0; negative
	// turns the check off).
	MaxSyncAge time.Duration
	// Now is the clock the prober judges block times by (time.Now when
	// nil); tests inject their own.
	Now func() time.Time
	// WSConnsPerNode is the number of WebSocket connections kept per ws(s)
	// node; 0 means MaxConnsPerBackend.
	WSConnsPerNode int
	// UserAgent is the User-Agent header sent to backends.
	UserAgent string
	// TLSConfig, when set, configures the TLS client of https:// backends,
	// e.g. RootCAs for a private CA (or a test server's certificate) or a
	// client certificate. It is cloned per backend; an empty ServerName is
	// set to the URL's host and NextProtos is always ["http/1.1"]. nil means
	// the defaults: the system's roots, verification on.
	TLSConfig *tls.Config
	// Observer, when set, is told about every call (see observe.go).
	Observer Observer
}

// DefaultOptions returns the defaults, prober included.
func DefaultOptions() Options {
	return Options{
		MaxConnsPerBackend: DefaultMaxConnsPerBackend,
		MaxResponseBytes:   DefaultMaxResponseBytes,
		DialTimeout:        DefaultDialTimeout,
		HealthInterval:     DefaultHealthInterval,
		FailThreshold:      DefaultFailThreshold,
		UserAgent:          DefaultUserAgent,
	}
}

// withDefaults fills the unset fields of o.
func (o Options) withDefaults() Options {
	if o.MaxConnsPerBackend <= 0 {
		o.MaxConnsPerBackend = DefaultMaxConnsPerBackend
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.HealthInterval < 0 {
		o.HealthInterval = 0
	}
	if o.FailThreshold <= 0 {
		o.FailThreshold = DefaultFailThreshold
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.NodeProbeInterval <= 0 {
		o.NodeProbeInterval = DefaultNodeProbeInterval
	}
	if o.WSConnsPerNode <= 0 {
		o.WSConnsPerNode = o.MaxConnsPerBackend
	}
	if o.MaxHeadAge == 0 {
		o.MaxHeadAge = DefaultMaxHeadAge
	}
	if o.MaxSyncAge == 0 {
		o.MaxSyncAge = DefaultMaxSyncAge
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxLagBlocks < 0 {
		o.MaxLagBlocks = 0
	}
	return o
}
