package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"
)

// AuthSettings are the `auth:` section (an `auth` object in the legacy
// JSON format): hivegate's OAuth 2 service for Hive apps, HiveSigner's
// model. Users grant the service account posting authority over their
// account; registered apps get tokens from /oauth2/authorize and
// /api/oauth2/token and broadcast through /api/broadcast, which hivegate
// signs with the service account's posting key. Off unless Enabled.
type AuthSettings struct {
	// Enabled turns the service on (auth.enabled, default false).
	Enabled bool `yaml:"enabled"`
	// Issuer is the service's public base URL, such as
	// https://api.example.com (auth.issuer): the tokens' issuer, the
	// metadata's endpoints and the one origin the login page's requests may
	// come from. Empty: derived from each request's Host header, which is
	// right only when clients reach hivegate directly.
	Issuer string `yaml:"issuer" as:"issuer"`
	// ServiceAccount is the Hive account users add to their posting
	// authority (auth.service_account).
	ServiceAccount string `yaml:"service_account" as:"account"`
	// ServiceKeyFile and ServiceKeyEnv name where the service account's
	// posting key (WIF) is read from at start: a file, or an environment
	// variable. Exactly one is given; the key itself never is.
	ServiceKeyFile string `yaml:"service_key_file" as:"key_file"`
	ServiceKeyEnv  string `yaml:"service_key_env" as:"key_env"`
	// ChainID is the chain the service signs for, 64 hex digits
	// (auth.chain_id, default Hive mainnet's beeab0de00…).
	ChainID string `yaml:"chain_id" as:"hex32"`
	// TokenKeyFile and TokenKeyEnv name the PEM (PKCS #8) private key that
	// signs the tokens: Ed25519 (EdDSA JWTs) or P-256 (ES256). At most one
	// is given; with neither, hivegate makes an Ed25519 key at start, and
	// tokens die with the process and are not valid on other replicas.
	TokenKeyFile string `yaml:"token_key_file" as:"key_file"`
	TokenKeyEnv  string `yaml:"token_key_env" as:"key_env"`
	// AccessTokenTTL is how long an access token lives
	// (auth.access_token_ttl, default 7 days as HiveSigner's).
	AccessTokenTTL time.Duration `yaml:"access_token_ttl" as:"seconds" range:"1m..8760h"`
	// RefreshTokenTTL is how long a grant with scope offline lives from
	// its code exchange (auth.refresh_token_ttl, default 30 days): each
	// refresh answers a new refresh token with the same expiry, so
	// refreshing never extends it, and no access token outlives it.
	RefreshTokenTTL time.Duration `yaml:"refresh_token_ttl" as:"seconds" range:"1m..43800h"`
	// CodeTTL is how long an authorization code may wait to be exchanged
	// (auth.code_ttl, default 60 s, at most 10 minutes).
	CodeTTL time.Duration `yaml:"code_ttl" as:"seconds" range:"1s..10m"`
	// ChallengeTTL is how long a login challenge may wait to be signed
	// (auth.challenge_ttl, default 5 minutes).
	ChallengeTTL time.Duration `yaml:"challenge_ttl" as:"seconds" range:"10s..1h"`
	// SessionTTL is how long the login page may take from a verified
	// signature to the user's decision (auth.session_ttl, default 10
	// minutes).
	SessionTTL time.Duration `yaml:"session_ttl" as:"seconds" range:"10s..1h"`
	// LoginRatePerMinute bounds challenges and logins per client address
	// (auth.login_rate_per_minute, default 20).
	LoginRatePerMinute int `yaml:"login_rate_per_minute" range:"1..100000"`
	// TokenRatePerMinute bounds token and revoke requests per client
	// address (auth.token_rate_per_minute, default 60).
	TokenRatePerMinute int `yaml:"token_rate_per_minute" range:"1..100000"`
	// Apps are the registered applications (auth.apps).
	Apps []AuthApp `yaml:"apps"`
	// SingleReplica says that one hivegate process alone uses this
	// token key (auth.single_replica, default false). Without the shared
	// Redis tier (cache.redis_url), revocations and used refresh tokens
	// live in each process's memory: a token revoked on one replica stays
	// valid on every other replica signing with the same token_key_file
	// or token_key_env. hivegate cannot count its replicas, so it warns at
	// start in that case; true silences the warning.
	SingleReplica bool `yaml:"single_replica"`
	// RequireToken is the optional token policy of JSON-RPC and typed
	// calls (auth.require_token): method key → the scope a call needs,
	// "login" or "posting", or "none" to exempt a more specific key.
	// Resolved most specific first, as ttls are.
	RequireToken []Entry[string] `yaml:"require_token" as:"require"`
	// HiveAuthRelay is the WebSocket URL of the HiveAuth relay (HAS) the
	// login page's HiveAuth option goes through (auth.hiveauth_relay), such
	// as wss://hive-auth.arcange.eu: wss, or ws to a loopback host. Empty
	// (the default): the page offers no HiveAuth.
	HiveAuthRelay string `yaml:"hiveauth_relay" as:"relay"`
	// Pos is where the section was given (zero when it was not).
	Pos Pos
}

// AuthApp is one registered application.
type AuthApp struct {
	// ClientID is the app's Hive account name (auth.apps[].client_id).
	ClientID string `yaml:"client_id" as:"client_id"`
	// Name is shown to users on the login page (default: ClientID).
	Name string `yaml:"name"`
	// Account is the app's Hive account (auth.apps[].account, default:
	// ClientID), HiveSigner's consent chain: a user authorizes the app by
	// adding this account to their posting authority, and this account
	// lists the service account in its own; revoking it on chain revokes
	// this app alone. The service account itself is direct consent: one
	// authorization covers every app naming it.
	Account string `yaml:"account" as:"account"`
	// SecretSHA256 is the hex sha256 of the app's client secret
	// (auth.apps[].secret_sha256). Empty: a public client (a browser or
	// mobile app), which must use PKCE.
	SecretSHA256 string `yaml:"secret_sha256" as:"sha256"`
	// RedirectURIs are the exact URIs the app may be sent back to.
	RedirectURIs []string `yaml:"redirect_uris" as:"redirect"`
	// Scopes the app may ask for: login, posting, offline (default: all).
	Scopes []string `yaml:"scopes" as:"scope"`
	// TokenTTL overrides AccessTokenTTL for this app (0: the default).
	TokenTTL time.Duration `yaml:"token_ttl" as:"seconds" range:"1m..8760h"`
	// Implicit lets a public app (no secret) use the implicit flow,
	// response_type=token, which hands the access token to whatever
	// listens at the redirect URI (auth.apps[].implicit, default false).
	// An app with a secret never may: it must exchange a code.
	Implicit bool `yaml:"implicit"`
	// Quota is the quotas.classes entry the app's access tokens are held
	// to (auth.apps[].quota; quota.go): a call with a valid token of the
	// app counts against the app, not the client's address. Empty: the
	// app's calls count as any other client's.
	Quota string `yaml:"quota"`
	Pos   Pos
}

// The scopes of the auth service. login proves who the user is; posting
// also lets the app broadcast posting operations for the user; offline adds
// a refresh token.
const (
	ScopeLogin   = "login"
	ScopePosting = "posting"
	ScopeOffline = "offline"
	// ScopeNone in auth.require_token exempts a key from a broader entry.
	ScopeNone = "none"
)

// Defaults and bounds of the auth section.
const (
	DefaultAccessTokenTTL  = 7 * 24 * time.Hour
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
	DefaultCodeTTL         = time.Minute
	MaxCodeTTL             = 10 * time.Minute
	DefaultChallengeTTL    = 5 * time.Minute
	DefaultSessionTTL      = 10 * time.Minute
	DefaultLoginRate       = 20
	DefaultTokenRate       = 60
	// MainnetChainID is Hive mainnet's chain id.
	MainnetChainID = "beeab0de00000000000000000000000000000000000000000000000000000000"
)

// App returns the registered app with a client id.
func (s AuthSettings) App(clientID string) (AuthApp, bool) {
	for _, a := range s.Apps {
		if a.ClientID == clientID {
			return a, true
		}
	}
	return AuthApp{}, false
}

// validate checks the auth section as a whole: an enabled service needs
// its account, one key source and at least one app; apps need a client id
// given once and redirect URIs.
func (s *AuthSettings) validate(d *decoder, path string) error {
	n := d.at(path)
	s.Pos = d.pos(d.keyAt(path))
	seen := map[string]bool{}
	for i := range s.Apps {
		app, ap := &s.Apps[i], fmt.Sprintf("auth.apps[%d]", i)
		an := d.at(ap)
		app.Pos = d.pos(an)
		switch {
		case app.ClientID == "":
			return d.errf(an, ap+".client_id", "required")
		case seen[app.ClientID]:
			return d.errf(an, ap+".client_id", "app %q registered twice", app.ClientID)
		case len(app.RedirectURIs) == 0:
			return d.errf(an, ap+".redirect_uris", "required: the exact URIs the app may be sent back to")
		case app.Implicit && app.SecretSHA256 != "":
			return d.errf(d.at(ap+".implicit"), ap+".implicit", "an app with a secret (secret_sha256) may not use the implicit flow: it exchanges a code for its tokens; remove implicit or the secret")
		}
		seen[app.ClientID] = true
		if app.Name == "" {
			app.Name = app.ClientID
		}
		if app.Account == "" {
			app.Account = app.ClientID
		}
	}
	switch {
	case s.ServiceKeyFile != "" && s.ServiceKeyEnv != "":
		return d.errf(n, "auth.service_key_file", "give service_key_file or service_key_env, not both")
	case s.TokenKeyFile != "" && s.TokenKeyEnv != "":
		return d.errf(n, "auth.token_key_file", "give token_key_file or token_key_env, not both")
	case !s.Enabled:
		return nil
	case s.ServiceAccount == "":
		return d.errf(n, "auth.service_account", "required when auth is enabled: the account users authorize")
	case s.ServiceKeyFile == "" && s.ServiceKeyEnv == "":
		return d.errf(n, "auth.service_key_file", "required when auth is enabled (or service_key_env): where the service account's posting key is read from")
	case len(s.Apps) == 0:
		return d.errf(n, "auth.apps", "required when auth is enabled: register at least one app")
	}
	if s.TokenKeyFile == "" && s.TokenKeyEnv == "" {
		d.cfg.Warnings = append(d.cfg.Warnings, fmt.Sprintf("%s: auth: no token_key_file or token_key_env: tokens are signed with a key made at start, so they die with the process and other replicas refuse them", s.Pos))
	}
	for i, app := range s.Apps {
		if app.Account == s.ServiceAccount {
			d.cfg.Warnings = append(d.cfg.Warnings, fmt.Sprintf("%s: auth.apps[%d].account is the service account @%s: direct consent, so a user who authorizes it authorizes every app naming it, and a leaked service key exposes them all (docs/authorization.md)", app.Pos, i, app.Account))
		}
	}
	if strings.HasPrefix(s.Issuer, "http://") && !loopbackURL(s.Issuer) {
		d.cfg.Warnings = append(d.cfg.Warnings, fmt.Sprintf("%s: auth.issuer %s is not https: codes and tokens would cross the network in clear", s.Pos, s.Issuer))
	}
	return nil
}

// ReplicaWarning is the warning of an auth service whose revocations do
// not reach other replicas: tokens signed with a key of the config's
// (token_key_file, token_key_env) that other processes may share, no
// shared Redis tier, and no auth.single_replica. Empty when none applies.
func (c *Config) ReplicaWarning() string {
	a := c.Auth
	if !a.Enabled || a.SingleReplica || c.Cache.Enabled() || a.TokenKeyFile == "" && a.TokenKeyEnv == "" {
		return ""
	}
	return fmt.Sprintf("%s: auth: tokens are signed with a key from the config but there is no cache.redis_url: revoked tokens and used refresh tokens are remembered by this process only, so another replica with the same token key keeps accepting them; configure the shared Redis tier, or set auth.single_replica: true if this is the only process using the key", a.Pos)
}

// validEnvName reports a portable environment variable name.
func validEnvName(s string) bool {
	if s == "" || len(s) > 256 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// checkRedirectURI accepts an absolute https URL, or http to a loopback
// host (native apps, RFC 8252), without a fragment (RFC 6749 3.1.2).
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return fmt.Errorf("want an absolute URL")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("a redirect URI has no fragment")
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && loopbackURL(raw):
		return nil
	}
	return fmt.Errorf("want https (or http to 127.0.0.1, [::1] or localhost)")
}

func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkIssuer accepts the service's base URL.
func checkIssuer(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("want the service's base URL, such as https://api.example.com")
	}
	return nil
}

// ValidAccountName reports whether s is a Hive account name: 3 to 16
// characters, dot-separated segments of lowercase letters, digits and
// dashes, each starting with a letter, at least 3 long, not ending in a
// dash (hived's is_valid_account_name).
func ValidAccountName(s string) bool {
	if len(s) < 3 || len(s) > 16 {
		return false
	}
	return !slices.ContainsFunc(strings.Split(s, "."), func(seg string) bool {
		if len(seg) < 3 || seg[0] < 'a' || seg[0] > 'z' || seg[len(seg)-1] == '-' {
			return true
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return true
			}
		}
		return false
	})
}

// checkRelayURL accepts a HiveAuth relay's URL: wss://host[/path], or
// ws:// to a loopback host (a local or simulated relay).
func checkRelayURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("want the relay's WebSocket URL, such as wss://hive-auth.arcange.eu")
	case u.Scheme == "wss":
		return nil
	case u.Scheme == "ws" && loopbackURL(raw):
		return nil
	}
	return fmt.Errorf("want wss:// (or ws:// to 127.0.0.1, [::1] or localhost), got %s://", u.Scheme)
}
