package auth_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// TestCodeFlowVoteAndComment is the "done when": an app sends a
// demo user through /oauth2/authorize, gets a token for a code and its
// secret, and votes and comments for the user through /api/broadcast; the
// user sees both on the chain.
func TestCodeFlowVoteAndComment(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	r, data := e.authorize(codeQuery("login,posting,offline", "xyz"))
	if r.status != http.StatusOK || data["client_id"] != "demo.app" || data["service_account"] != serviceAccount {
		t.Fatalf("authorize: HTTP %d %v", r.status, data)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Referrer-Policy"} {
		if r.header.Get(h) == "" {
			t.Errorf("the page has no %s", h)
		}
	}
	authorizedBefore := e.authorizes("alice")
	login := e.signIn(data["request_id"].(string), "alice", hivesim.DemoKey("alice", "posting"))
	if login.status != http.StatusOK {
		t.Fatalf("login: HTTP %d %s", login.status, login.body)
	}
	l := login.json(t)
	if l["username"] != "alice" || l["needs_authority"] != !authorizedBefore {
		t.Errorf("login answer %v (alice authorizes trent already: %v)", l, authorizedBefore)
	}
	g := e.page("/oauth2/grant", map[string]any{"session_id": l["session_id"], "approve": true})
	redirect, _ := url.Parse(g.json(t)["redirect"].(string))
	q := redirect.Query()
	if !strings.HasPrefix(redirect.String(), appRedirect+"?") || q.Get("state") != "xyz" || q.Get("username") != "alice" || q.Get("code") == "" || q.Get("expires_in") == "" {
		t.Fatalf("redirect %s", redirect)
	}

	tok := e.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {q.Get("code")}, "client_id": {"demo.app"}, "client_secret": {appSecret}}, nil)
	if tok.status != http.StatusOK {
		t.Fatalf("token: HTTP %d %s", tok.status, tok.body)
	}
	tr := tok.json(t)
	access, _ := tr["access_token"].(string)
	if access == "" || tr["refresh_token"] == nil || tr["username"] != "alice" || tr["expires_in"] != float64(7*24*3600) || tr["scope"] != "login posting offline" {
		t.Fatalf("token answer %v", tr)
	}
	if tok.header.Get("Cache-Control") != "no-store" {
		t.Error("the token answer may be cached")
	}

	// /api/me, with the raw token (HiveSigner's SDK) and as a bearer token.
	for _, auth := range []string{access, "Bearer " + access} {
		me := e.do("POST", "/api/me", map[string]string{"Authorization": auth}, nil)
		m := me.json(t)
		if me.status != http.StatusOK || m["user"] != "alice" || m["name"] != "alice" || m["account"].(map[string]any)["name"] != "alice" {
			t.Fatalf("me: HTTP %d %v", me.status, m)
		}
		if ops := m["scope"].([]any); len(ops) != 7 || ops[0] != "vote" {
			t.Errorf("me scope %v: want HiveSigner's posting operations", ops)
		}
	}

	e.post("bob", "bobs-post")
	vote := `[["vote",{"voter":"alice","author":"bob","permlink":"bobs-post","weight":"10000"}]]`
	if !authorizedBefore {
		// demo.app's account is not in alice's posting authority yet.
		e.broadcast(access, vote).oauthErr(t, http.StatusUnauthorized, "unauthorized_client", "has not authorized app @demo.app (posting)")
		e.grantAuthority("alice") // what Keychain's requestAddAccountAuthority does
	}
	calls := e.node.Calls("condenser_api.broadcast_transaction_synchronous")
	res := e.broadcast(access, vote)
	if res.status != http.StatusOK {
		t.Fatalf("vote: HTTP %d %s", res.status, res.body)
	}
	result := res.json(t)["result"].(map[string]any)
	if id, _ := result["id"].(string); len(id) != 40 || result["block_num"] == nil || result["trx_num"] == nil || result["expired"] != false {
		t.Errorf("result %v", result)
	}
	if got := e.node.Calls("condenser_api.broadcast_transaction_synchronous"); got != calls+1 {
		t.Errorf("%d broadcasts reached the node, want 1", got-calls)
	}
	post := e.content("bob", "bobs-post")
	votes, _ := post["active_votes"].([]any)
	if len(votes) != 1 || votes[0].(map[string]any)["voter"] != "alice" {
		t.Errorf("bob's post shows votes %v", votes)
	}
	// The transaction the node got was signed by the service key alone.
	last := e.node.Broadcasts()
	tx, err := hivetx.ParseTransaction(firstParam(t, last[len(last)-1]))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := tx.SignerKeys(hivetx.MainnetChainID)
	if err != nil || len(keys) != 1 || keys[0] != hivesim.DemoKey(serviceAccount, "posting").PublicKey() {
		t.Errorf("signers %v (%v), want trent's posting key", keys, err)
	}

	comment := `[["comment",{"parent_author":"bob","parent_permlink":"bobs-post","author":"alice","permlink":"re-bob","title":"","body":"Nice <b>post</b> 🎉","json_metadata":"{\"app\":\"demo.app\"}"}]]`
	if r := e.broadcast(access, comment); r.status != http.StatusOK {
		t.Fatalf("comment: HTTP %d %s", r.status, r.body)
	}
	if c := e.content("alice", "re-bob"); c["body"] != "Nice <b>post</b> 🎉" || c["parent_author"] != "bob" {
		t.Errorf("alice's reply: %v", c)
	}
}

// firstParam is the transaction in recorded params [trx].
func firstParam(t *testing.T, params json.RawMessage) []byte {
	t.Helper()
	var p []json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil || len(p) != 1 {
		t.Fatalf("params %s", params)
	}
	return p[0]
}

// TestTokenFlowAndPKCE: the implicit flow HiveSigner's SDK uses by default
// (no response_type), for a public app whose config allows it, and a
// public app's code flow with PKCE.
func TestTokenFlowAndPKCE(t *testing.T) {
	t.Parallel()
	e := newEnvWithAuth(t, implicitSPA(authSection(t, "")))
	q := e.flow(url.Values{"client_id": {"spa.app"}, "redirect_uri": {spaRedirect}, "scope": {"login"}, "state": {"st"}}, "carol")
	if q.Get("access_token") == "" || q.Get("username") != "carol" || q.Get("expires_in") != "604800" || q.Get("state") != "st" || q.Get("code") != "" {
		t.Fatalf("token flow redirect %v", q)
	}
	me := e.do("GET", "/api/me", map[string]string{"Authorization": q.Get("access_token")}, nil).json(t)
	if me["user"] != "carol" || me["scope"].([]any)[0] != "login" {
		t.Errorf("me %v", me)
	}

	// A public app: PKCE, no secret, any loopback port.
	verifier, challenge := pkce("abc-")
	pq := url.Values{"client_id": {"spa.app"}, "redirect_uri": {"http://127.0.0.1:49152/callback"}, "response_type": {"code"},
		"scope": {"posting"}, "state": {"p"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	code := e.flow(pq, "dave").Get("code")
	r := e.form("/api/oauth2/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {"spa.app"}, "code_verifier": {verifier}, "redirect_uri": {pq.Get("redirect_uri")}}, nil)
	if r.status != http.StatusOK || r.json(t)["refresh_token"] != nil {
		t.Fatalf("PKCE exchange: HTTP %d %s", r.status, r.body)
	}
	// A JSON body works too (HiveSigner reads body or query).
	code = e.flow(pq, "dave").Get("code")
	body, _ := json.Marshal(map[string]string{"code": code, "code_verifier": verifier, "redirect_uri": pq.Get("redirect_uri")})
	if r := e.do("POST", "/api/oauth2/token", map[string]string{"Content-Type": "application/json"}, body); r.status != http.StatusOK {
		t.Fatalf("JSON exchange: HTTP %d %s", r.status, r.body)
	}
}

// TestRefreshRevokeAndReusedCode: offline gives a refresh token; revoking
// kills the access and refresh tokens of the grant; a code presented twice
// is refused and revokes what it gave.
func TestRefreshRevokeAndReusedCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	tr := e.tokens("alice", "login,offline")
	refresh := tr["refresh_token"].(string)
	r := e.form("/api/oauth2/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_secret": {appSecret}}, nil)
	if r.status != http.StatusOK {
		t.Fatalf("refresh: HTTP %d %s", r.status, r.body)
	}
	newAccess := r.json(t)["access_token"].(string)
	e.form("/api/oauth2/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}, nil).
		oauthErr(t, http.StatusUnauthorized, "invalid_client", "client secret")
	e.form("/api/oauth2/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tr["access_token"].(string)}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "cannot be used here")

	// HiveSigner's SDK revokes with the token in the body and in Authorization.
	rv := e.do("POST", "/api/oauth2/token/revoke", map[string]string{"Authorization": newAccess, "Content-Type": "application/json"},
		[]byte(`{"token":"`+newAccess+`"}`))
	if rv.status != http.StatusOK || rv.json(t)["success"] != true {
		t.Fatalf("revoke: HTTP %d %s", rv.status, rv.body)
	}
	for _, tok := range []string{newAccess, tr["access_token"].(string)} {
		me := e.do("POST", "/api/me", map[string]string{"Authorization": tok}, nil)
		me.oauthErr(t, http.StatusUnauthorized, "invalid_token", "revoked")
		if !strings.Contains(me.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("WWW-Authenticate %q", me.header.Get("WWW-Authenticate"))
		}
	}
	e.form("/api/oauth2/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "revoked")

	// A code is good once; the second try revokes the first one's tokens.
	code := e.flow(codeQuery("login", "s"), "bob").Get("code")
	first := e.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {code}, "client_secret": {appSecret}}, nil)
	if first.status != http.StatusOK {
		t.Fatalf("first exchange: %s", first.body)
	}
	e.form("/api/oauth2/token", url.Values{"code": {code}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "already used")
	e.do("GET", "/api/me", map[string]string{"Authorization": first.json(t)["access_token"].(string)}, nil).
		oauthErr(t, http.StatusUnauthorized, "invalid_token", "revoked")
}

// TestMetadata is RFC 8414's document.
func TestMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	r := e.do("GET", "/.well-known/oauth-authorization-server", nil, nil)
	m := r.json(t)
	if m["issuer"] != e.url || m["authorization_endpoint"] != e.url+"/oauth2/authorize" || m["token_endpoint"] != e.url+"/api/oauth2/token" ||
		m["revocation_endpoint"] != e.url+"/api/oauth2/token/revoke" {
		t.Errorf("metadata %v", m)
	}
	if cm := m["code_challenge_methods_supported"].([]any); len(cm) != 1 || cm[0] != "S256" {
		t.Errorf("code_challenge_methods_supported %v", cm)
	}
	// auth.issuer fixes the base URL whatever the Host.
	e2 := newEnv(t, "  issuer: https://api.example.com\n", "")
	if got := e2.do("GET", "/.well-known/oauth-authorization-server", nil, nil).json(t)["token_endpoint"]; got != "https://api.example.com/api/oauth2/token" {
		t.Errorf("with auth.issuer: token_endpoint %v", got)
	}
}
