package router_test

import (
	"errors"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// TestKeyMapResolvesLikeTTLs resolves a section the way ttls are: most
// specific first, params= entries on the call's own params.
func TestKeyMapResolvesLikeTTLs(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("k.yaml", []byte("backends:\n  h: http://127.0.0.1:1\nurls:\n  appbase: h\n  hived: h\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := router.NewKeyMap([]config.Entry[string]{
		{Key: "appbase", Value: "login"},
		{Key: "appbase.condenser_api.get_account_history", Value: "posting"},
		{Key: "appbase.condenser_api.get_account_history.params=['alice',-1,10]", Value: "none"},
	}, "auth.require_token")
	if err != nil {
		t.Fatal(err)
	}
	testCases := []struct {
		method, params, want, key string
		ok                        bool
	}{
		{"condenser_api.get_block", `[1]`, "login", "appbase", true},
		{"condenser_api.get_account_history", `["bob",-1,10]`, "posting", "appbase.condenser_api.get_account_history", true},
		{"condenser_api.get_account_history", `["alice", -1, 10]`, "none", "appbase.condenser_api.get_account_history.params=['alice',-1,10]", true},
		{"call", `["condenser_api","get_account_history",["alice",-1,10]]`, "none", "appbase.condenser_api.get_account_history.params=['alice',-1,10]", true},
		{"get_block", `[1]`, "", "", false},
	}
	for _, tc := range testCases {
		c, err := r.Parse(tc.method, []byte(tc.params))
		if err != nil {
			t.Fatal(err)
		}
		v, key, ok := m.Lookup(c)
		if v != tc.want || key != tc.key || ok != tc.ok {
			t.Errorf("%s %s: %q %q %v, want %q %q %v", tc.method, tc.params, v, key, ok, tc.want, tc.key, tc.ok)
		}
	}
	if m.Empty() {
		t.Error("Empty on a map with keys")
	}
	_, err = router.NewKeyMap([]config.Entry[string]{{Key: "a..b", Value: "x", Pos: config.Pos{File: "f", Line: 3}}}, "auth.require_token")
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Key != "auth.require_token.a..b" || ce.Pos.Line != 3 {
		t.Errorf("bad key: %v", err)
	}
}
