// Package auth is hivegate's OAuth 2 service for Hive apps, compatible
// with HiveSigner's API: an app registered in the config sends a user to
// /oauth2/authorize, the user proves who they are by signing a one-time
// challenge in their browser (Hive Keychain, or a key typed into the page
// that never leaves it) and grants the service account posting authority
// over their account, and the app gets a code or a token. With it the app
// reads /api/me and broadcasts posting operations through /api/broadcast
// (or the typed hive.auth.v1.AuthService): hivegate checks every operation
// against the token's scope and user, builds the transaction, signs it
// with the service account's posting key and broadcasts it through its own
// dispatcher. No private key of a user ever reaches hivegate.
//
// Tokens are JWTs (EdDSA or ES256, github.com/golang-jwt/jwt/v5) bound to
// app, user and scope; codes, challenges and sessions are one-time
// records, and revocations are kept in Redis when the shared tier is
// configured so that every replica honours them at once.
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hivegate/hivegate/clientip"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/router"
)

// Options configure a Service.
type Options struct {
	// Settings are the auth section; Cache the cache section (its Redis
	// URL makes codes and revocations shared by every replica).
	Settings config.AuthSettings
	Cache    config.CacheSettings
	// Chain returns the dispatcher the service reads and broadcasts
	// through: the gateway's current one.
	Chain func() Caller
	// ClientIP says how to find a request's client address (for rate
	// limits), as the gateway's guard does.
	ClientIP clientip.Options
	Logger   *slog.Logger
	// Now is the clock (default time.Now); LookupEnv reads the environment
	// (default os.LookupEnv). Tests replace them.
	Now       func() time.Time
	LookupEnv func(string) (string, bool)
}

// Service is the OAuth 2 service. It lives as long as the gateway; the
// dispatcher it uses follows config reloads.
type Service struct {
	set        config.AuthSettings
	chain      func() Caller
	log        *slog.Logger
	now        func() time.Time
	chainID    hivetx.ChainID
	serviceKey *hivetx.PrivateKey
	tokens     *tokenSigner
	store      store
	policy     *router.KeyMap[string] // nil: no token policy
	loginRate  *limiter
	tokenRate  *limiter
	appsMu     sync.RWMutex
	apps       map[string]config.AuthApp // follows config reloads (SetApps)
}

// txExpiration is how long after the head block's time a broadcast
// transaction expires (dhive's and HiveSigner's 60 seconds).
const txExpiration = 60 * time.Second

// New builds the service: it reads the service account's key and the
// token signing key, and opens the store. Errors name the setting at
// fault and never include a key.
func New(o Options) (*Service, error) {
	set := o.Settings
	if !set.Enabled {
		return nil, errors.New("auth: not enabled")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{set: set, chain: o.Chain, log: o.Logger, now: o.Now, apps: map[string]config.AuthApp{}}
	var err error
	if s.chainID, err = hivetx.ParseChainID(set.ChainID); err != nil {
		return nil, fmt.Errorf("auth.chain_id: %w", err)
	}
	if s.serviceKey, err = loadServiceKey(set, o.LookupEnv); err != nil {
		return nil, err
	}
	issuer := set.Issuer
	if issuer == "" {
		issuer = "hivegate"
	}
	var generated bool
	if s.tokens, generated, err = loadTokenSigner(set, o.LookupEnv, issuer, o.Now); err != nil {
		return nil, err
	}
	if generated {
		s.log.Warn("auth: tokens are signed with a key made at start (no auth.token_key_file or token_key_env): they die with the process")
	}
	if len(set.RequireToken) > 0 {
		if s.policy, err = router.NewKeyMap(set.RequireToken, "auth.require_token"); err != nil {
			return nil, err
		}
	}
	s.SetApps(set.Apps)
	s.loginRate = newLimiter(set.LoginRatePerMinute, o.ClientIP, o.Now)
	s.tokenRate = newLimiter(set.TokenRatePerMinute, o.ClientIP, o.Now)
	if s.store, err = openStore(o.Cache, o.Now); err != nil {
		return nil, err
	}
	if w := (&config.Config{Auth: set, Cache: o.Cache}).ReplicaWarning(); w != "" {
		s.log.Warn(w)
	}
	s.log.Info("auth service on", "service_account", set.ServiceAccount, "service_key", s.serviceKey.PublicKey().String(),
		"apps", len(set.Apps), "shared_store", o.Cache.Enabled(), "token_policy", s.policy != nil)
	return s, nil
}

// loadServiceKey reads the service account's posting key (WIF) from
// auth.service_key_file or auth.service_key_env.
func loadServiceKey(set config.AuthSettings, env func(string) (string, bool)) (*hivetx.PrivateKey, error) {
	var wif string
	switch {
	case set.ServiceKeyFile != "":
		b, err := os.ReadFile(set.ServiceKeyFile)
		if err != nil {
			return nil, fmt.Errorf("auth.service_key_file: %w", err)
		}
		wif = strings.TrimSpace(string(b))
	case set.ServiceKeyEnv != "":
		v, ok := env(set.ServiceKeyEnv)
		if !ok || v == "" {
			return nil, fmt.Errorf("auth.service_key_env: environment variable %s is not set", set.ServiceKeyEnv)
		}
		wif = strings.TrimSpace(v)
	default:
		return nil, errors.New("auth: no service_key_file or service_key_env")
	}
	k, err := hivetx.ParseWIF(wif)
	if err != nil {
		return nil, fmt.Errorf("auth: the service account's key: %w", err) // ErrInvalidKey's text never repeats the key
	}
	return k, nil
}

// SetApps replaces the registered apps, as a config reload does: an app
// no longer listed gets no new login, and its access and refresh tokens
// are refused from then on.
func (s *Service) SetApps(apps []config.AuthApp) {
	m := make(map[string]config.AuthApp, len(apps))
	for _, a := range apps {
		m[a.ClientID] = a
	}
	s.appsMu.Lock()
	s.apps = m
	s.appsMu.Unlock()
}

// app returns a registered app.
func (s *Service) app(clientID string) (config.AuthApp, bool) {
	s.appsMu.RLock()
	defer s.appsMu.RUnlock()
	a, ok := s.apps[clientID]
	return a, ok
}

// anyApp reports whether a registered app satisfies f.
func (s *Service) anyApp(f func(config.AuthApp) bool) bool {
	s.appsMu.RLock()
	defer s.appsMu.RUnlock()
	for _, a := range s.apps {
		if f(a) {
			return true
		}
	}
	return false
}

// Close releases the store.
func (s *Service) Close() error { return s.store.close() }

// ServiceAccount is the account users authorize.
func (s *Service) ServiceAccount() string { return s.set.ServiceAccount }

// Mount adds the service's endpoints to mux: the login page and its API
// under /oauth2/, HiveSigner's API under /api/, and the RFC 8414 metadata.
func (s *Service) Mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /oauth2/authorize", s.authorize)
	mux.Handle("GET /oauth2/assets/", http.StripPrefix("/oauth2/assets", pageAssets()))
	mux.HandleFunc("POST /oauth2/challenge", s.pageAPI(s.challenge))
	mux.HandleFunc("POST /oauth2/login", s.pageAPI(s.login))
	mux.HandleFunc("POST /oauth2/grant", s.pageAPI(s.grant))
	mux.HandleFunc("/api/oauth2/token", s.token) // POST only: token answers 405 to the rest
	mux.HandleFunc("/api/oauth2/token/revoke", s.revoke)
	mux.HandleFunc("/api/me", s.me)
	mux.HandleFunc("/api/broadcast", s.broadcastHTTP)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
}

// issuer is the service's public base URL: auth.issuer, or the request's
// own scheme and host.
func (s *Service) issuer(r *http.Request) string {
	if s.set.Issuer != "" {
		return s.set.Issuer
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// verify checks an access token: signature, expiry, that its app is
// still registered, and that its grant has not been revoked (a store
// read: on every replica with Redis).
func (s *Service) verify(ctx context.Context, raw string) (Token, error) {
	if raw == "" {
		return Token{}, errTokenMissing
	}
	t, err := s.tokens.parse(raw, useAccess)
	if err != nil {
		return Token{}, err
	}
	if _, ok := s.app(t.ClientID); !ok {
		return Token{}, errAppRemoved
	}
	if err := s.checkRevoked(ctx, t.Grant); err != nil {
		return Token{}, err
	}
	return t, nil
}

// errAppRemoved is a token of an app no longer in the config.
var errAppRemoved = errors.New("the app this token was issued to is no longer registered")

// errStoreDown is a store that could not be read: a token cannot be shown
// not to be revoked, so it is refused.
var errStoreDown = errors.New("the token store is unavailable; retry later")

func (s *Service) checkRevoked(ctx context.Context, grant string) error {
	_, err := s.store.get(ctx, kindRevoked, grant)
	switch {
	case err == nil:
		return errTokenRevoked
	case errors.Is(err, errNotFound):
		return nil
	}
	s.log.Error("auth: reading revocations", "err", err)
	return errStoreDown
}

// revokeGrant revokes every token of a grant for as long as any of them
// can live.
func (s *Service) revokeGrant(ctx context.Context, grant string) error {
	ttl := max(s.set.RefreshTokenTTL, s.set.AccessTokenTTL)
	s.anyApp(func(a config.AuthApp) bool { ttl = max(ttl, a.TokenTTL); return false })
	return s.store.put(ctx, kindRevoked, grant, []byte{1}, ttl)
}

// accessTTL is an app's access token lifetime.
func (s *Service) accessTTL(clientID string) time.Duration {
	if a, ok := s.app(clientID); ok && a.TokenTTL > 0 {
		return a.TokenTTL
	}
	return s.set.AccessTokenTTL
}

// bearer is the token of a request: the Authorization header, raw (as
// HiveSigner's SDK sends it) or "Bearer <token>".
func bearer(r *http.Request) string {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return h
}
