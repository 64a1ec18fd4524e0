// Package signer builds, signs and broadcasts Hive transactions for a user
// within the scope the user granted an app: it checks every operation
// against the grant (the posting operations only, each acting for the
// user alone), checks the consent chain on chain (the user's posting
// authority lists the app's account, whose own lists the service account:
// consent.go), builds the transaction on the head hivegate reads, signs it
// with the service account's posting key and broadcasts it through the
// gateway's dispatcher. It also reads accounts and their authorities for
// the OAuth service's login. It issues no token and serves no HTTP: the
// OAuth service (package auth) verifies the token and hands the signer its
// user, app and scopes.
package signer

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivetx"
)

// Options configure a Signer.
type Options struct {
	// Settings are the auth section: service_account, service_key_file or
	// service_key_env, and chain_id.
	Settings config.AuthSettings
	// Chain returns the dispatcher the signer reads and broadcasts
	// through: the gateway's current one.
	Chain  func() Caller
	Logger *slog.Logger
	// LookupEnv reads the environment (default os.LookupEnv).
	LookupEnv func(string) (string, bool)
}

// Signer signs and broadcasts for users who gave its service account
// posting authority.
type Signer struct {
	account string
	key     *hivetx.PrivateKey
	chainID hivetx.ChainID
	chain   func() Caller
	log     *slog.Logger
}

// txExpiration is how long after the head block's time a broadcast
// transaction expires (dhive's and HiveSigner's 60 seconds).
const txExpiration = 60 * time.Second

// New reads the service account's key and the chain id. Errors name the
// setting at fault and never include a key.
func New(o Options) (*Signer, error) {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Signer{account: o.Settings.ServiceAccount, chain: o.Chain, log: o.Logger}
	var err error
	if s.chainID, err = hivetx.ParseChainID(o.Settings.ChainID); err != nil {
		return nil, fmt.Errorf("auth.chain_id: %w", err)
	}
	if s.key, err = loadServiceKey(o.Settings, o.LookupEnv); err != nil {
		return nil, err
	}
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

// Account is the service account users authorize.
func (s *Signer) Account() string { return s.account }

// PublicKey is the public half of the service account's posting key.
func (s *Signer) PublicKey() hivetx.PublicKey { return s.key.PublicKey() }

// Grant is what a broadcast acts within: the user, the app the user
// authorized (its client id, and its account on chain, which the user's
// posting authority lists: consent.go), and the scopes granted to it.
type Grant struct {
	User   string
	App    string
	Scopes []string
	// AppAccount is the app's account (auth.apps[].account). Empty or the
	// service account: direct consent, the user lists the service account.
	AppAccount string
}

// has reports whether the grant has scope.
func (g Grant) has(scope string) bool { return slices.Contains(g.Scopes, scope) }

// Error is a refusal: its HTTP status and OAuth 2 error code (as
// HiveSigner answers), its text for the client, and for typed clients its
// Connect code (0: the one its status implies).
type Error struct {
	Status      int
	Code        string
	Description string
	Connect     connect.Code
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }
