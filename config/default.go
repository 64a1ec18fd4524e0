package config

import (
	_ "embed"
	"fmt"
	"os"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultSource names the embedded default config in messages.
const DefaultSource = "(embedded default)"

// NodeURLEnv is the environment variable the embedded default reads the node
// backend's URL from when no flag gives it.
const NodeURLEnv = "HIVEGATE_NODE_URL"

// Default returns the embedded default config with its one backend, `hived`,
// at nodeURL; an empty nodeURL is read from HIVEGATE_NODE_URL.
func Default(nodeURL string) (*Config, error) {
	from := "node URL argument"
	if nodeURL == "" {
		nodeURL, from = os.Getenv(NodeURLEnv), NodeURLEnv
	}
	if nodeURL == "" {
		return nil, fmt.Errorf("no config file and no node URL: pass --config FILE, --node-url URL or set %s", NodeURLEnv)
	}
	if err := checkURL(nodeURL); err != nil {
		return nil, &Error{Pos: Pos{File: from}, Key: "backends.hived", Err: err}
	}
	root, err := fromYAML(DefaultSource+".yaml", defaultYAML)
	if err != nil {
		return nil, err
	}
	return load(DefaultSource+".yaml", root, (*decoder).modern, nil, func(cfg *Config) {
		cfg.Source = DefaultSource
		cfg.Backends = []Backend{{Name: "hived", URL: nodeURL, Pos: Pos{File: from}}}
	})
}

// DefaultYAML returns the embedded default config's text (for docs and
// `hivegate config default`).
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }

// defaults are the values of every key a file does not give, in one
// place; the constants they use are beside each section's type. A section
// with defaults of its own when given (tracing, an app) has a setDefaults
// method below.
func defaults() *Config {
	return &Config{
		Settings: Settings{
			Hostname:                    DefaultHostname,
			Port:                        DefaultPort,
			CacheMaxCapacity:            DefaultCacheMaxCapacity,
			MiddlewareConnectionThreads: DefaultConnectionThreads,
			LIBPollInterval:             DefaultLIBPollInterval,
			NodeFailThreshold:           DefaultNodeFailThreshold,
			NodeMaxLagBlocks:            DefaultNodeMaxLagBlocks,
			NodeMaxHeadAge:              DefaultNodeMaxHeadAge,
			NodeMaxSyncAge:              DefaultNodeMaxSyncAge,
			CompressMinBytes:            DefaultCompressMinBytes,
		},
		Limits:           startLimits(), // limits.go
		DefaultNamespace: DefaultNamespace,
		Cache: CacheSettings{
			RedisPrefix:           DefaultRedisPrefix,
			RedisTimeout:          DefaultRedisTimeout,
			RedisCompressMinBytes: DefaultRedisCompressMinBytes,
			RedisBreakerFailures:  DefaultRedisBreakerFailures,
			RedisBreakerCooldown:  DefaultRedisBreakerCooldown,
		},
		Ops: Ops{AdminListen: DefaultAdminListen},
		Auth: AuthSettings{
			ChainID:            MainnetChainID,
			AccessTokenTTL:     DefaultAccessTokenTTL,
			RefreshTokenTTL:    DefaultRefreshTokenTTL,
			CodeTTL:            DefaultCodeTTL,
			ChallengeTTL:       DefaultChallengeTTL,
			SessionTTL:         DefaultSessionTTL,
			LoginRatePerMinute: DefaultLoginRate,
			TokenRatePerMinute: DefaultTokenRate,
		},
		Quotas:  QuotaSettings{KeyHeader: DefaultQuotaKeyHeader, DefaultWeight: DefaultQuotaWeight},
		Streams: defaultStreamSettings(),
	}
}

// setDefaults gives a tracing section its defaults (tracing is off, all
// zero, unless the section is given).
func (t *Tracing) setDefaults() {
	t.SampleRatio, t.ServiceName = DefaultSampleRatio, DefaultServiceName
}

// setDefaults gives an app every scope unless it names its own.
func (a *AuthApp) setDefaults() {
	a.Scopes = []string{ScopeLogin, ScopePosting, ScopeOffline}
}

// setDefaults gives a quota class its period; its burst is its limit
// unless given (QuotaSettings.validate, as it depends on another key).
func (c *QuotaClass) setDefaults() { c.Period = DefaultQuotaPeriod }
