package auth

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/signer"
)

// authRequest is a validated authorization request, kept while the user
// logs in (kindRequest, session_ttl): the later steps trust it instead of
// anything the page sends.
type authRequest struct {
	ClientID      string   `json:"client_id"`
	RedirectURI   string   `json:"redirect_uri"`
	RedirectGiven bool     `json:"redirect_given,omitempty"` // the request carried redirect_uri (RFC 6749 4.1.3)
	ResponseType  string   `json:"response_type"`
	Scopes        []string `json:"scopes"`
	State         string   `json:"state"`
	CodeChallenge string   `json:"code_challenge,omitempty"`
}

// scopeOrder is the order scopes are listed in.
var scopeOrder = []string{config.ScopeLogin, config.ScopePosting, config.ScopeOffline}

// parseScopes reads HiveSigner's comma-separated scope (spaces, as RFC
// 6749 writes it, work too); unknown ones are returned apart.
func parseScopes(raw string) (scopes, unknown []string) {
	for _, sc := range strings.FieldsFunc(raw, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch {
		case slices.Contains(scopeOrder, sc):
			if !slices.Contains(scopes, sc) {
				scopes = append(scopes, sc)
			}
		case !slices.Contains(unknown, sc):
			unknown = append(unknown, sc)
		}
	}
	slices.SortFunc(scopes, func(a, b string) int { return slices.Index(scopeOrder, a) - slices.Index(scopeOrder, b) })
	return scopes, unknown
}

// redirectMatches compares a redirect URI with a registered one: exactly,
// except that for http on a loopback IP address the port may differ (RFC
// 8252 7.3: a native app listens on whatever port it gets).
func redirectMatches(registered, given string) bool {
	if registered == given {
		return true
	}
	r, err1 := url.Parse(registered)
	g, err2 := url.Parse(given)
	if err1 != nil || err2 != nil || r.Scheme != "http" || g.Scheme != "http" {
		return false
	}
	ip := net.ParseIP(r.Hostname())
	return ip != nil && ip.IsLoopback() && r.Hostname() == g.Hostname() &&
		r.EscapedPath() == g.EscapedPath() && r.RawQuery == g.RawQuery && g.Fragment == "" && g.User == nil
}

// redirectTo appends params to a redirect URI's query, keeping its own.
func redirectTo(uri string, params url.Values) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// authorize is GET /oauth2/authorize: it validates the request and serves
// the login page. An unknown app or a redirect URI the app has not
// registered is shown on the page and never redirected to; any other
// error goes back to the app with OAuth 2's error codes and the state.
func (s *Service) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	app, ok := s.app(q.Get("client_id"))
	if !ok {
		s.errorPage(w, r, http.StatusBadRequest, "Unknown app", "The app "+quoteAccount(q.Get("client_id"))+" is not registered with this service.")
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(app.RedirectURIs) == 1 {
		redirect = app.RedirectURIs[0]
	}
	if !slices.ContainsFunc(app.RedirectURIs, func(reg string) bool { return redirectMatches(reg, redirect) }) {
		s.errorPage(w, r, http.StatusBadRequest, "Unknown redirect URI",
			"The redirect URI is not one "+app.Name+" registered; this service will not send you there.")
		return
	}
	state := q.Get("state")
	fail := func(code, desc string) {
		p := url.Values{"error": {code}, "error_description": {desc}}
		if state != "" {
			p.Set("state", state)
		}
		http.Redirect(w, r, redirectTo(redirect, p), http.StatusFound)
	}
	responseType := q.Get("response_type")
	if responseType == "" {
		responseType = "token" // HiveSigner's SDK leaves it out for the token flow
	}
	if responseType != "code" && responseType != "token" {
		fail("unsupported_response_type", "response_type must be code or token")
		return
	}
	if responseType == "token" && !implicitAllowed(app) {
		// RFC 6749 4.2.2.1; RFC 9700 2.1.2: the implicit flow hands the
		// token to whatever listens at the redirect URI.
		why := app.Name + " has a client secret: it must use response_type=code and exchange the code"
		if app.SecretSHA256 == "" {
			why = app.Name + " may not use the implicit flow (response_type=token): use response_type=code with PKCE"
		}
		fail("unauthorized_client", why)
		return
	}
	if state == "" {
		fail("invalid_request", "state is required")
		return
	}
	scopes, unknown := parseScopes(q.Get("scope"))
	if len(unknown) > 0 {
		fail("invalid_scope", "unknown scope: "+strings.Join(unknown, ", "))
		return
	}
	if len(scopes) == 0 { // HiveSigner: no scope asks for the posting operations
		scopes = []string{config.ScopeLogin}
		if slices.Contains(app.Scopes, config.ScopePosting) {
			scopes = append(scopes, config.ScopePosting)
		}
	}
	for _, sc := range scopes {
		if !slices.Contains(app.Scopes, sc) {
			fail("invalid_scope", app.Name+" may not ask for the "+sc+" scope")
			return
		}
	}
	challenge, method := q.Get("code_challenge"), q.Get("code_challenge_method")
	switch {
	case method != "" && method != "S256":
		fail("invalid_request", "code_challenge_method must be S256")
		return
	case challenge == "" && method != "":
		fail("invalid_request", "code_challenge_method without code_challenge")
		return
	case challenge != "" && !validVerifierChars(challenge, 43, 43):
		fail("invalid_request", "code_challenge must be the 43-character base64url S256 of the verifier")
		return
	case challenge != "" && method == "":
		fail("invalid_request", "code_challenge_method is required (S256)")
		return
	case app.SecretSHA256 == "" && responseType == "code" && challenge == "":
		fail("invalid_request", app.Name+" has no client secret: it must use PKCE (code_challenge with S256)")
		return
	}
	req := authRequest{ClientID: app.ClientID, RedirectURI: redirect, RedirectGiven: q.Get("redirect_uri") != "",
		ResponseType: responseType, Scopes: scopes, State: state, CodeChallenge: challenge}
	id := randomID(16)
	if err := s.putJSON(r.Context(), kindRequest, id, req, s.set.SessionTTL); err != nil {
		s.log.Error("auth: storing an authorization request", "err", err)
		s.errorPage(w, r, http.StatusServiceUnavailable, "Try again later", "The service cannot keep your login request right now.")
		return
	}
	host := redirect
	if u, err := url.Parse(redirect); err == nil {
		host = u.Host
	}
	s.page(w, http.StatusOK, pageData{
		RequestID: id, ClientID: app.ClientID, AppName: app.Name, Scopes: scopes, RedirectHost: host,
		ServiceAccount: s.set.ServiceAccount, AppAccount: s.appAccount(app.ClientID), Account: q.Get("account"), Operations: signer.OperationNames(scopes),
		Demo: s.demoAuth != nil, HiveAuth: s.set.HiveAuthRelay != "",
	})
}

// implicitAllowed reports whether an app may use the implicit flow: a
// public app whose config turns it on (auth.apps[].implicit).
func implicitAllowed(app config.AuthApp) bool { return app.Implicit && app.SecretSHA256 == "" }

// validVerifierChars reports whether s is lo..hi characters of PKCE's
// unreserved alphabet (RFC 7636 4.1).
func validVerifierChars(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

func quoteAccount(s string) string {
	if s == "" {
		return "(none)"
	}
	if len(s) > 32 {
		s = s[:32] + "…"
	}
	return "@" + s
}

func (s *Service) putJSON(ctx context.Context, kind, id string, v any, ttl time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.store.put(ctx, kind, id, b, ttl)
}

// takeJSON reads and deletes a record (a one-time record: a challenge, a
// session, a code).
func (s *Service) takeJSON(ctx context.Context, kind, id string, v any) error {
	if id == "" {
		return errNotFound
	}
	b, err := s.store.take(ctx, kind, id)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// getJSON reads a record.
func (s *Service) getJSON(ctx context.Context, kind, id string, v any) error {
	if id == "" {
		return errNotFound
	}
	b, err := s.store.get(ctx, kind, id)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
