package config

import (
	"encoding/hex"
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
	Enabled bool
	// Issuer is the service's public base URL, such as
	// https://api.example.com (auth.issuer): the tokens' issuer, the
	// metadata's endpoints and the one origin the login page's requests may
	// come from. Empty: derived from each request's Host header, which is
	// right only when clients reach hivegate directly.
	Issuer string
	// ServiceAccount is the Hive account users add to their posting
	// authority (auth.service_account).
	ServiceAccount string
	// ServiceKeyFile and ServiceKeyEnv name where the service account's
	// posting key (WIF) is read from at start: a file, or an environment
	// variable. Exactly one is given; the key itself never is.
	ServiceKeyFile string
	ServiceKeyEnv  string
	// ChainID is the chain the service signs for, 64 hex digits
	// (auth.chain_id, default Hive mainnet's beeab0de00…).
	ChainID string
	// TokenKeyFile and TokenKeyEnv name the PEM (PKCS #8) private key that
	// signs the tokens: Ed25519 (EdDSA JWTs) or P-256 (ES256). At most one
	// is given; with neither, hivegate makes an Ed25519 key at start, and
	// tokens die with the process and are not valid on other replicas.
	TokenKeyFile string
	TokenKeyEnv  string
	// AccessTokenTTL is how long an access token lives
	// (auth.access_token_ttl, default 7 days as HiveSigner's).
	AccessTokenTTL time.Duration
	// RefreshTokenTTL is how long a grant with scope offline lives from
	// its code exchange (auth.refresh_token_ttl, default 30 days): each
	// refresh answers a new refresh token with the same expiry, so
	// refreshing never extends it, and no access token outlives it.
	RefreshTokenTTL time.Duration
	// CodeTTL is how long an authorization code may wait to be exchanged
	// (auth.code_ttl, default 60 s, at most 10 minutes).
	CodeTTL time.Duration
	// ChallengeTTL is how long a login challenge may wait to be signed
	// (auth.challenge_ttl, default 5 minutes).
	ChallengeTTL time.Duration
	// SessionTTL is how long the login page may take from a verified
	// signature to the user's decision (auth.session_ttl, default 10
	// minutes).
	SessionTTL time.Duration
	// LoginRatePerMinute bounds challenges and logins per client address
	// (auth.login_rate_per_minute, default 20).
	LoginRatePerMinute int
	// TokenRatePerMinute bounds token and revoke requests per client
	// address (auth.token_rate_per_minute, default 60).
	TokenRatePerMinute int
	// Apps are the registered applications (auth.apps).
	Apps []AuthApp
	// SingleReplica says that one hivegate process alone uses this
	// token key (auth.single_replica, default false). Without the shared
	// Redis tier (cache.redis_url), revocations and used refresh tokens
	// live in each process's memory: a token revoked on one replica stays
	// valid on every other replica signing with the same token_key_file
	// or token_key_env. hivegate cannot count its replicas, so it warns at
	// start in that case; true silences the warning.
	SingleReplica bool
	// RequireToken is the optional token policy of JSON-RPC and typed
	// calls (auth.require_token): method key → the scope a call needs,
	// "login" or "posting", or "none" to exempt a more specific key.
	// Resolved most specific first, as ttls are.
	RequireToken []Entry[string]
	// Pos is where the section was given (zero when it was not).
	Pos Pos
}

// AuthApp is one registered application.
type AuthApp struct {
	// ClientID is the app's Hive account name (auth.apps[].client_id).
	ClientID string
	// Name is shown to users on the login page (default: ClientID).
	Name string
	// Account is the app's Hive account (auth.apps[].account, default:
	// ClientID), HiveSigner's consent chain: a user authorizes the app by
	// adding this account to their posting authority, and this account
	// lists the service account in its own; revoking it on chain revokes
	// this app alone. The service account itself is direct consent: one
	// authorization covers every app naming it.
	Account string
	// SecretSHA256 is the hex sha256 of the app's client secret
	// (auth.apps[].secret_sha256). Empty: a public client (a browser or
	// mobile app), which must use PKCE.
	SecretSHA256 string
	// RedirectURIs are the exact URIs the app may be sent back to.
	RedirectURIs []string
	// Scopes the app may ask for: login, posting, offline (default: all).
	Scopes []string
	// TokenTTL overrides AccessTokenTTL for this app (0: the default).
	TokenTTL time.Duration
	// Implicit lets a public app (no secret) use the implicit flow,
	// response_type=token, which hands the access token to whatever
	// listens at the redirect URI (auth.apps[].implicit, default false).
	// An app with a secret never may: it must exchange a code.
	Implicit bool
	// Quota is the quotas.classes entry the app's access tokens are held
	// to (auth.apps[].quota; quota.go): a call with a valid token of the
	// app counts against the app, not the client's address. Empty: the
	// app's calls count as any other client's.
	Quota    string
	Pos      Pos
	quotaPos Pos
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

func defaultAuthSettings() AuthSettings {
	return AuthSettings{
		ChainID:            MainnetChainID,
		AccessTokenTTL:     DefaultAccessTokenTTL,
		RefreshTokenTTL:    DefaultRefreshTokenTTL,
		CodeTTL:            DefaultCodeTTL,
		ChallengeTTL:       DefaultChallengeTTL,
		SessionTTL:         DefaultSessionTTL,
		LoginRatePerMinute: DefaultLoginRate,
		TokenRatePerMinute: DefaultTokenRate,
	}
}

// App returns the registered app with a client id.
func (s AuthSettings) App(clientID string) (AuthApp, bool) {
	for _, a := range s.Apps {
		if a.ClientID == clientID {
			return a, true
		}
	}
	return AuthApp{}, false
}

// authSection reads the `auth:` section (both formats); k is its key node.
func (d *decoder) authSection(cfg *Config, k, n *node) error {
	s := defaultAuthSettings()
	s.Pos = d.pos(k)
	if n.kind == kindScalar && n.null {
		cfg.Auth = s
		return nil
	}
	err := d.fields(n, "auth", func(key string, kn, v *node) (bool, error) {
		path := "auth." + key
		var err error
		switch key {
		case "enabled":
			s.Enabled, err = d.boolean(v, path)
		case "issuer":
			if s.Issuer, err = d.str(v, path); err == nil && s.Issuer != "" {
				err = d.issuer(v, path, s.Issuer)
				s.Issuer = strings.TrimRight(s.Issuer, "/")
			}
		case "service_account":
			if s.ServiceAccount, err = d.str(v, path); err == nil && !ValidAccountName(s.ServiceAccount) {
				err = d.errf(v, path, "%q is not a Hive account name", s.ServiceAccount)
			}
		case "service_key_file":
			s.ServiceKeyFile, err = d.keyFile(v, path)
		case "service_key_env":
			s.ServiceKeyEnv, err = d.keyEnv(v, path)
		case "chain_id":
			if s.ChainID, err = d.str(v, path); err == nil {
				if b, e := hex.DecodeString(s.ChainID); e != nil || len(b) != 32 {
					err = d.errf(v, path, "want 64 hex digits")
				}
			}
		case "token_key_file":
			s.TokenKeyFile, err = d.keyFile(v, path)
		case "token_key_env":
			s.TokenKeyEnv, err = d.keyEnv(v, path)
		case "access_token_ttl":
			s.AccessTokenTTL, err = d.seconds(v, path, time.Minute, 365*24*time.Hour)
		case "refresh_token_ttl":
			s.RefreshTokenTTL, err = d.seconds(v, path, time.Minute, 5*365*24*time.Hour)
		case "code_ttl":
			s.CodeTTL, err = d.seconds(v, path, time.Second, MaxCodeTTL)
		case "challenge_ttl":
			s.ChallengeTTL, err = d.seconds(v, path, 10*time.Second, time.Hour)
		case "session_ttl":
			s.SessionTTL, err = d.seconds(v, path, 10*time.Second, time.Hour)
		case "single_replica":
			s.SingleReplica, err = d.boolean(v, path)
		case "login_rate_per_minute":
			s.LoginRatePerMinute, err = d.perMinute(v, path)
		case "token_rate_per_minute":
			s.TokenRatePerMinute, err = d.perMinute(v, path)
		case "apps":
			err = d.authApps(&s, v, path)
		case "require_token":
			err = eachEntry(d, v, path, func(e string, kn, vn *node) error {
				scope, err := d.str(vn, path+"."+e)
				if err == nil && scope != ScopeLogin && scope != ScopePosting && scope != ScopeNone {
					err = d.errf(vn, path+"."+e, "want login, posting or none, got %q", scope)
				}
				s.RequireToken = append(s.RequireToken, Entry[string]{Key: e, Value: scope, Pos: d.pos(kn)})
				return err
			})
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	if err := s.check(d, n); err != nil {
		return err
	}
	if s.Enabled && s.TokenKeyFile == "" && s.TokenKeyEnv == "" {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: auth: no token_key_file or token_key_env: tokens are signed with a key made at start, so they die with the process and other replicas refuse them", s.Pos))
	}
	for i, app := range s.Apps {
		if s.Enabled && app.Account == s.ServiceAccount {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: auth.apps[%d].account is the service account @%s: direct consent, so a user who authorizes it authorizes every app naming it, and a leaked service key exposes them all (docs/authorization.md)", app.Pos, i, app.Account))
		}
	}
	if s.Enabled && strings.HasPrefix(s.Issuer, "http://") && !loopbackURL(s.Issuer) {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: auth.issuer %s is not https: codes and tokens would cross the network in clear", s.Pos, s.Issuer))
	}
	cfg.Auth = s
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

// keyFile reads the path of a key file (auth.service_key_file,
// auth.token_key_file). A key written in its place is refused with a
// message that does not repeat it.
func (d *decoder) keyFile(n *node, key string) (string, error) {
	if n.kind == kindScalar && looksLikePrivateKey(n.str) {
		return "", d.errf(n, key, "looks like a private key, not a path; put the key in a file readable only by hivegate and give its path (the value is not repeated here; if this file is shared, the key is no longer secret)")
	}
	return d.str(n, key)
}

// keyEnv reads the name of an environment variable holding a key
// (auth.service_key_env, auth.token_key_env). A key written in its place,
// or anything else that is not a variable name, is refused without
// repeating the value.
func (d *decoder) keyEnv(n *node, key string) (string, error) {
	if n.kind == kindScalar && looksLikePrivateKey(n.str) {
		return "", d.errf(n, key, "looks like a private key, not the name of an environment variable; put the key in a variable and give its name, such as HIVEGATE_SERVICE_KEY (the value is not repeated here; if this file is shared, the key is no longer secret)")
	}
	s, err := d.str(n, key)
	if err != nil {
		return "", err
	}
	if !validEnvName(s) {
		return "", d.errf(n, key, "want the name of an environment variable (letters, digits and _, not starting with a digit), such as HIVEGATE_SERVICE_KEY; the value, %d characters, is not repeated here", len(s))
	}
	return s, nil
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

// check validates what no single key can: an enabled service needs its
// account, one key source and at least one app.
func (s *AuthSettings) check(d *decoder, n *node) error {
	if s.ServiceKeyFile != "" && s.ServiceKeyEnv != "" {
		return d.errf(n, "auth.service_key_file", "give service_key_file or service_key_env, not both")
	}
	if s.TokenKeyFile != "" && s.TokenKeyEnv != "" {
		return d.errf(n, "auth.token_key_file", "give token_key_file or token_key_env, not both")
	}
	if !s.Enabled {
		return nil
	}
	switch {
	case s.ServiceAccount == "":
		return d.errf(n, "auth.service_account", "required when auth is enabled: the account users authorize")
	case s.ServiceKeyFile == "" && s.ServiceKeyEnv == "":
		return d.errf(n, "auth.service_key_file", "required when auth is enabled (or service_key_env): where the service account's posting key is read from")
	case len(s.Apps) == 0:
		return d.errf(n, "auth.apps", "required when auth is enabled: register at least one app")
	}
	return nil
}

func (d *decoder) authApps(s *AuthSettings, n *node, path string) error {
	if n.kind != kindSeq {
		return d.errf(n, path, "want a list of apps, got %s", describe(n))
	}
	seen := map[string]bool{}
	for i, an := range n.vals {
		ap := fmt.Sprintf("%s[%d]", path, i)
		app := AuthApp{Scopes: []string{ScopeLogin, ScopePosting, ScopeOffline}, Pos: d.pos(an)}
		var implicitNode *node
		err := d.fields(an, ap, func(key string, kn, v *node) (bool, error) {
			kp := ap + "." + key
			var err error
			switch key {
			case "client_id":
				if app.ClientID, err = d.str(v, kp); err == nil && !ValidAccountName(app.ClientID) {
					err = d.errf(v, kp, "%q is not a Hive account name (an app's client id is its account)", app.ClientID)
				}
			case "name":
				app.Name, err = d.str(v, kp)
			case "account":
				if app.Account, err = d.str(v, kp); err == nil && !ValidAccountName(app.Account) {
					err = d.errf(v, kp, "%q is not a Hive account name (the app's account users add to their posting authority)", app.Account)
				}
			case "secret_sha256":
				if app.SecretSHA256, err = d.str(v, kp); err == nil {
					app.SecretSHA256 = strings.ToLower(app.SecretSHA256)
					if b, e := hex.DecodeString(app.SecretSHA256); e != nil || len(b) != 32 {
						err = d.errf(v, kp, "want the hex sha256 of the secret (64 digits), never the secret itself")
					}
				}
			case "redirect_uris":
				if app.RedirectURIs, err = d.strings(v, kp); err == nil {
					for _, u := range app.RedirectURIs {
						if err = checkRedirectURI(u); err != nil {
							return true, d.errf(v, kp, "%s: %v", u, err)
						}
					}
				}
			case "scopes":
				if app.Scopes, err = d.strings(v, kp); err == nil {
					for _, sc := range app.Scopes {
						if sc != ScopeLogin && sc != ScopePosting && sc != ScopeOffline {
							return true, d.errf(v, kp, "unknown scope %q: want login, posting or offline", sc)
						}
					}
				}
			case "token_ttl":
				app.TokenTTL, err = d.seconds(v, kp, time.Minute, 365*24*time.Hour)
			case "implicit":
				app.Implicit, err = d.boolean(v, kp)
				implicitNode = v
			case "quota": // quota.go checks the class
				app.Quota, err = d.str(v, kp)
				app.quotaPos = d.pos(v)
			default:
				return false, nil
			}
			return true, err
		})
		if err != nil {
			return err
		}
		switch {
		case app.ClientID == "":
			return d.errf(an, ap+".client_id", "required")
		case seen[app.ClientID]:
			return d.errf(an, ap+".client_id", "app %q registered twice", app.ClientID)
		case len(app.RedirectURIs) == 0:
			return d.errf(an, ap+".redirect_uris", "required: the exact URIs the app may be sent back to")
		case app.Implicit && app.SecretSHA256 != "":
			return d.errf(implicitNode, ap+".implicit", "an app with a secret (secret_sha256) may not use the implicit flow: it exchanges a code for its tokens; remove implicit or the secret")
		}
		seen[app.ClientID] = true
		if app.Name == "" {
			app.Name = app.ClientID
		}
		if app.Account == "" {
			app.Account = app.ClientID
		}
		s.Apps = append(s.Apps, app)
	}
	return nil
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

func (d *decoder) issuer(n *node, key, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return d.errf(n, key, "want the service's base URL, such as https://api.example.com")
	}
	return nil
}

// seconds reads a duration written as whole seconds or as a Go duration
// ("168h", "90s").
func (d *decoder) seconds(n *node, key string, lo, hi time.Duration) (time.Duration, error) {
	var v time.Duration
	switch {
	case n.kind == kindScalar && n.tag == tagInt:
		s, err := d.integer(n, key)
		if err != nil {
			return 0, err
		}
		v = time.Duration(s) * time.Second
	case n.kind == kindScalar && n.tag == tagStr:
		var err error
		if v, err = time.ParseDuration(n.str); err != nil {
			return 0, d.errf(n, key, "want seconds or a duration such as 90s or 168h, got %q", n.str)
		}
	default:
		return 0, d.errf(n, key, "want seconds or a duration such as 90s or 168h, got %s", describe(n))
	}
	if v < lo || v > hi {
		return 0, d.errf(n, key, "%v out of range %v..%v", v, lo, hi)
	}
	return v, nil
}

func (d *decoder) perMinute(n *node, key string) (int, error) {
	v, err := d.integer(n, key)
	if err == nil && (v < 1 || v > 100000) {
		err = d.errf(n, key, "%d out of range 1..100000", v)
	}
	return int(v), err
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
