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
	tr := b.form("/api/oauth2/token", url.Values{"code": {code}, "client_secret": {appSecret}}, nil)
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
