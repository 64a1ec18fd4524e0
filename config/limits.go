package config

import (
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Defaults of the limits section. Limits.WithDefaults applies them to zero
// fields, and defaults() starts every config from them.
const (
	DefaultMaxBatchSize            = 50
	DefaultMaxBodyBytes      int64 = 1 << 20 // 1 MiB
	DefaultMaxJSONDepth            = 64
	DefaultMaxHeaderBytes          = 64 << 10 // 64 KiB
	DefaultReadHeaderTimeout       = 10 * time.Second
	DefaultReadTimeout             = 60 * time.Second
	DefaultWriteTimeout            = 120 * time.Second
	DefaultIdleTimeout             = 120 * time.Second
	DefaultMaxInFlight             = 2048
	DefaultMaxResponseBytes  int64 = 64 << 20 // 64 MiB
	DefaultMaxUpstreamBatch        = 50
	// DefaultMaxConnsPerClient is max_conns_per_client's default: room for
	// a busy application server's connection pool, far from the file
	// descriptors one address could otherwise hold.
	DefaultMaxConnsPerClient = 256
	// DefaultMaxConcurrentStreams is max_concurrent_streams's default, the
	// smallest value RFC 9113 recommends.
	DefaultMaxConcurrentStreams = 100
	// DefaultBodyTimeout is body_timeout's default: 1 MiB (the default
	// max_body_bytes) needs 100 KiB/s.
	DefaultBodyTimeout = 10 * time.Second
	// inFlightPerClientShare is the share of max_in_flight one client
	// address may hold when max_in_flight_per_client is not set: 1/8.
	inFlightPerClientShare = 8
)

// Ranges of the limits keys.
const (
	maxBodyBytesLimit     = 1 << 30
	maxHeaderBytesLimit   = 16 << 20
	maxInFlightLimit      = 1_000_000
	maxRateLimit          = 1_000_000
	maxResponseBytesLimit = 4 << 30
	maxStreamsLimit       = 10_000
)

// WithDefaults returns l with every zero field set to its default. The
// consumers of a Limits (the JSON-RPC handler, the Guard, the backend pool,
// the http.Server) call it, so a Limits built by hand means the same as one
// loaded from a file. Rate limiting stays off (0) unless set; the burst
// defaults to the rate rounded up; max_in_flight_per_client defaults to
// an eighth of max_in_flight (at least 1); body_timeout is never longer
// than read_timeout.
func (l Limits) WithDefaults() Limits {
	set := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	setDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	set(&l.MaxBatchSize, DefaultMaxBatchSize)
	set(&l.MaxJSONDepth, DefaultMaxJSONDepth)
	set(&l.MaxHeaderBytes, DefaultMaxHeaderBytes)
	set(&l.MaxInFlight, DefaultMaxInFlight)
	set(&l.MaxUpstreamBatchSize, DefaultMaxUpstreamBatch)
	set(&l.MaxInFlightPerClient, max(1, l.MaxInFlight/inFlightPerClientShare))
	set(&l.MaxConnsPerClient, DefaultMaxConnsPerClient)
	set(&l.MaxConcurrentStreams, DefaultMaxConcurrentStreams)
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = DefaultMaxResponseBytes
	}
	setDur(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDur(&l.ReadTimeout, DefaultReadTimeout)
	setDur(&l.WriteTimeout, DefaultWriteTimeout)
	setDur(&l.IdleTimeout, DefaultIdleTimeout)
	setDur(&l.BodyTimeout, DefaultBodyTimeout)
	l.BodyTimeout = min(l.BodyTimeout, l.ReadTimeout)
	if l.RateLimitPerSecond > 0 && l.RateLimitBurst <= 0 {
		l.RateLimitBurst = max(1, int(math.Ceil(l.RateLimitPerSecond)))
	}
	return l
}

// startLimits are the limits every config starts from: the defaults, but
// for those that follow another key (max_in_flight_per_client follows
// max_in_flight), which WithDefaults sets once the file is read.
func startLimits() Limits {
	l := Limits{}.WithDefaults()
	l.MaxInFlightPerClient = 0
	return l
}

// limitsSection reads the limits section, the same in both formats.
func (d *decoder) limitsSection(l *Limits, n *node, section string) error {
	return d.fields(n, section, func(key string, k, v *node) (bool, error) {
		path := section + "." + key
		var err error
		switch key {
		case "blacklist_accounts", "accounts_blacklist":
			var names []string
			names, err = d.strings(v, path)
			l.BlacklistAccounts = append(l.BlacklistAccounts, names...)
		case "max_batch_size":
			l.MaxBatchSize, err = d.intIn(v, path, 1, 10000)
		case "max_body_bytes":
			var b int
			b, err = d.intIn(v, path, 1024, maxBodyBytesLimit)
			l.MaxBodyBytes = int64(b)
		case "max_json_depth":
			l.MaxJSONDepth, err = d.intIn(v, path, 2, 1000)
		case "max_header_bytes":
			l.MaxHeaderBytes, err = d.intIn(v, path, 1024, maxHeaderBytesLimit)
		case "read_header_timeout":
			l.ReadHeaderTimeout, err = d.serverTimeout(v, path)
		case "read_timeout":
			l.ReadTimeout, err = d.serverTimeout(v, path)
		case "write_timeout":
			l.WriteTimeout, err = d.serverTimeout(v, path)
		case "idle_timeout":
			l.IdleTimeout, err = d.serverTimeout(v, path)
		case "max_in_flight":
			l.MaxInFlight, err = d.intIn(v, path, 1, maxInFlightLimit)
		case "max_in_flight_per_client":
			l.MaxInFlightPerClient, err = d.intIn(v, path, 1, maxInFlightLimit)
		case "max_conns_per_client":
			l.MaxConnsPerClient, err = d.intIn(v, path, 1, maxInFlightLimit)
		case "max_concurrent_streams":
			l.MaxConcurrentStreams, err = d.intIn(v, path, 1, maxStreamsLimit)
		case "body_timeout":
			l.BodyTimeout, err = d.serverTimeout(v, path)
		case "rate_limit_per_second":
			l.RateLimitPerSecond, err = d.rate(v, path)
		case "rate_limit_burst":
			l.RateLimitBurst, err = d.intIn(v, path, 1, maxRateLimit)
		case "trusted_proxy_header":
			l.TrustedProxyHeader, err = d.headerName(v, path)
		case "trusted_proxies":
			l.TrustedProxies, err = d.prefixes(v, path)
		case "max_upstream_batch_size":
			l.MaxUpstreamBatchSize, err = d.intIn(v, path, 1, 1000)
		case "no_upstream_batch":
			l.NoUpstreamBatch, err = d.strings(v, path)
			l.noBatchPos = d.pos(k)
		case "max_response_bytes":
			var b int
			b, err = d.intIn(v, path, 1024, maxResponseBytesLimit)
			l.MaxResponseBytes = int64(b)
		case "account_history_limit":
			l.AccountHistoryLimit, err = d.intIn(v, path, 0, 1_000_000)
		case "batch_size", "custom_json_op_length":
			// Documented by jussi's next branch (docs/CONFIGURATION.md) but
			// never read by it.
			l.unread = append(l.unread, unreadKey{path: path, pos: d.pos(k)})
		default:
			return false, nil
		}
		return true, err
	})
}

// intIn reads an integer in lo..hi.
func (d *decoder) intIn(n *node, key string, lo, hi int) (int, error) {
	v, err := d.integer(n, key)
	if err != nil {
		return 0, err
	}
	if v < int64(lo) || v > int64(hi) {
		name := key[strings.LastIndexByte(key, '.')+1:]
		return 0, d.errf(n, key, "%s %d out of range %d..%d", name, v, lo, hi)
	}
	return int(v), nil
}

// serverTimeout reads whole seconds, 1 to MaxTimeoutSeconds: a client
// connection without a timeout is an invitation to hold it open forever.
func (d *decoder) serverTimeout(n *node, key string) (time.Duration, error) {
	t, err := d.timeout(n, key)
	if err == nil && t == 0 {
		err = d.errf(n, key, "must be at least 1 second: client connections always have a timeout")
	}
	return t, err
}

// rate reads a non-negative number of calls per second (0 = off); a
// fraction such as 0.5 (one call every two seconds) is allowed.
func (d *decoder) rate(n *node, key string) (float64, error) {
	if n.kind != kindScalar || (n.tag != tagInt && n.tag != tagFloat) {
		return 0, d.errf(n, key, "want a number of calls per second (0 = off), got %s", describe(n))
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.str, "_", ""), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > maxRateLimit {
		return 0, d.errf(n, key, "rate_limit_per_second %s out of range 0..%d", n.str, maxRateLimit)
	}
	return v, nil
}

// headerName reads an HTTP header name such as X-Forwarded-For.
func (d *decoder) headerName(n *node, key string) (string, error) {
	s, err := d.str(n, key)
	if err != nil || s == "" {
		return s, err
	}
	for _, c := range s {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", d.errf(n, key, "%q is not an HTTP header name", s)
		}
	}
	return s, nil
}

// prefixes reads a list of addresses (1.2.3.4, ::1) and ranges (10.0.0.0/8).
func (d *decoder) prefixes(n *node, key string) ([]netip.Prefix, error) {
	list, err := d.strings(n, key)
	if err != nil {
		return nil, err
	}
	out := make([]netip.Prefix, 0, len(list))
	for _, s := range list {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				return nil, d.errf(n, key, "%q is neither an IP address nor a CIDR range", s)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
