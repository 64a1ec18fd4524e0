package hivetx_test

import (
	"slices"
	"testing"

	"github.com/hivegate/hivegate/hivetx"
)

// authKey is the public key of an account's level in the tests' accounts.
func authKey(account string, level hivetx.Level) hivetx.PublicKey {
	role := map[hivetx.Level]string{hivetx.LevelPosting: hivetx.RolePosting, hivetx.LevelActive: hivetx.RoleActive,
		hivetx.LevelOwner: hivetx.RoleOwner}[level]
	return hivetx.PrivateKeyFromLogin(account, "pw", role).PublicKey()
}

// testAccounts: every account's authorities are its own key, threshold 1;
// alice's posting authority also lists app, whose posting authority lists
// bob; zero's posting threshold is 0.
func testAccounts(name string, level hivetx.Level) *hivetx.Authority {
	if !slices.Contains([]string{"alice", "app", "bob", "zero"}, name) {
		return nil
	}
	a := &hivetx.Authority{WeightThreshold: 1, KeyAuths: []hivetx.KeyWeight{{Key: authKey(name, level), Weight: 1}}}
	switch {
	case level != hivetx.LevelPosting:
	case name == "alice":
		a.AccountAuths = []hivetx.AccountWeight{{Account: "app", Weight: 1}}
	case name == "app":
		a.AccountAuths = []hivetx.AccountWeight{{Account: "bob", Weight: 1}}
	case name == "zero":
		a.WeightThreshold = 0
	}
	return a
}

func TestCheckAuthorities(t *testing.T) {
	t.Parallel()
	posting := func(names ...string) hivetx.Required { return hivetx.Required{Posting: names} }
	for _, tc := range []struct {
		name    string
		req     hivetx.Required
		keys    []hivetx.PublicKey
		want    hivetx.AuthProblem
		account string
	}{
		{"own posting key", posting("alice"), []hivetx.PublicKey{authKey("alice", hivetx.LevelPosting)}, hivetx.AuthOK, ""},
		{"active key stands in for posting", posting("alice"), []hivetx.PublicKey{authKey("alice", hivetx.LevelActive)},
			hivetx.AuthOK, ""},
		{"member of a member signs", posting("alice"), []hivetx.PublicKey{authKey("bob", hivetx.LevelPosting)},
			hivetx.AuthOK, ""},
		{"member resolved in the posting level only", posting("alice"),
			[]hivetx.PublicKey{authKey("bob", hivetx.LevelActive)}, hivetx.AuthMissingPosting, "alice"},
		{"posting with active", hivetx.Required{Posting: []string{"alice"}, Active: []string{"bob"}},
			[]hivetx.PublicKey{authKey("alice", hivetx.LevelPosting)}, hivetx.AuthMixedWithPosting, ""},
		{"unknown account", posting("nobody"), nil, hivetx.AuthMissingPosting, "nobody"},
		{"unused signature", posting("alice"),
			[]hivetx.PublicKey{authKey("alice", hivetx.LevelPosting), authKey("bob", hivetx.LevelOwner)},
			hivetx.AuthUnusedSignature, ""},
		{"posting key is no active key", hivetx.Required{Active: []string{"bob"}},
			[]hivetx.PublicKey{authKey("bob", hivetx.LevelPosting)}, hivetx.AuthMissingActive, "bob"},
		{"owner key stands in for active", hivetx.Required{Active: []string{"bob"}},
			[]hivetx.PublicKey{authKey("bob", hivetx.LevelOwner)}, hivetx.AuthOK, ""},
		{"owner needs the owner key", hivetx.Required{Owner: []string{"bob"}},
			[]hivetx.PublicKey{authKey("bob", hivetx.LevelActive)}, hivetx.AuthMissingOwner, "bob"},
		{"threshold 0 needs no signature", posting("zero"), nil, hivetx.AuthOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, account := hivetx.CheckAuthorities(tc.req, tc.keys, testAccounts)
			if got != tc.want || account != tc.account {
				t.Errorf("CheckAuthorities = %d, %q; want %d, %q", got, account, tc.want, tc.account)
			}
		})
	}
}

func TestRequiredSignatures(t *testing.T) {
	t.Parallel()
	bobPosting, alicePosting := authKey("bob", hivetx.LevelPosting), authKey("alice", hivetx.LevelPosting)
	available := []hivetx.PublicKey{authKey("bob", hivetx.LevelActive), bobPosting, alicePosting}
	var seen []*hivetx.Authority
	keys, mixed := hivetx.RequiredSignatures(hivetx.Required{Posting: []string{"alice"}}, nil, available, testAccounts,
		func(a *hivetx.Authority) { seen = append(seen, a) })
	// alice's own key meets her threshold: the walk stops before her members.
	if mixed != "" || !slices.Equal(keys, []hivetx.PublicKey{alicePosting}) || len(seen) != 1 {
		t.Errorf("RequiredSignatures = %v, %q, %d authorities seen; want alice's posting key, none, 1", keys, mixed, len(seen))
	}
	keys, _ = hivetx.RequiredSignatures(hivetx.Required{Posting: []string{"alice"}}, nil, available[:2], testAccounts, nil)
	if !slices.Equal(keys, []hivetx.PublicKey{bobPosting}) {
		t.Errorf("without alice's key: %v, want bob's posting key (through app)", keys)
	}
	if _, mixed := hivetx.RequiredSignatures(hivetx.Required{Posting: []string{"alice"}, Active: []string{"bob"}},
		nil, available, testAccounts, nil); mixed != "!required_active.size()" {
		t.Errorf("posting with active: mixed = %q", mixed)
	}
}
