package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
)

// TestDemoAuthorityOnlyInDemo: without gateway.Options.AuthDemoAuthority
// (set by `hivegate demo` alone) the login page is not marked as the
// demo's, the login does not offer the demo-only step, and
// /oauth2/demo-authority adds no authority.
func TestDemoAuthorityOnlyInDemo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	r, data := e.authorize(codeQuery("login,posting", "s"))
	if data == nil {
		t.Fatalf("authorize: HTTP %d %s", r.status, r.body)
	}
	if strings.Contains(string(r.body), `id="demo"`) || data["demo"] != nil {
		t.Errorf("the page is marked as the demo's outside the demo:\n%s", r.body)
	}
	const user = "carol"
	login := e.signIn(data["request_id"].(string), user, hivesim.DemoKey(user, "posting")).json(t)
	if login["needs_authority"] != true || login["demo_authority"] != false {
		t.Fatalf("login: %v, want needs_authority without demo_authority", login)
	}
	got := e.page("/oauth2/demo-authority", map[string]any{"session_id": login["session_id"]})
	if strings.Contains(string(got.body), `"added"`) {
		t.Errorf("/oauth2/demo-authority answered outside the demo: HTTP %d %s", got.status, got.body)
	}
	if e.authorizes(user) {
		t.Errorf("@%s's posting authority changed outside the demo", user)
	}
}

// TestDemoAuthorityStep: with the demo's hook, the step acts for the user
// of a verified login that asked for posting, and for nobody else.
func TestDemoAuthorityStep(t *testing.T) {
	t.Parallel()
	node, nodeURL := startNode(t)
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(nodeURL, "")+authSection(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []string
	gw, err := gateway.New(cfg, gateway.Options{AuthDemoAuthority: func(_ context.Context, user, account string) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, user+"→"+account)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(func() { srv.Close(); gw.Close() })
	e := &env{t: t, node: node, gw: gw, url: srv.URL, svc: gw.Auth()}

	session := func(scope, user string) any {
		t.Helper()
		r, data := e.authorize(codeQuery(scope, "s"))
		if data == nil {
			t.Fatalf("authorize: HTTP %d %s", r.status, r.body)
		}
		if !strings.Contains(string(r.body), `id="demo"`) {
			t.Errorf("the demo's page is not marked as the demo's")
		}
		return e.signIn(data["request_id"].(string), user, hivesim.DemoKey(user, "posting")).json(t)["session_id"]
	}
	e.page("/oauth2/demo-authority", map[string]any{"session_id": "nope"}).oauthErr(t, http.StatusBadRequest, "invalid_request", "expired")
	e.page("/oauth2/demo-authority", map[string]any{"session_id": session("login", "dave")}).oauthErr(t, http.StatusBadRequest, "invalid_request", "posting")
	// The body names another user: the session's user is the one acted for.
	r := e.page("/oauth2/demo-authority", map[string]any{"session_id": session("login,posting", "frank"), "username": "alice"})
	if r.status != http.StatusOK || r.json(t)["added"] != true {
		t.Fatalf("demo-authority: HTTP %d %s", r.status, r.body)
	}
	mu.Lock()
	defer mu.Unlock()
	// It adds the app's account (per-app consent), not the service account.
	if len(calls) != 1 || calls[0] != "frank→demo.app" {
		t.Errorf("the hook acted for %v, want [frank→demo.app]", calls)
	}
}
