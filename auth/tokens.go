package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/hivegate/hivegate/config"
)

// The uses of a token: an access token calls the API, a refresh token
// gets new access tokens.
const (
	useAccess  = "access"
	useRefresh = "refresh"
)

// Token is what a verified token says.
type Token struct {
	// User is the Hive account the token acts for.
	User string
	// ClientID is the app the token was issued to.
	ClientID string
	// Scopes are the granted scopes (login, posting, offline).
	Scopes []string
	// Grant identifies the authorization the token came from: the access
	// and refresh tokens of one authorization share it, and revoking it
	// revokes them all.
	Grant string
	// Use is "access" or "refresh".
	Use     string
	Expires time.Time
	// ID is the token's own id (jti): a refresh token is used once.
	ID string
}

// Has reports whether the token grants scope; posting includes login.
func (t Token) Has(scope string) bool {
	return slices.Contains(t.Scopes, scope) || scope == config.ScopeLogin && slices.Contains(t.Scopes, config.ScopePosting)
}

// claims is the JWT payload: iss, sub (user), aud (client id), exp, iat,
// jti, and hivegate's scope (space-separated, RFC 8693 style), use and
// grant id.
type claims struct {
	jwt.RegisteredClaims
	Scope string `json:"scope"`
	Use   string `json:"use"`
	Grant string `json:"gid"`
}

// tokenSigner issues and verifies the service's JWTs with one key:
// Ed25519 (EdDSA) or P-256 (ES256).
type tokenSigner struct {
	method jwt.SigningMethod
	key    crypto.Signer
	issuer string
	now    func() time.Time
}

// errTokenKey is the error of a token signing key that cannot be used; it
// never includes the key.
var errTokenKey = errors.New("auth: token signing key")

// loadTokenSigner reads the PEM (PKCS #8) key of auth.token_key_file or
// auth.token_key_env, or makes an Ed25519 key when neither is given
// (generated reports that).
func loadTokenSigner(s config.AuthSettings, env func(string) (string, bool), issuer string, now func() time.Time) (ts *tokenSigner, generated bool, err error) {
	var pemBytes []byte
	switch {
	case s.TokenKeyFile != "":
		if pemBytes, err = os.ReadFile(s.TokenKeyFile); err != nil {
			return nil, false, fmt.Errorf("%w: reading auth.token_key_file: %v", errTokenKey, err)
		}
	case s.TokenKeyEnv != "":
		v, ok := env(s.TokenKeyEnv)
		if !ok || v == "" {
			return nil, false, fmt.Errorf("%w: environment variable %s (auth.token_key_env) is not set", errTokenKey, s.TokenKeyEnv)
		}
		pemBytes = []byte(v)
	default:
		_, key, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, false, err
		}
		return &tokenSigner{method: jwt.SigningMethodEdDSA, key: key, issuer: issuer, now: now}, true, nil
	}
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, false, fmt.Errorf("%w: not PEM", errTokenKey)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, false, fmt.Errorf("%w: not a PKCS #8 private key", errTokenKey)
	}
	switch k := parsed.(type) {
	case ed25519.PrivateKey:
		return &tokenSigner{method: jwt.SigningMethodEdDSA, key: k, issuer: issuer, now: now}, false, nil
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, false, fmt.Errorf("%w: an ECDSA key must be P-256 (ES256)", errTokenKey)
		}
		return &tokenSigner{method: jwt.SigningMethodES256, key: k, issuer: issuer, now: now}, false, nil
	}
	return nil, false, fmt.Errorf("%w: want Ed25519 or P-256, got %T", errTokenKey, parsed)
}

// issue signs a token.
func (ts *tokenSigner) issue(t Token) (string, error) {
	now := ts.now()
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    ts.issuer,
			Subject:   t.User,
			Audience:  jwt.ClaimStrings{t.ClientID},
			ExpiresAt: jwt.NewNumericDate(t.Expires),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        randomID(12),
		},
		Scope: strings.Join(t.Scopes, " "),
		Use:   t.Use,
		Grant: t.Grant,
	}
	return jwt.NewWithClaims(ts.method, c).SignedString(ts.key)
}

// ErrTokenMissing is a request that sent no token; the other reasons a
// token is refused are unexported. Their text is the error_description
// clients see.
var ErrTokenMissing = errors.New("no token: send it in the Authorization header")

var (
	errTokenInvalid = errors.New("the token is malformed or not signed by this service")
	errTokenExpired = errors.New("the token has expired")
	errTokenRevoked = errors.New("the token has been revoked")
	errTokenUse     = errors.New("this token cannot be used here")
)

// parse verifies a token's signature, algorithm, issuer, expiry and use.
func (ts *tokenSigner) parse(raw, use string) (Token, error) {
	var c claims
	_, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return ts.key.Public(), nil },
		jwt.WithValidMethods([]string{ts.method.Alg()}),
		jwt.WithIssuer(ts.issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(ts.now),
	)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return Token{}, errTokenExpired
	case err != nil:
		return Token{}, errTokenInvalid
	case c.Use != use:
		return Token{}, errTokenUse
	case c.Subject == "" || len(c.Audience) != 1 || c.Grant == "" || c.ID == "":
		return Token{}, errTokenInvalid
	}
	return Token{
		User: c.Subject, ClientID: c.Audience[0], Scopes: strings.Fields(c.Scope),
		Grant: c.Grant, Use: c.Use, Expires: c.ExpiresAt.Time, ID: c.ID,
	}, nil
}

// randomID returns n random bytes, base64url without padding.
func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}
