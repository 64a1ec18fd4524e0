package auth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

var digestOf = hivetx.MessageDigest

// TestAuthorizeRefusals: an unknown app or redirect URI is shown on the
// page and never redirected to; every other error goes back to the app's
// redirect URI with OAuth 2's error code and the state.
func TestAuthorizeRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	page := func(name string, q url.Values, want string) {
		t.Helper()
		r, data := e.authorize(q)
		if r.status != http.StatusBadRequest || r.header.Get("Location") != "" || data == nil || !strings.Contains(data["error"].(string), want) {
			t.Errorf("%s: HTTP %d Location %q page %v, want a 400 page saying %q", name, r.status, r.header.Get("Location"), data, want)
		}
	}
	page("unknown app", url.Values{"client_id": {"nobody.app"}, "redirect_uri": {appRedirect}, "state": {"s"}}, "Unknown app")
	page("unregistered redirect", url.Values{"client_id": {"demo.app"}, "redirect_uri": {"https://evil.example/callback"}, "state": {"s"}}, "Unknown redirect URI")
	page("redirect with another path", url.Values{"client_id": {"demo.app"}, "redirect_uri": {appRedirect + "/x"}, "state": {"s"}}, "Unknown redirect URI")
	page("redirect with a query", url.Values{"client_id": {"demo.app"}, "redirect_uri": {appRedirect + "?next=x"}, "state": {"s"}}, "Unknown redirect URI")
	page("https where http loopback is registered", url.Values{"client_id": {"spa.app"}, "redirect_uri": {"https://127.0.0.1/callback"}, "state": {"s"}}, "Unknown redirect URI")
	page("another loopback host", url.Values{"client_id": {"spa.app"}, "redirect_uri": {"http://127.0.0.2/callback"}, "state": {"s"}}, "Unknown redirect URI")

	back := func(name string, q url.Values, code, desc string) {
		t.Helper()
		r, _ := e.authorize(q)
		loc, err := url.Parse(r.header.Get("Location"))
		if r.status != http.StatusFound || err != nil {
			t.Errorf("%s: HTTP %d %s, want a redirect", name, r.status, r.body)
			return
		}
		lq := loc.Query()
		if !strings.HasPrefix(loc.String(), appRedirect) || lq.Get("error") != code || !strings.Contains(lq.Get("error_description"), desc) || lq.Get("state") != q.Get("state") {
			t.Errorf("%s: redirect %s, want error=%s (%q) and the state", name, loc, code, desc)
		}
	}
	base := func(k, v string) url.Values {
		q := codeQuery("login", "st")
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		return q
	}
	back("missing state", base("state", ""), "invalid_request", "state is required")
	back("unknown response_type", base("response_type", "id_token"), "unsupported_response_type", "code or token")
	back("unknown scope", base("scope", "login,active"), "invalid_scope", "active")
	back("plain PKCE", func() url.Values {
		q := base("code_challenge", strings.Repeat("a", 43))
		q.Set("code_challenge_method", "plain")
		return q
	}(),
		"invalid_request", "S256")
	back("short challenge", func() url.Values {
		q := base("code_challenge", "abc")
		q.Set("code_challenge_method", "S256")
		return q
	}(),
		"invalid_request", "43-character")

	spa := func(k, v string) url.Values {
		q := url.Values{"client_id": {"spa.app"}, "redirect_uri": {spaRedirect}, "response_type": {"code"}, "scope": {"login"}, "state": {"st"}}
		q.Set(k, v)
		return q
	}
	r, _ := e.authorize(spa("scope", "offline"))
	if loc := r.header.Get("Location"); !strings.Contains(loc, "error=invalid_scope") {
		t.Errorf("a scope the app may not ask for: %s", loc)
	}
	r, _ = e.authorize(spa("state", "st"))
	if loc := r.header.Get("Location"); !strings.Contains(loc, "error=invalid_request") || !strings.Contains(loc, "PKCE") {
		t.Errorf("a public app without PKCE: %s", loc)
	}
}

// TestLoginRefusals: the page API's own-origin rule, replayed challenges,
// signatures by a key the account does not have, unknown accounts,
// denial.
func TestLoginRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	_, data := e.authorize(codeQuery("login", "st"))
	reqID := data["request_id"].(string)

	// Only the page's own origin, only JSON.
	b := []byte(`{"request_id":"` + reqID + `","username":"alice"}`)
	for name, h := range map[string]map[string]string{
		"no Origin":        {"Content-Type": "application/json"},
		"another Origin":   {"Content-Type": "application/json", "Origin": "https://evil.example"},
		"a form, not JSON": {"Content-Type": "application/x-www-form-urlencoded", "Origin": e.url},
	} {
		r := e.do("POST", "/oauth2/challenge", h, b)
		if r.status != http.StatusForbidden && r.status != http.StatusUnsupportedMediaType {
			t.Errorf("%s: HTTP %d %s", name, r.status, r.body)
		}
	}

	e.page("/oauth2/challenge", map[string]any{"request_id": reqID, "username": "no-such-user"}).
		oauthErr(t, http.StatusBadRequest, "invalid_request", "no account @no-such-user")
	e.page("/oauth2/challenge", map[string]any{"request_id": "forged", "username": "alice"}).
		oauthErr(t, http.StatusBadRequest, "invalid_request", "expired")

	// bob's key does not sign for alice.
	e.signIn(reqID, "alice", hivesim.DemoKey("bob", "posting")).oauthErr(t, http.StatusUnauthorized, "access_denied", "not by a key of @alice")
	// alice's active and owner keys do (HiveSigner accepts any of her keys).
	if r := e.signIn(reqID, "alice", hivesim.DemoKey("alice", "active")); r.status != http.StatusOK {
		t.Errorf("active key: HTTP %d %s", r.status, r.body)
	}

	// A challenge is good for one login attempt, successful or not.
	ch := e.page("/oauth2/challenge", map[string]any{"request_id": reqID, "username": "alice"}).json(t)
	sig := hivesim.DemoKey("alice", "posting").SignDigest(digestOf(ch["message"].(string))).String()
	if r := e.page("/oauth2/login", map[string]any{"challenge_id": ch["challenge_id"], "signature": sig}); r.status != http.StatusOK {
		t.Fatalf("login: %s", r.body)
	}
	e.page("/oauth2/login", map[string]any{"challenge_id": ch["challenge_id"], "signature": sig}).
		oauthErr(t, http.StatusBadRequest, "invalid_request", "already used")
	if !strings.Contains(ch["message"].(string), "Nonce: ") || !strings.Contains(ch["message"].(string), "Demo App (@demo.app)") {
		t.Errorf("challenge message %q", ch["message"])
	}

	// Deny goes back to the app with access_denied; the session is used up.
	login := e.signIn(reqID, "alice", hivesim.DemoKey("alice", "posting")).json(t)
	deny := e.page("/oauth2/grant", map[string]any{"session_id": login["session_id"], "approve": false}).json(t)
	if loc := deny["redirect"].(string); !strings.Contains(loc, "error=access_denied") || !strings.Contains(loc, "state=st") {
		t.Errorf("deny: %s", loc)
	}
	e.page("/oauth2/grant", map[string]any{"session_id": login["session_id"], "approve": true}).
		oauthErr(t, http.StatusBadRequest, "invalid_request", "expired")
}

// TestTokenEndpointRefusals: a wrong secret, a bad PKCE verifier, another
// app's code, another redirect URI.
func TestTokenEndpointRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	code := func() string { return e.flow(codeQuery("login", "s"), "alice").Get("code") }
	e.form("/api/oauth2/token", url.Values{"code": {code()}, "client_secret": {"wrong"}}, nil).
		oauthErr(t, http.StatusUnauthorized, "invalid_client", "secret")
	e.form("/api/oauth2/token", url.Values{"code": {code()}}, nil).
		oauthErr(t, http.StatusUnauthorized, "invalid_client", "secret")
	e.form("/api/oauth2/token", url.Values{"code": {code()}, "client_id": {"spa.app"}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "another app")
	e.form("/api/oauth2/token", url.Values{"code": {code()}, "client_secret": {appSecret}, "redirect_uri": {"https://app.example/other"}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "redirect_uri")
	e.form("/api/oauth2/token", url.Values{"code": {"made-up"}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "invalid")
	// HTTP Basic client authentication.
	if r := e.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {code()}}, map[string]string{"Authorization": basic("demo.app", appSecret)}); r.status != http.StatusOK {
		t.Errorf("Basic auth: HTTP %d %s", r.status, r.body)
	}

	verifier, challenge := pkce("xyz_")
	q := url.Values{"client_id": {"spa.app"}, "redirect_uri": {spaRedirect}, "response_type": {"code"}, "scope": {"login"}, "state": {"s"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	e.form("/api/oauth2/token", url.Values{"code": {e.flow(q, "bob").Get("code")}, "code_verifier": {verifier[:50] + "zzzzzzzzzzzzzz"}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "code_verifier")
	e.form("/api/oauth2/token", url.Values{"code": {e.flow(q, "bob").Get("code")}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "code_verifier")
	e.form("/api/oauth2/token", url.Values{"grant_type": {"password"}}, nil).
		oauthErr(t, http.StatusBadRequest, "unsupported_grant_type", "")
}

func basic(user, pw string) string {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth(user, pw)
	return r.Header.Get("Authorization")
}

// TestExpiry: codes, challenges and access tokens expire (auth.code_ttl,
// auth.challenge_ttl, auth.access_token_ttl, an app's token_ttl).
func TestExpiry(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, "  code_ttl: 30\n  challenge_ttl: 20\n  access_token_ttl: 120\n")
	q := e.flow(codeQuery("login", "s"), "alice")
	clk.Advance(31 * time.Second)
	e.form("/api/oauth2/token", url.Values{"code": {q.Get("code")}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "expired")

	code := e.flow(codeQuery("login", "s"), "alice").Get("code")
	if got := e.flow(codeQuery("login", "s"), "alice").Get("expires_in"); got != "30" {
		t.Errorf("code expires_in %s, want auth.code_ttl", got)
	}
	tr := e.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {code}, "client_secret": {appSecret}}, nil).json(t)
	if tr["expires_in"] != float64(120) {
		t.Errorf("expires_in %v, want auth.access_token_ttl", tr["expires_in"])
	}
	access := tr["access_token"].(string)
	if r := e.do("GET", "/api/me", map[string]string{"Authorization": access}, nil); r.status != http.StatusOK {
		t.Fatalf("me: %s", r.body)
	}
	clk.Advance(121 * time.Second)
	e.do("GET", "/api/me", map[string]string{"Authorization": access}, nil).oauthErr(t, http.StatusUnauthorized, "invalid_token", "expired")

	_, data := e.authorize(codeQuery("login", "s"))
	ch := e.page("/oauth2/challenge", map[string]any{"request_id": data["request_id"], "username": "alice"}).json(t)
	clk.Advance(21 * time.Second)
	sig := hivesim.DemoKey("alice", "posting").SignDigest(digestOf(ch["message"].(string))).String()
	e.page("/oauth2/login", map[string]any{"challenge_id": ch["challenge_id"], "signature": sig}).
		oauthErr(t, http.StatusBadRequest, "invalid_request", "expired")
}

// TestAppTokenTTL: an app's token_ttl overrides access_token_ttl.
func TestAppTokenTTL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	e2 := newEnvWithAuth(t, strings.Replace(authSection(t, ""), "      name: Demo App\n", "      name: Demo App\n      token_ttl: 300\n", 1))
	if got := e2.tokens("alice", "login")["expires_in"]; got != float64(300) {
		t.Errorf("expires_in %v, want the app's token_ttl", got)
	}
	if got := e.tokens("alice", "login")["expires_in"]; got != float64(7*24*3600) {
		t.Errorf("default expires_in %v", got)
	}
}

// TestRateLimits: challenges and logins, and token requests, are limited
// per client address (auth.login_rate_per_minute, token_rate_per_minute).
func TestRateLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "  login_rate_per_minute: 2\n  token_rate_per_minute: 3\n", "")
	_, data := e.authorize(codeQuery("login", "s"))
	var last reply
	for i := 0; i < 3; i++ {
		last = e.page("/oauth2/challenge", map[string]any{"request_id": data["request_id"], "username": "alice"})
	}
	last.oauthErr(t, http.StatusTooManyRequests, "slow_down", "too many")
	if last.header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	for i := 0; i < 4; i++ {
		last = e.form("/api/oauth2/token", url.Values{"code": {"x"}}, nil)
	}
	last.oauthErr(t, http.StatusTooManyRequests, "slow_down", "too many")
}
