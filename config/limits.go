package config

import (
	"math"
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

// limitsSection is the `limits:` section of both formats: the Limits
// fields, a second spelling, and keys jussi documents but never reads.
type limitsSection struct {
	*Limits
	// AccountsBlacklist is jussi's spelling of blacklist_accounts; both
	// may be given.
	AccountsBlacklist []string `yaml:"accounts_blacklist"`
	// BatchSize and CustomJSONOpLength are documented by jussi's next
	// branch (docs/CONFIGURATION.md) but never read by it.
	BatchSize          anyValue `yaml:"batch_size" warn:"jussi documents this key but never reads it; hivegate ignores it too (the batch limit is limits.max_batch_size)"`
	CustomJSONOpLength anyValue `yaml:"custom_json_op_length" warn:"jussi documents this key but never reads it; hivegate ignores it too (the batch limit is limits.max_batch_size)"`
}

func (l *limitsSection) validate(*decoder, string) error {
	if l.BlacklistAccounts = append(l.BlacklistAccounts, l.AccountsBlacklist...); len(l.BlacklistAccounts) == 0 {
		l.BlacklistAccounts = nil
	}
	return nil
}
