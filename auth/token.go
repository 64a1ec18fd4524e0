package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/signer"
)

// maxTokenBody bounds a token or revoke request.
const maxTokenBody = 16 << 10

// secretParams are the token request parameters that are secrets or
// credentials: never read from the query string, which ends up in access
// logs, proxies' logs and browser history (RFC 6749 2.3.1, 3.2).
var secretParams = []string{"client_secret", "code", "refresh_token", "code_verifier"}

// errSecretInQuery is a token request with a secret in its URL.
var errSecretInQuery = errors.New("client_secret, code, refresh_token and code_verifier go in the POST body, never in the query string")

// params reads a token or revoke request's parameters as HiveSigner does:
// the query, a form body (RFC 6749) or a JSON body, in that order of
// precedence reversed (the body wins). With noSecrets (the token
// endpoint), a query carrying any of secretParams is refused.
func params(r *http.Request, noSecrets bool) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range r.URL.Query() {
		if noSecrets && slices.Contains(secretParams, k) {
			return nil, errSecretInQuery
		}
		out[k] = v[0]
	}
	if r.Body == nil {
		return out, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxTokenBody))
	if err != nil {
		return nil, err
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case len(body) == 0:
	case mt == "application/json":
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, errors.New("the body is not a JSON object")
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				out[k] = s
			}
		}
	default:
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, errors.New("the body is not a form")
		}
		for k, v := range form {
			out[k] = v[0]
		}
	}
	return out, nil
}

// clientSecret returns the client credentials of a request: client_id
// and client_secret parameters, or HTTP Basic authentication.
func clientSecret(r *http.Request, p map[string]string) (id, secret string) {
	if u, pw, ok := r.BasicAuth(); ok {
		return u, pw
	}
	return p["client_id"], p["client_secret"]
}

// secretMatches compares a secret's sha256 with the registered one in
// constant time.
func secretMatches(app config.AuthApp, secret string) bool {
	h := sha256.Sum256([]byte(secret))
	got := hex.EncodeToString(h[:])
	return app.SecretSHA256 != "" && subtle.ConstantTimeCompare([]byte(got), []byte(app.SecretSHA256)) == 1
}

// pkceMatches checks a code_verifier against the S256 challenge (RFC 7636).
func pkceMatches(verifier, challenge string) bool {
	if !validVerifierChars(verifier, 43, 128) {
		return false
	}
	h := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(h[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

// tokenResponse is the token endpoint's answer: RFC 6749's fields and
// HiveSigner's username.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Username     string `json:"username"`
	Scope        string `json:"scope"`
	RefreshToken string `json:"refresh_token,omitempty"`
}

// token is POST /api/oauth2/token: a code (with the client secret, or the
// PKCE verifier, or both) or a refresh token for an access token, and a
// refresh token when the scope has offline. Codes are used once; a code
// presented again revokes what it was exchanged for (RFC 6749 4.1.2).
// Refresh tokens are used once too: a refresh answers a new one, and a
// used one presented again revokes its whole grant (RFC 9700 4.14.2).
// Only POST (RFC 6749 3.2), and no secret in the query string.
func (s *Service) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "the token endpoint takes POST only")
		return
	}
	if s.tokenRate.limited(w, r) {
		return
	}
	p, err := params(r, true)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	grantType := p["grant_type"]
	if grantType == "" { // HiveSigner tells them apart by the parameter given
		grantType = "authorization_code"
		if p["code"] == "" && p["refresh_token"] != "" {
			grantType = "refresh_token"
		}
	}
	switch grantType {
	case "authorization_code":
		s.exchangeCode(w, r, p)
	case "refresh_token":
		s.refresh(w, r, p)
	default:
		writeError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
}

func (s *Service) exchangeCode(w http.ResponseWriter, r *http.Request, p map[string]string) {
	ctx := r.Context()
	code := p["code"]
	if code == "" {
		writeError(w, http.StatusBadRequest, "invalid_request", "code is required")
		return
	}
	hash := codeHash(code)
	var rec codeRecord
	if err := s.takeJSON(ctx, kindCode, hash, &rec); err != nil {
		if !errors.Is(err, errNotFound) {
			s.storeFailure(w, err, "")
			return
		}
		if grant, err := s.store.get(ctx, kindUsedCode, hash); err == nil {
			s.log.Warn("auth: a used code was presented again: revoking what it gave", "grant", string(grant))
			if err := s.revokeGrant(ctx, string(grant)); err != nil {
				s.log.Error("auth: revoking", "err", err)
			}
		}
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code is invalid, expired or already used")
		return
	}
	app, registered := s.app(rec.ClientID)
	id, secret := clientSecret(r, p)
	switch {
	case !registered:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the app is no longer registered")
		return
	case id != "" && id != rec.ClientID:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another app")
		return
	case app.SecretSHA256 != "" && !secretMatches(app, secret):
		writeError(w, http.StatusUnauthorized, "invalid_client", "the client secret is missing or wrong")
		return
	case rec.CodeChallenge != "" && !pkceMatches(p["code_verifier"], rec.CodeChallenge):
		writeError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
		return
	case rec.RedirectGiven && p["redirect_uri"] == "":
		// RFC 6749 4.1.3: required when the authorization request had it.
		writeError(w, http.StatusBadRequest, "invalid_request", "redirect_uri is required: the authorization request carried one")
		return
	case p["redirect_uri"] != "" && p["redirect_uri"] != rec.RedirectURI:
		writeError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri is not the one of the authorization request")
		return
	}
	if err := s.store.put(ctx, kindUsedCode, hash, []byte(rec.Grant), max(s.set.CodeTTL, 10*time.Minute)); err != nil {
		s.log.Warn("auth: remembering a used code", "err", err)
	}
	s.issueTokens(w, rec.ClientID, rec.User, rec.Scopes, rec.Grant, s.now().Add(s.set.RefreshTokenTTL))
}

func (s *Service) refresh(w http.ResponseWriter, r *http.Request, p map[string]string) {
	t, err := s.tokens.parse(p["refresh_token"], useRefresh)
	if err == nil {
		err = s.checkRevoked(r.Context(), t.Grant)
	}
	if err != nil {
		if errors.Is(err, ErrStoreDown) {
			writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", err.Error())
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_grant", "refresh_token: "+err.Error())
		return
	}
	app, ok := s.app(t.ClientID)
	id, secret := clientSecret(r, p)
	switch {
	case !ok:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the app is no longer registered")
		return
	case id != "" && id != t.ClientID:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another app")
		return
	case app.SecretSHA256 != "" && !secretMatches(app, secret):
		writeError(w, http.StatusUnauthorized, "invalid_client", "the client secret is missing or wrong")
		return
	}
	// The token is used up now, once: of two requests racing with it, one
	// gets new tokens and the other is a reuse. A reuse means two parties
	// hold the token (one of them stole it): every token of the grant dies.
	ctx := r.Context()
	fresh, err := s.store.add(ctx, kindUsedRT, t.ID, []byte(t.Grant), max(time.Second, t.Expires.Sub(s.now())))
	if err != nil {
		s.log.Error("auth: recording a used refresh token", "err", err)
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", ErrStoreDown.Error())
		return
	}
	if !fresh {
		s.log.Warn("auth: a used refresh token was presented again: revoking its grant", "user", t.User, "app", t.ClientID, "grant", t.Grant)
		if err := s.revokeGrant(ctx, t.Grant); err != nil {
			s.log.Error("auth: revoking", "err", err)
		}
		writeError(w, http.StatusBadRequest, "invalid_grant", "refresh_token: the token was already used; every token of this grant is revoked")
		return
	}
	// The grant keeps the expiry it got at the code exchange: refreshing
	// never makes it live longer.
	s.issueTokens(w, t.ClientID, t.User, t.Scopes, t.Grant, t.Expires)
}

// issueTokens answers an access token and, with the offline scope, a
// refresh token, both of one grant, which ends at grantEnd: the refresh
// token expires then, and no access token outlives it.
func (s *Service) issueTokens(w http.ResponseWriter, clientID, user string, scopes []string, grant string, grantEnd time.Time) {
	now := s.now()
	ttl := s.accessTTL(clientID)
	offline := slices.Contains(scopes, config.ScopeOffline)
	if offline && now.Add(ttl).After(grantEnd) {
		ttl = grantEnd.Sub(now).Truncate(time.Second)
	}
	access, err := s.tokens.issue(Token{User: user, ClientID: clientID, Scopes: withoutOffline(scopes), Grant: grant, Use: useAccess, Expires: now.Add(ttl)})
	if err != nil {
		s.log.Error("auth: signing a token", "err", err)
		writeError(w, http.StatusInternalServerError, "server_error", "could not sign the token")
		return
	}
	resp := tokenResponse{AccessToken: access, TokenType: "bearer", ExpiresIn: int(ttl / time.Second), Username: user,
		Scope: strings.Join(scopes, " ")}
	if offline {
		if resp.RefreshToken, err = s.tokens.issue(Token{User: user, ClientID: clientID, Scopes: scopes, Grant: grant,
			Use: useRefresh, Expires: grantEnd}); err != nil {
			writeError(w, http.StatusInternalServerError, "server_error", "could not sign the token")
			return
		}
	}
	s.log.Info("auth: tokens issued", "user", user, "app", clientID, "scope", resp.Scope, "refresh", resp.RefreshToken != "")
	writeJSON(w, http.StatusOK, resp)
}

// revoke is POST /api/oauth2/token/revoke: the token in the body's
// "token" (RFC 7009, and HiveSigner's SDK) or in Authorization is revoked
// with every token of its grant, on every replica when the store is
// Redis. An unknown or invalid token is answered like a revoked one (RFC
// 7009 2.2).
func (s *Service) revoke(w http.ResponseWriter, r *http.Request) {
	if s.tokenRate.limited(w, r) {
		return
	}
	p, err := params(r, false)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	raw := p["token"]
	if raw == "" {
		raw = Bearer(r)
	}
	if raw == "" {
		writeError(w, http.StatusBadRequest, "invalid_request", "token is required")
		return
	}
	t, err := s.tokens.parse(raw, useAccess)
	if errors.Is(err, errTokenUse) {
		t, err = s.tokens.parse(raw, useRefresh)
	}
	if err == nil {
		if err := s.revokeGrant(r.Context(), t.Grant); err != nil {
			s.log.Error("auth: revoking", "err", err)
			writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "could not record the revocation; retry")
			return
		}
		s.log.Info("auth: tokens revoked", "user", t.User, "app", t.ClientID)
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// me is /api/me (any method, as HiveSigner's): the token's user, the
// account as condenser_api.get_accounts returns it, the scope and the
// profile metadata.
func (s *Service) me(w http.ResponseWriter, r *http.Request) {
	t, err := s.Verify(r.Context(), Bearer(r))
	if err != nil {
		writeAPIError(w, tokenError(err))
		return
	}
	_, raw, err := signer.ReadAccount(r.Context(), s.chain(), false, t.User)
	if err != nil {
		s.chainFailure(w, err, t.User)
		return
	}
	var meta struct {
		JSON        string `json:"json_metadata"`
		PostingJSON string `json:"posting_json_metadata"`
	}
	_ = json.Unmarshal(raw, &meta)
	// HiveSigner lists the operations a posting token allows as its scope.
	scope := signer.OperationNames(t.Scopes)
	if len(scope) == 0 {
		scope = []string{config.ScopeLogin}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"user": t.User, "_id": t.User, "name": t.User, "account": raw,
		"scope": scope, "scopes": t.Scopes, "app": t.ClientID,
		"expires_at":    t.Expires.UTC().Format(time.RFC3339),
		"user_metadata": userMetadata(meta.PostingJSON, meta.JSON),
	})
}

// userMetadata is HiveSigner's profile: posting_json_metadata when it has
// a versioned profile, else json_metadata, else {}.
func userMetadata(posting, legacy string) json.RawMessage {
	var p struct {
		Profile map[string]any `json:"profile"`
	}
	if json.Unmarshal([]byte(posting), &p) == nil && p.Profile != nil && p.Profile["version"] != nil {
		return json.RawMessage(posting)
	}
	var any map[string]any
	if json.Unmarshal([]byte(legacy), &any) == nil {
		return json.RawMessage(legacy)
	}
	return json.RawMessage(`{}`)
}

// metadata is GET /.well-known/oauth-authorization-server (RFC 8414).
func (s *Service) metadata(w http.ResponseWriter, r *http.Request) {
	base := s.issuer(r)
	responseTypes, grantTypes := []string{"code"}, []string{"authorization_code", "refresh_token"}
	if s.anyApp(implicitAllowed) {
		responseTypes, grantTypes = append(responseTypes, "token"), append(grantTypes, "implicit")
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                     base,
		"authorization_endpoint":                     base + "/oauth2/authorize",
		"token_endpoint":                             base + "/api/oauth2/token",
		"revocation_endpoint":                        base + "/api/oauth2/token/revoke",
		"userinfo_endpoint":                          base + "/api/me",
		"response_types_supported":                   responseTypes,
		"response_modes_supported":                   []string{"query"},
		"grant_types_supported":                      grantTypes,
		"scopes_supported":                           scopeOrder,
		"code_challenge_methods_supported":           []string{"S256"},
		"token_endpoint_auth_methods_supported":      []string{"client_secret_post", "client_secret_basic", "none"},
		"revocation_endpoint_auth_methods_supported": []string{"none"},
		"service_account":                            s.set.ServiceAccount,
	})
}
