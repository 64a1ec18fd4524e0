package auth_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/auth"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// implicitSPA turns the implicit flow on for spa.app in an auth section.
func implicitSPA(section string) string {
	return strings.Replace(section, "    - client_id: spa.app\n", "    - client_id: spa.app\n      implicit: true\n", 1)
}

// refreshWith posts a refresh of demo.app.
func (e *env) refreshWith(token string) reply {
	e.t.Helper()
	return e.form("/api/oauth2/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_secret": {appSecret}}, nil)
}

// me calls /api/me with a token.
func (e *env) me(token string) reply {
	e.t.Helper()
	return e.do("GET", "/api/me", map[string]string{"Authorization": token}, nil)
}

// TestImplicitFlowPolicy (issue 29 item 2): response_type=token is refused
// with unauthorized_client, sent back to the app's redirect URI with the
// state, for an app with a secret and for a public app whose config does
// not turn it on (auth.apps[].implicit); a public app with implicit: true
// gets its token. The metadata lists the token response type only then.
func TestImplicitFlowPolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	refused := func(name string, q url.Values, redirect string) {
		t.Helper()
		r, _ := e.authorize(q)
		loc, err := url.Parse(r.header.Get("Location"))
		if r.status != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), redirect+"?") {
			t.Fatalf("%s: HTTP %d Location %q, want a redirect to %s", name, r.status, r.header.Get("Location"), redirect)
		}
		if lq := loc.Query(); lq.Get("error") != "unauthorized_client" || lq.Get("state") != "st" || lq.Get("access_token") != "" {
			t.Errorf("%s: redirect %s, want error=unauthorized_client with the state and no token", name, loc)
		}
	}
	// HiveSigner's SDK leaves response_type out for the token flow.
	refused("confidential app, no response_type", url.Values{"client_id": {"demo.app"}, "redirect_uri": {appRedirect}, "scope": {"login"}, "state": {"st"}}, appRedirect)
	refused("confidential app, response_type=token", url.Values{"client_id": {"demo.app"}, "redirect_uri": {appRedirect}, "response_type": {"token"}, "scope": {"login,posting"}, "state": {"st"}}, appRedirect)
	spa := url.Values{"client_id": {"spa.app"}, "redirect_uri": {spaRedirect}, "response_type": {"token"}, "scope": {"login"}, "state": {"st"}}
	refused("public app without implicit", spa, spaRedirect)
	if rt := e.do("GET", "/.well-known/oauth-authorization-server", nil, nil).json(t)["response_types_supported"].([]any); slices.Contains(rt, any("token")) {
		t.Errorf("response_types_supported %v lists token though no app may use it", rt)
	}

	on := newEnvWithAuth(t, implicitSPA(authSection(t, "")))
	q := on.flow(spa, "carol")
	if q.Get("access_token") == "" || q.Get("state") != "st" {
		t.Fatalf("implicit: true: redirect %v, want a token", q)
	}
	if r := on.me(q.Get("access_token")); r.status != http.StatusOK {
		t.Errorf("the implicit token: HTTP %d %s", r.status, r.body)
	}
	if rt := on.do("GET", "/.well-known/oauth-authorization-server", nil, nil).json(t)["response_types_supported"].([]any); !slices.Contains(rt, any("token")) {
		t.Errorf("response_types_supported %v lacks token", rt)
	}
}

// TestRefreshRotation (issue 29 item 3): a refresh answers a new refresh
// token and kills the one used; the used one presented again revokes the
// whole grant, every access and refresh token of it (RFC 9700 4.14.2).
func TestRefreshRotation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	tr := e.tokens("alice", "login,offline")
	r0, a0 := tr["refresh_token"].(string), tr["access_token"].(string)
	first := e.refreshWith(r0)
	if first.status != http.StatusOK {
		t.Fatalf("refresh: HTTP %d %s", first.status, first.body)
	}
	r1, _ := first.json(t)["refresh_token"].(string)
	if r1 == "" || r1 == r0 {
		t.Fatalf("a refresh answered refresh_token %q: want a new one", r1)
	}
	second := e.refreshWith(r1)
	if second.status != http.StatusOK {
		t.Fatalf("refresh with the new token: HTTP %d %s", second.status, second.body)
	}
	a2, r2 := second.json(t)["access_token"].(string), second.json(t)["refresh_token"].(string)
	if r := e.me(a2); r.status != http.StatusOK {
		t.Fatalf("me before the reuse: HTTP %d %s", r.status, r.body)
	}

	// r0 again: someone else holds it. The grant dies.
	e.refreshWith(r0).oauthErr(t, http.StatusBadRequest, "invalid_grant", "already used")
	for name, tok := range map[string]string{"first access token": a0, "latest access token": a2} {
		if r := e.me(tok); r.status != http.StatusUnauthorized {
			t.Errorf("%s after the reuse: HTTP %d %s", name, r.status, r.body)
		}
	}
	e.refreshWith(r2).oauthErr(t, http.StatusBadRequest, "invalid_grant", "revoked")

	// Another grant of the same user and app is untouched.
	other := e.tokens("alice", "login,offline")
	if r := e.refreshWith(other["refresh_token"].(string)); r.status != http.StatusOK {
		t.Errorf("another grant: HTTP %d %s", r.status, r.body)
	}
}

// TestRefreshKeepsGrantExpiry (issue 29 item 3): refreshing never makes a
// grant live past refresh_token_ttl from its code exchange: the new
// refresh token keeps the old one's expiry and no access token outlives it.
func TestRefreshKeepsGrantExpiry(t *testing.T) {
	t.Parallel()
	e, clk := newClockEnv(t, "  refresh_token_ttl: 3600\n  access_token_ttl: 1200\n")
	refresh := e.tokens("alice", "login,offline")["refresh_token"].(string)
	clk.Advance(50 * time.Minute)
	r := e.refreshWith(refresh)
	if r.status != http.StatusOK {
		t.Fatalf("refresh: HTTP %d %s", r.status, r.body)
	}
	m := r.json(t)
	if got := m["expires_in"].(float64); got > 600 {
		t.Errorf("expires_in %v: an access token outlives its grant (600 s left)", got)
	}
	clk.Advance(11 * time.Minute) // 61 minutes after the exchange
	e.refreshWith(m["refresh_token"].(string)).oauthErr(t, http.StatusBadRequest, "invalid_grant", "expired")
	e.me(m["access_token"].(string)).oauthErr(t, http.StatusUnauthorized, "invalid_token", "expired")
}

// withoutDemoApp drops demo.app from a config text.
func withoutDemoApp(text string) string {
	i := strings.Index(text, "    - client_id: demo.app\n")
	j := strings.Index(text, "    - client_id: spa.app\n")
	return text[:i] + text[j:]
}

// TestRemovedAppTokensRefused (issue 29 item 4): once an app is removed
// from the config — by a reload, or in the config another replica or a
// restart runs with the same token key — its access and refresh tokens are
// refused at once.
func TestRemovedAppTokensRefused(t *testing.T) {
	t.Parallel()
	node, nodeURL := startNode(t)
	keyFile := writeTokenKey(t)
	text := nodeYAML(nodeURL, "") + authSection(t, "  token_key_file: "+keyFile+"\n")
	cfg, err := config.Parse("a.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e := serve(t, node, cfg)
	tr := e.tokens("alice", "login,offline")
	access, refresh := tr["access_token"].(string), tr["refresh_token"].(string)
	if r := e.me(access); r.status != http.StatusOK {
		t.Fatalf("me: HTTP %d %s", r.status, r.body)
	}

	without, err := config.Parse("a.yaml", []byte(withoutDemoApp(text)))
	if err != nil {
		t.Fatal(err)
	}
	// Another process started with the app removed (a restart).
	restarted := serve(t, node, without)
	restarted.me(access).oauthErr(t, http.StatusUnauthorized, "invalid_token", "no longer registered")

	// A reload of the running one.
	res, err := e.gw.Reload(without)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RestartRequired) != 0 {
		t.Errorf("removing an app asks for a restart: %q", res.RestartRequired)
	}
	e.me(access).oauthErr(t, http.StatusUnauthorized, "invalid_token", "no longer registered")
	e.refreshWith(refresh).oauthErr(t, http.StatusBadRequest, "invalid_grant", "no longer registered")
	r, _ := e.authorize(codeQuery("login", "s"))
	if r.status != http.StatusBadRequest {
		t.Errorf("authorize for the removed app: HTTP %d", r.status)
	}
}

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestReplicaWarningAtStart (issue 29 item 4): a service whose tokens are
// signed with a configured key but whose revocations live in its own
// memory (no cache.redis_url) warns at start that other replicas will not
// see them; auth.single_replica or the Redis tier silence it.
func TestReplicaWarningAtStart(t *testing.T) {
	t.Parallel()
	keyFile := writeTokenKey(t)
	testCases := []struct {
		name, extra, top string
		warn             bool
	}{
		{"token key, no Redis", "", "", true},
		{"single_replica", "  single_replica: true\n", "", false},
		// The Redis client connects lazily: New needs no server.
		{"Redis", "", "cache:\n  redis_url: redis://127.0.0.1:1/0\n", false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Parse("a.yaml", []byte(nodeYAML("http://127.0.0.1:1", tc.top)+authSection(t, "  token_key_file: "+keyFile+"\n"+tc.extra)))
			if err != nil {
				t.Fatal(err)
			}
			var logs logBuffer
			svc, err := auth.New(auth.Options{Settings: cfg.Auth, Cache: cfg.Cache, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			got := strings.Contains(logs.String(), "level=WARN") && strings.Contains(logs.String(), "auth.single_replica")
			if got != tc.warn {
				t.Errorf("warned %v, want %v: %s", got, tc.warn, logs.String())
			}
		})
	}
}

// signInKeys runs the page's login for user with several keys and a role
// ("" for the default).
func (e *env) signInKeys(requestID, user, role string, keys ...*hivetx.PrivateKey) reply {
	e.t.Helper()
	ch := e.page("/oauth2/challenge", map[string]any{"request_id": requestID, "username": user})
	if ch.status != http.StatusOK {
		e.t.Fatalf("challenge: HTTP %d %s", ch.status, ch.body)
	}
	c := ch.json(e.t)
	var sigs []string
	for _, k := range keys {
		sigs = append(sigs, k.SignDigest(hivetx.MessageDigest(c["message"].(string))).String())
	}
	body := map[string]any{"challenge_id": c["challenge_id"], "signatures": sigs}
	if role != "" {
		body["role"] = role
	}
	return e.page("/oauth2/login", body)
}

// makeMultisig sets user's posting authority to two keys of weight 1 with
// threshold 2 (the user's posting key and extra), with an account_update
// signed by the user's active key.
func (e *env) makeMultisig(user string, extra *hivetx.PrivateKey) {
	e.t.Helper()
	acct := e.account(user)
	pairs := [][2]string{{hivesim.DemoKey(user, "posting").PublicKey().String(), "1"}, {extra.PublicKey().String(), "1"}}
	slices.SortFunc(pairs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	keyAuths := []any{}
	for _, p := range pairs {
		keyAuths = append(keyAuths, []any{p[0], json.Number(p[1])})
	}
	op, err := hivetx.NewOperation("account_update", map[string]any{"account": user,
		"posting":  map[string]any{"weight_threshold": json.Number("2"), "account_auths": []any{}, "key_auths": keyAuths},
		"memo_key": acct["memo_key"], "json_metadata": acct["json_metadata"]})
	if err != nil {
		e.t.Fatal(err)
	}
	e.broadcastSigned(op, hivesim.DemoKey(user, "active"))
	if th := e.account(user)["posting"].(map[string]any)["weight_threshold"]; th != float64(2) {
		e.t.Fatalf("@%s's posting threshold is %v after the update", user, th)
	}
}

// TestLoginByAuthorityThreshold (issue 29 item 5): a login is accepted
// only when the signing keys meet the weight threshold of the account's
// authority for the claimed role (or a higher one's): one key of a 2-of-2
// posting authority gets no login, both keys do.
func TestLoginByAuthorityThreshold(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	const user = "frank"
	extra := hivetx.PrivateKeyFromLogin(user, "a second signer", "posting")
	e.makeMultisig(user, extra)
	posting, active := hivesim.DemoKey(user, "posting"), hivesim.DemoKey(user, "active")
	_, data := e.authorize(codeQuery("login,posting", "st"))
	reqID := data["request_id"].(string)

	// One key below the threshold, as the page sends it and as a list.
	e.signIn(reqID, user, posting).oauthErr(t, http.StatusUnauthorized, "access_denied", "weight threshold")
	e.signInKeys(reqID, user, "", extra).oauthErr(t, http.StatusUnauthorized, "access_denied", "weight threshold")
	// Both keys meet it.
	if r := e.signInKeys(reqID, user, "", posting, extra); r.status != http.StatusOK || r.json(t)["username"] != user {
		t.Fatalf("both posting keys: HTTP %d %s", r.status, r.body)
	}
	// The active authority (one key) stands in for posting, as on chain.
	if r := e.signInKeys(reqID, user, "", active); r.status != http.StatusOK {
		t.Errorf("active key: HTTP %d %s", r.status, r.body)
	}
	// Claiming active, posting keys are not enough, even all of them.
	e.signInKeys(reqID, user, "active", posting, extra).oauthErr(t, http.StatusUnauthorized, "access_denied", "active authority")
	if r := e.signInKeys(reqID, user, "active", active); r.status != http.StatusOK {
		t.Errorf("active key claiming active: HTTP %d %s", r.status, r.body)
	}
	// A key of another account among them is refused.
	e.signInKeys(reqID, user, "", posting, extra, hivesim.DemoKey("bob", "posting")).
		oauthErr(t, http.StatusUnauthorized, "access_denied", "not by a key of @"+user)
	e.signInKeys(reqID, user, "owner", active).oauthErr(t, http.StatusBadRequest, "invalid_request", "role")
}

// TestTokenEndpointPostOnly (issue 29 item 6): the token endpoint takes
// POST only; client_secret, code and refresh_token are never read from the
// query string.
func TestTokenEndpointPostOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	code := func(q url.Values) string { return e.flow(q, "alice").Get("code") }

	c := code(codeQuery("login", "s"))
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		r := e.do(m, "/api/oauth2/token?"+url.Values{"code": {c}, "client_secret": {appSecret}, "redirect_uri": {appRedirect}}.Encode(), nil, nil)
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
			t.Errorf("%s: HTTP %d Allow %q, want 405 with Allow: POST", m, r.status, r.header.Get("Allow"))
		}
	}
	body := url.Values{"redirect_uri": {appRedirect}, "client_secret": {appSecret}, "code": {c}}
	for _, k := range []string{"client_secret", "code", "refresh_token"} {
		q := url.Values{k: {body.Get(k)}}
		if k == "refresh_token" {
			q.Set(k, "x")
		}
		r := e.do("POST", "/api/oauth2/token?"+q.Encode(), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, []byte(body.Encode()))
		r.oauthErr(t, http.StatusBadRequest, "invalid_request", "query string")
	}
	// The refused requests used nothing up: the code still works.
	if r := e.form("/api/oauth2/token", body, nil); r.status != http.StatusOK {
		t.Fatalf("the code in the body: HTTP %d %s", r.status, r.body)
	}
}

// TestTokenEndpointRedirectURI (issue 29 item 6): redirect_uri is
// required at the token endpoint when the authorization request carried
// it, and must be the same (RFC 6749 4.1.3).
func TestTokenEndpointRedirectURI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	code := func(q url.Values) string { return e.flow(q, "alice").Get("code") }
	e.form("/api/oauth2/token", url.Values{"code": {code(codeQuery("login", "s"))}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_request", "redirect_uri is required")
	e.form("/api/oauth2/token", url.Values{"code": {code(codeQuery("login", "s"))}, "client_secret": {appSecret}, "redirect_uri": {appRedirect + "/"}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "redirect_uri")
	// Without it in the authorization request (the app's one registered
	// URI), the exchange needs none.
	q := codeQuery("login", "s")
	q.Del("redirect_uri")
	if r := e.form("/api/oauth2/token", url.Values{"code": {code(q)}, "client_secret": {appSecret}}, nil); r.status != http.StatusOK {
		t.Errorf("no redirect_uri in either: HTTP %d %s", r.status, r.body)
	}
}
