package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/config"
	authv1 "github.com/hivegate/hivegate/gen/hivegate/auth/v1"
	"github.com/hivegate/hivegate/gen/hivegate/auth/v1/authv1connect"
	"github.com/hivegate/hivegate/hivesim"
)

// Per-app consent on chain, HiveSigner's chain user → app account →
// broadcaster: the user lists the app's account (auth.apps[].account,
// the client id by default) in their posting authority, the app's account
// lists the service account in its own (here since genesis), and both
// /api/broadcast and the typed Broadcast check both links.

// follow is a follow by user of whom, as /api/broadcast takes it: each
// call follows someone else, so no two transactions are the same.
func follow(user, whom string) string {
	return `[["custom_json",{"required_auths":[],"required_posting_auths":["` + user + `"],"id":"follow","json":"[\"follow\",{\"follower\":\"` +
		user + `\",\"following\":\"` + whom + `\",\"what\":[\"blog\"]}]"}]]`
}

// spaTokens runs spa.app's PKCE code flow for user: its access token.
func (e *env) spaTokens(user string) string {
	e.t.Helper()
	verifier, challenge := pkce("spa")
	q := e.flow(url.Values{"client_id": {"spa.app"}, "redirect_uri": {spaRedirect}, "response_type": {"code"}, "scope": {"login,posting"},
		"state": {"s"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}, user)
	r := e.form("/api/oauth2/token", url.Values{"code": {q.Get("code")}, "client_id": {"spa.app"}, "code_verifier": {verifier}, "redirect_uri": {spaRedirect}}, nil)
	if r.status != http.StatusOK {
		e.t.Fatalf("spa token: HTTP %d %s", r.status, r.body)
	}
	return r.json(e.t)["access_token"].(string)
}

func (e *env) broadcastOK(token, ops string) {
	e.t.Helper()
	if r := e.broadcast(token, ops); r.status != http.StatusOK {
		e.t.Fatalf("broadcast: HTTP %d %s", r.status, r.body)
	}
}

// TestConsentPerApp: the chain of two links is accepted; each missing
// link is refused before the node, naming the link; removing one app's
// account from the user's authority revokes that app alone.
func TestConsentPerApp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	user := authorizedUser(t, e, false)
	add := func(name string) func([]any) []any {
		return func(a []any) []any { return append(a, []any{name, 1}) }
	}
	remove := func(name string) func([]any) []any {
		return func(a []any) []any {
			return slices.DeleteFunc(a, func(p any) bool { return p.([]any)[0] == name })
		}
	}
	// Today's direct consent (the service account in the user's authority)
	// is not consent to an app.
	e.setAccountAuths(user, add(serviceAccount))
	demo := e.tokens(user, "login,posting")["access_token"].(string)
	spa := e.spaTokens(user)
	before := e.node.Calls("condenser_api.broadcast_transaction_synchronous")
	e.broadcast(demo, follow(user, "bob")).oauthErr(t, http.StatusUnauthorized, "unauthorized_client",
		"@"+user+" has not authorized app @demo.app (posting)")
	e.broadcast(spa, follow(user, "bob")).oauthErr(t, http.StatusUnauthorized, "unauthorized_client",
		"@"+user+" has not authorized app @spa.app (posting)")
	if got := e.node.Calls("condenser_api.broadcast_transaction_synchronous"); got != before {
		t.Fatalf("%d refused broadcasts reached the node", got-before)
	}

	// Both links: the broadcaster's key signs for the user through each app.
	e.setAccountAuths(user, add("spa.app"))
	e.setAccountAuths(user, add("demo.app"))
	e.broadcastOK(demo, follow(user, "bob"))
	e.broadcastOK(spa, follow(user, "carol"))

	// The user removes spa.app on chain: spa.app is refused, demo.app not.
	e.setAccountAuths(user, remove("spa.app"))
	e.broadcast(spa, follow(user, "dave")).oauthErr(t, http.StatusUnauthorized, "unauthorized_client",
		"@"+user+" has not authorized app @spa.app (posting)")
	e.broadcastOK(demo, follow(user, "eve"))

	// demo.app's account drops the broadcaster: the second link is missing,
	// over HTTP and typed.
	e.setAccountAuths("demo.app", remove(serviceAccount))
	before = e.node.Calls("condenser_api.broadcast_transaction_synchronous")
	want := "app @demo.app has not authorized @trent, hivegate's broadcaster (posting)"
	e.broadcast(demo, follow(user, "frank")).oauthErr(t, http.StatusUnauthorized, "unauthorized_client", want)
	client := authv1connect.NewAuthServiceClient(http.DefaultClient, e.url)
	req := connect.NewRequest(&authv1.BroadcastRequest{Operations: []*authv1.PostingOperation{{Operation: &authv1.PostingOperation_CustomJson{
		CustomJson: &authv1.CustomJsonOperation{RequiredPostingAuths: []string{user}, Id: "follow", Json: `["follow",{"follower":"` + user + `","following":"grace","what":["blog"]}]`}}}}})
	req.Header().Set("Authorization", demo)
	if _, err := client.Broadcast(context.Background(), req); connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), want) {
		t.Errorf("typed Broadcast without the app's link: %v", err)
	}
	if got := e.node.Calls("condenser_api.broadcast_transaction_synchronous"); got != before {
		t.Errorf("%d refused broadcasts reached the node", got-before)
	}
}

// TestConsentLoginAsksForTheAppAccount: the login answer names the
// account the page asks Keychain to add — the app's — and needs it until
// the user lists it; the page says so.
func TestConsentLoginAsksForTheAppAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	user := authorizedUser(t, e, false)
	e.setAccountAuths(user, func(a []any) []any { return append(a, []any{serviceAccount, 1}) })
	r, data := e.authorize(codeQuery("login,posting", "s"))
	if data == nil || !strings.Contains(string(r.body), "@demo.app to your posting authority") {
		t.Fatalf("authorize page: HTTP %d %s", r.status, r.body)
	}
	login := e.signIn(data["request_id"].(string), user, hivesim.DemoKey(user, "posting")).json(t)
	if login["authorize_account"] != "demo.app" || login["needs_authority"] != true {
		t.Errorf("login with only the service account listed: %v", login)
	}
	e.grantAuthority(user)
	_, data = e.authorize(codeQuery("login,posting", "s"))
	login = e.signIn(data["request_id"].(string), user, hivesim.DemoKey(user, "posting")).json(t)
	if login["authorize_account"] != "demo.app" || login["needs_authority"] != false {
		t.Errorf("login with demo.app listed: %v", login)
	}
}

// TestConsentDirect: an app whose account is the service account is
// direct consent (the model before per-app consent): the user lists the
// service account, and that covers the app.
func TestConsentDirect(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	user := authorizedUser(t, e, false)
	tok := e.tokens(user, "login,posting")["access_token"].(string)
	e.svc.SetApps([]config.AuthApp{{ClientID: "demo.app", Name: "Demo App", SecretSHA256: sha256Hex(appSecret), RedirectURIs: []string{appRedirect},
		Scopes: []string{config.ScopeLogin, config.ScopePosting, config.ScopeOffline}, Account: serviceAccount}})
	e.broadcast(tok, follow(user, "bob")).oauthErr(t, http.StatusUnauthorized, "unauthorized_client", "@"+user+" has not given @trent posting authority")
	e.setAccountAuths(user, func(a []any) []any { return append(a, []any{serviceAccount, 1}) })
	e.broadcastOK(tok, follow(user, "bob"))
}
