package auth_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
)

// TestAppTokenQuota: a valid access token of an app with a quota class
// (auth.apps[].quota) counts against the app, not the client's address;
// a request without a token, or with one that does not verify, counts
// against the address.
func TestAppTokenQuota(t *testing.T) {
	t.Parallel()
	node, nodeURL := startNode(t)
	section := strings.Replace(authSection(t, ""), "      name: Demo App\n", "      name: Demo App\n      quota: partner\n", 1)
	// The tests connect from loopback: not a trusted proxy here, so the
	// address is limited.
	top := "limits:\n  trusted_proxies: [10.255.255.254]\n" +
		"quotas:\n  classes:\n    public: {limit: 1, period: 1h}\n    partner: {limit: 3, period: 1h}\n  per_address: public\n"
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(nodeURL, top)+section))
	if err != nil {
		t.Fatal(err)
	}
	e := serve(t, node, cfg)
	tok := e.tokens("alice", "login")["access_token"].(string)
	bearer := map[string]string{"Authorization": "Bearer " + tok}
	check := func(what string, header map[string]string, status int, who string) {
		t.Helper()
		r := e.rpc("condenser_api.get_block", []any{1}, header)
		if r.status != status || who != "" && !strings.Contains(string(r.body), "quota of "+who+" exceeded") {
			t.Fatalf("%s: HTTP %d %s, want %d %s", what, r.status, r.body, status, who)
		}
	}
	for range 3 {
		check("with demo.app's token", bearer, http.StatusOK, "")
	}
	check("with demo.app's token, over its 3", bearer, http.StatusTooManyRequests, "app demo.app")
	check("without a token", nil, http.StatusOK, "")
	check("without a token, over the address's 1", nil, http.StatusTooManyRequests, "your address")
	check("with a token that does not verify", map[string]string{"Authorization": "Bearer " + tok[:len(tok)-4] + "AAAA"}, http.StatusTooManyRequests, "your address")
}
