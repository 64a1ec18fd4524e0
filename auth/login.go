package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/signer"
)

// The login page's own API: POST /oauth2/challenge, /oauth2/login and
// /oauth2/grant. They take JSON from the page's own origin only: a
// cross-site form cannot send JSON, and a cross-site script's Origin is
// refused (the gateway's CORS does not make these readable either way).

// challengeRecord is a login challenge (kindChallenge, challenge_ttl).
type challengeRecord struct {
	Request string `json:"request"`
	User    string `json:"user"`
	Message string `json:"message"`
}

// sessionRecord is a verified login awaiting the user's decision
// (kindSession, session_ttl).
type sessionRecord struct {
	Request string `json:"request"`
	User    string `json:"user"`
}

// codeRecord is an authorization code (kindCode, code_ttl), kept under
// the code's sha256: the store never holds a usable code.
type codeRecord struct {
	ClientID      string   `json:"client_id"`
	User          string   `json:"user"`
	Scopes        []string `json:"scopes"`
	RedirectURI   string   `json:"redirect_uri"`
	RedirectGiven bool     `json:"redirect_given,omitempty"`
	CodeChallenge string   `json:"code_challenge,omitempty"`
	Grant         string   `json:"grant"`
}

// maxPageBody bounds a page API request.
const maxPageBody = 16 << 10

// pageAPI wraps one page endpoint: same origin, JSON, bounded body.
func (s *Service) pageAPI(h func(w http.ResponseWriter, r *http.Request, body map[string]any)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin == "" || !sameOrigin(origin, s.issuer(r)) {
			writeError(w, http.StatusForbidden, "access_denied", "this endpoint serves the login page of its own origin only")
			return
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, "invalid_request", "send application/json")
			return
		}
		var body map[string]any
		if err := json.NewDecoder(io.LimitReader(r.Body, maxPageBody)).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request", "the body is not a JSON object")
			return
		}
		h(w, r, body)
	}
}

// sameOrigin compares an Origin header with a base URL's scheme and host.
func sameOrigin(origin, base string) bool {
	o, err1 := url.Parse(origin)
	b, err2 := url.Parse(base)
	return err1 == nil && err2 == nil && o.Scheme == b.Scheme && strings.EqualFold(o.Host, b.Host)
}

func str(body map[string]any, k string) string {
	s, _ := body[k].(string)
	return s
}

// challenge is POST /oauth2/challenge {request_id, username}: a one-time
// message for the user to sign, naming the app, the account, the scope,
// this service and a random nonce.
func (s *Service) challenge(w http.ResponseWriter, r *http.Request, body map[string]any) {
	ctx := r.Context()
	reqID, req, user, app, ok := s.loginStart(w, r, body)
	if !ok {
		return
	}
	msg := s.challengeMessage(r, app, req, user)
	id := randomID(16)
	if err := s.putJSON(ctx, kindChallenge, id, challengeRecord{Request: reqID, User: user, Message: msg}, s.set.ChallengeTTL); err != nil {
		s.storeFailure(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"challenge_id": id, "message": msg, "username": user})
}

// challengeMessage is a login's one-time message to sign (Keychain's
// signBuffer, a typed key, or a HiveAuth wallet): the app, the account,
// the scope, this service, a random nonce and the challenge's expiry.
func (s *Service) challengeMessage(r *http.Request, app config.AuthApp, req authRequest, user string) string {
	expires := s.now().Add(s.set.ChallengeTTL).UTC()
	return strings.Join([]string{
		"Log in to " + app.Name + " (@" + app.ClientID + ") through " + hostOf(s.issuer(r)),
		"Account: @" + user,
		"Scope: " + strings.Join(req.Scopes, ", "),
		"Nonce: " + randomID(18),
		"Expires: " + expires.Format(time.RFC3339),
	}, "\n")
}

// maxLoginSignatures bounds the signatures of one login (a multisig
// authority's keys).
const maxLoginSignatures = 8

// login is POST /oauth2/login {challenge_id, signature | signatures,
// role}: the challenge is used up whatever the outcome (it cannot be
// replayed, nor a signature retried against it), and the keys the
// signatures recover must meet the weight threshold of the account's
// authority of the claimed role — "posting" (the default) or "active" —
// or of a higher one (active for posting, owner for both), as hived
// checks a transaction's signatures. One key of a multisig authority
// below its threshold gets no login. Only the account's own keys count:
// an account listed in its account_auths may broadcast for it, but does
// not log in as it. The account is read through the dispatcher, past the
// cache.
func (s *Service) login(w http.ResponseWriter, r *http.Request, body map[string]any) {
	if s.loginRate.limited(w, r) {
		return
	}
	ctx := r.Context()
	var ch challengeRecord
	if err := s.takeJSON(ctx, kindChallenge, str(body, "challenge_id"), &ch); err != nil {
		s.storeFailure(w, err, "the challenge has expired or was already used: log in again")
		return
	}
	role := str(body, "role")
	if role == "" {
		role = "posting"
	}
	if role != "posting" && role != "active" {
		writeError(w, http.StatusBadRequest, "invalid_request", "role must be posting or active")
		return
	}
	sigs, err := loginSignatures(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	digest := hivetx.MessageDigest(ch.Message)
	keys := make([]hivetx.PublicKey, 0, len(sigs))
	for _, sig := range sigs {
		key, err := sig.Recover(digest)
		if err != nil {
			writeError(w, http.StatusUnauthorized, "access_denied", "the signature does not verify")
			return
		}
		if slices.Contains(keys, key) {
			writeError(w, http.StatusBadRequest, "invalid_request", "the same key signed twice")
			return
		}
		keys = append(keys, key)
	}
	answer, e := s.verifyLogin(ctx, ch, role, keys)
	if e != nil {
		writeAPIError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

// verifyLogin finishes a login whose signatures recovered keys, by
// Keychain or a typed key (login) or by a HiveAuth wallet (hiveauth.go):
// the keys must be the account's own and meet the weight threshold of its
// authority of role (or of a higher one); then a session is opened for
// the user's decision. It answers the page's login answer, or the refusal.
func (s *Service) verifyLogin(ctx context.Context, ch challengeRecord, role string, keys []hivetx.PublicKey) (map[string]any, *apiError) {
	acct, _, err := signer.ReadAccount(ctx, s.chain(), true, ch.User)
	if err != nil {
		return nil, s.chainErr(err, ch.User)
	}
	for _, k := range keys {
		if !acct.HasKey(k) {
			s.log.Info("auth: login refused: signature by a key the account does not have", "user", ch.User)
			return nil, &apiError{status: http.StatusUnauthorized, code: "access_denied", desc: "the signature is not by a key of @" + ch.User}
		}
	}
	if !acct.Satisfies(role, keys) {
		s.log.Info("auth: login refused: the keys do not meet the authority's threshold", "user", ch.User, "role", role, "keys", len(keys))
		return nil, &apiError{status: http.StatusUnauthorized, code: "access_denied",
			desc: "the signing keys do not meet the weight threshold of @" + ch.User + "'s " + role + " authority (nor of a higher one): a multisig account signs with enough of its keys"}
	}
	var req authRequest
	if err := s.getJSON(ctx, kindRequest, ch.Request, &req); err != nil {
		return nil, s.storeErr(err, "the login request has expired: start again from the app")
	}
	id := randomID(16)
	if err := s.putJSON(ctx, kindSession, id, sessionRecord{Request: ch.Request, User: ch.User}, s.set.SessionTTL); err != nil {
		return nil, s.storeErr(err, "")
	}
	posting := slices.Contains(req.Scopes, config.ScopePosting)
	authorize := s.appAccount(req.ClientID) // the account the page asks Keychain to add (per-app consent)
	needs := posting && !acct.Authorizes(authorize)
	return map[string]any{
		"session_id": id, "username": ch.User, "service_account": s.set.ServiceAccount, "authorize_account": authorize,
		"needs_authority": needs,
		"demo_authority":  needs && s.demoAuth != nil, // hivegate demo only: demo.go
	}, nil
}

// loginSignatures reads a login's signature, or its list of signatures.
func loginSignatures(body map[string]any) ([]hivetx.Signature, error) {
	raw := []any{body["signature"]}
	if list, ok := body["signatures"].([]any); ok {
		raw = list
	}
	if len(raw) == 0 || len(raw) > maxLoginSignatures {
		return nil, errors.New("send one to " + strconv.Itoa(maxLoginSignatures) + " signatures")
	}
	out := make([]hivetx.Signature, 0, len(raw))
	for _, v := range raw {
		s, _ := v.(string)
		sig, err := hivetx.ParseSignature(s)
		if err != nil {
			return nil, errors.New("the signature is not 65 bytes of hex")
		}
		out = append(out, sig)
	}
	return out, nil
}

// grant is POST /oauth2/grant {session_id, approve}: the user's decision.
// It answers {"redirect": url}: the app's redirect URI with a code or a
// token (or error=access_denied), the username, expires_in and the state.
func (s *Service) grant(w http.ResponseWriter, r *http.Request, body map[string]any) {
	ctx := r.Context()
	var sess sessionRecord
	if err := s.takeJSON(ctx, kindSession, str(body, "session_id"), &sess); err != nil {
		s.storeFailure(w, err, "the login has expired: log in again")
		return
	}
	var req authRequest
	if err := s.takeJSON(ctx, kindRequest, sess.Request, &req); err != nil {
		s.storeFailure(w, err, "the login request has expired: start again from the app")
		return
	}
	p := url.Values{"state": {req.State}}
	if approve, _ := body["approve"].(bool); !approve {
		p.Set("error", "access_denied")
		p.Set("error_description", "the user denied the request")
		writeJSON(w, http.StatusOK, map[string]string{"redirect": redirectTo(req.RedirectURI, p)})
		return
	}
	app, ok := s.app(req.ClientID)
	if !ok { // the config changed since authorize
		writeError(w, http.StatusBadRequest, "invalid_request", "the app is no longer registered")
		return
	}
	if req.ResponseType == "token" && !implicitAllowed(app) {
		p.Set("error", "unauthorized_client")
		p.Set("error_description", app.Name+" may no longer use the implicit flow")
		writeJSON(w, http.StatusOK, map[string]string{"redirect": redirectTo(req.RedirectURI, p)})
		return
	}
	grant := randomID(12)
	p.Set("username", sess.User)
	switch req.ResponseType {
	case "code":
		code := randomID(32)
		rec := codeRecord{ClientID: req.ClientID, User: sess.User, Scopes: req.Scopes, RedirectURI: req.RedirectURI,
			RedirectGiven: req.RedirectGiven, CodeChallenge: req.CodeChallenge, Grant: grant}
		if err := s.putJSON(ctx, kindCode, codeHash(code), rec, s.set.CodeTTL); err != nil {
			s.storeFailure(w, err, "")
			return
		}
		p.Set("code", code)
		p.Set("expires_in", strconv.Itoa(int(s.set.CodeTTL/time.Second)))
	default: // token: the implicit flow, never with a refresh token
		ttl := s.accessTTL(req.ClientID)
		tok, err := s.tokens.issue(Token{User: sess.User, ClientID: req.ClientID, Scopes: withoutOffline(req.Scopes),
			Grant: grant, Use: useAccess, Expires: s.now().Add(ttl)})
		if err != nil {
			s.log.Error("auth: signing a token", "err", err)
			writeError(w, http.StatusInternalServerError, "server_error", "could not sign the token")
			return
		}
		p.Set("access_token", tok)
		p.Set("expires_in", strconv.Itoa(int(ttl/time.Second)))
	}
	s.log.Info("auth: user authorized app", "user", sess.User, "app", req.ClientID, "scope", strings.Join(req.Scopes, " "), "response_type", req.ResponseType)
	writeJSON(w, http.StatusOK, map[string]string{"redirect": redirectTo(req.RedirectURI, p)})
}

func withoutOffline(scopes []string) []string {
	return slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return s == config.ScopeOffline })
}

// codeHash is the key a code is stored under.
func codeHash(code string) string {
	h := sha256.Sum256([]byte(code))
	return hex.EncodeToString(h[:])
}

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// storeFailure answers a failed store read or write: a record that is
// gone (expired, used, never there, or not decodable) is the client's 400
// with gone's text; a store that failed is 503. A write passes gone "".
func (s *Service) storeFailure(w http.ResponseWriter, err error, gone string) {
	writeAPIError(w, s.storeErr(err, gone))
}

// storeErr is storeFailure's refusal.
func (s *Service) storeErr(err error, gone string) *apiError {
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	if gone != "" && (errors.Is(err, errNotFound) || errors.As(err, &se) || errors.As(err, &ue)) {
		return &apiError{status: http.StatusBadRequest, code: "invalid_request", desc: gone}
	}
	s.log.Error("auth: store", "err", err)
	return &apiError{status: http.StatusServiceUnavailable, code: "temporarily_unavailable", desc: "the service cannot keep login state right now; retry later"}
}

// chainFailure answers an account that could not be read.
func (s *Service) chainFailure(w http.ResponseWriter, err error, user string) {
	writeAPIError(w, s.chainErr(err, user))
}

// chainErr is chainFailure's refusal.
func (s *Service) chainErr(err error, user string) *apiError {
	if errors.Is(err, signer.ErrNoAccount) {
		return &apiError{status: http.StatusBadRequest, code: "invalid_request", desc: "there is no account @" + user}
	}
	s.log.Warn("auth: reading an account", "user", user, "err", err)
	return &apiError{status: http.StatusBadGateway, code: "server_error", desc: "could not read @" + user + " from the chain: " + err.Error()}
}

// validAccount is hived's account name rule.
func validAccount(s string) bool { return config.ValidAccountName(s) }

// loginStart is what both ways of logging in (a signed challenge and
// HiveAuth) begin with, for POST {request_id, username}: the login rate,
// the pending authorization request, the account name (read from the
// chain) and the app it is for. When ok is false the answer is written.
func (s *Service) loginStart(w http.ResponseWriter, r *http.Request, body map[string]any) (reqID string, req authRequest, user string, app config.AuthApp, ok bool) {
	if s.loginRate.limited(w, r) {
		return "", req, "", app, false
	}
	ctx := r.Context()
	reqID = str(body, "request_id")
	if err := s.getJSON(ctx, kindRequest, reqID, &req); err != nil {
		s.storeFailure(w, err, "the login request has expired: start again from the app")
		return "", req, "", app, false
	}
	user = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(str(body, "username"), "@")))
	if !validAccount(user) {
		writeError(w, http.StatusBadRequest, "invalid_request", "that is not a Hive account name")
		return "", req, "", app, false
	}
	if _, _, err := signer.ReadAccount(ctx, s.chain(), false, user); err != nil {
		s.chainFailure(w, err, user)
		return "", req, "", app, false
	}
	app, ok = s.app(req.ClientID)
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid_request", "the app is no longer registered")
		return "", req, "", app, false
	}
	return reqID, req, user, app, true
}
