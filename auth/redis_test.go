package auth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/redistest"
)

// TestReplicasShareRevocationsAndCodes: with cache.redis_url, two
// replicas behind one balancer see the same codes, challenges and
// revocations at once; with Redis down, tokens are refused (a revocation
// cannot be ruled out) rather than accepted.
func TestReplicasShareRevocationsAndCodes(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	node, nodeURL := startNode(t)
	// One token key for both replicas, as a deployment would give them.
	keyFile := writeTokenKey(t)
	section := authSection(t, "  token_key_file: "+keyFile+"\n")
	text := nodeYAML(nodeURL, "cache:\n  redis_url: "+rs.URL()+"\n") + section
	cfgA, err := config.Parse("a.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cfgB, _ := config.Parse("b.yaml", []byte(text))
	a, b := serve(t, node, cfgA), serve(t, node, cfgB)

	// Log in on A, exchange the code on B.
	code := a.flow(codeQuery("login", "s"), "alice").Get("code")
	tr := b.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {code}, "client_secret": {appSecret}}, nil)
	if tr.status != http.StatusOK {
		t.Fatalf("exchange on the other replica: HTTP %d %s", tr.status, tr.body)
	}
	access := tr.json(t)["access_token"].(string)
	// The code is gone for A too.
	a.form("/api/oauth2/token", url.Values{"code": {code}, "client_secret": {appSecret}}, nil).
		oauthErr(t, http.StatusBadRequest, "invalid_grant", "already used")

	tok := b.tokens("bob", "login")["access_token"].(string)
	for _, e := range []*env{a, b} {
		if r := e.do("GET", "/api/me", map[string]string{"Authorization": tok}, nil); r.status != http.StatusOK {
			t.Fatalf("me: HTTP %d %s", r.status, r.body)
		}
	}
	if r := a.form("/api/oauth2/token/revoke", url.Values{"token": {tok}}, nil); r.status != http.StatusOK {
		t.Fatal(string(r.body))
	}
	b.do("GET", "/api/me", map[string]string{"Authorization": tok}, nil).oauthErr(t, http.StatusUnauthorized, "invalid_token", "revoked")

	rs.Kill()
	a.do("GET", "/api/me", map[string]string{"Authorization": access}, nil).oauthErr(t, http.StatusServiceUnavailable, "temporarily_unavailable", "unavailable")
}

// TestReplicasShareRefreshRotation (issue 29 item 3): with the Redis
// tier, a refresh token used on one replica is dead on the other, and its
// reuse there revokes the grant on both.
func TestReplicasShareRefreshRotation(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	node, nodeURL := startNode(t)
	text := nodeYAML(nodeURL, "cache:\n  redis_url: "+rs.URL()+"\n") + authSection(t, "  token_key_file: "+writeTokenKey(t)+"\n")
	cfgA, err := config.Parse("a.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cfgB, _ := config.Parse("b.yaml", []byte(text))
	a, b := serve(t, node, cfgA), serve(t, node, cfgB)

	r0 := a.tokens("alice", "login,offline")["refresh_token"].(string)
	next := a.refreshWith(r0)
	if next.status != http.StatusOK {
		t.Fatalf("refresh on A: HTTP %d %s", next.status, next.body)
	}
	access := next.json(t)["access_token"].(string)
	if r := b.me(access); r.status != http.StatusOK {
		t.Fatalf("me on B: HTTP %d %s", r.status, r.body)
	}
	b.refreshWith(r0).oauthErr(t, http.StatusBadRequest, "invalid_grant", "already used")
	a.me(access).oauthErr(t, http.StatusUnauthorized, "invalid_token", "revoked")
	a.refreshWith(next.json(t)["refresh_token"].(string)).oauthErr(t, http.StatusBadRequest, "invalid_grant", "revoked")
}
