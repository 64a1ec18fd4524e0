package hivesim_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// setPosting replaces an account's posting authority with an
// account_update signed by its active key (as Keychain's
// requestAddAccountAuthority does): threshold, keys and accounts with
// their weights.
func setPosting(t *testing.T, c *client, account string, threshold int, keys map[*hivetx.PrivateKey]int, accounts map[string]int) {
	t.Helper()
	ka := []any{}
	for k, w := range keys {
		ka = append(ka, []any{k.PublicKey().String(), json.Number(strconv.Itoa(w))})
	}
	aa := []any{}
	for a, w := range accounts {
		aa = append(aa, []any{a, json.Number(strconv.Itoa(w))})
	}
	update := mustOp(t, "account_update", obj{"account": account,
		"posting":  obj{"weight_threshold": json.Number(strconv.Itoa(threshold)), "account_auths": aa, "key_auths": ka},
		"memo_key": hivesim.DemoKey(account, "memo").PublicKey().String(), "json_metadata": ""})
	if r := broadcast(t, c, signed(t, newTx(t, c, update), hivesim.DemoKey(account, "active"))); r.Error != nil {
		t.Fatalf("account_update %s: %s", account, r.Error.Message)
	}
}

// TestSignStateAccountAuthorities: the node resolves account authorities
// as hived's sign_state does: member accounts in the posting role, their
// weights summed against the threshold, at most HIVE_MAX_SIG_CHECK_DEPTH
// (2) deep, and it refuses a transaction whose signatures do not satisfy
// the authority that way.
func TestSignStateAccountAuthorities(t *testing.T) {
	t.Parallel()
	posting := func(a string) *hivetx.PrivateKey { return hivesim.DemoKey(a, "posting") }
	own := func(a string) map[*hivetx.PrivateKey]int { return map[*hivetx.PrivateKey]int{posting(a): 1} }
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, c *client)
		keys  []*hivetx.PrivateKey
		ok    bool
	}{
		{"user → app → broadcaster: two links", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, own("alice"), map[string]int{"bob": 1})
			setPosting(t, c, "bob", 1, own("bob"), map[string]int{"trent": 1})
		}, []*hivetx.PrivateKey{posting("trent")}, true},
		{"the user's link missing", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, own("alice"), nil)
			setPosting(t, c, "bob", 1, own("bob"), map[string]int{"trent": 1})
		}, []*hivetx.PrivateKey{posting("trent")}, false},
		{"the app's link missing", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, own("alice"), map[string]int{"bob": 1})
			setPosting(t, c, "bob", 1, own("bob"), nil)
		}, []*hivetx.PrivateKey{posting("trent")}, false},
		{"a key at depth 2 signs", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, own("alice"), map[string]int{"bob": 1})
			setPosting(t, c, "bob", 1, own("bob"), map[string]int{"carol": 1})
		}, []*hivetx.PrivateKey{posting("carol")}, true},
		{"a key beyond depth 2 does not", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 1, own("alice"), map[string]int{"bob": 1})
			setPosting(t, c, "bob", 1, own("bob"), map[string]int{"carol": 1})
			setPosting(t, c, "carol", 1, own("carol"), map[string]int{"trent": 1})
		}, []*hivetx.PrivateKey{posting("trent")}, false},
		{"multisig keys below the threshold", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 2, map[*hivetx.PrivateKey]int{posting("alice"): 1, hivesim.DemoKey("alice", "memo"): 1}, nil)
		}, []*hivetx.PrivateKey{posting("alice")}, false},
		{"multisig keys at the threshold", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 2, map[*hivetx.PrivateKey]int{posting("alice"): 1, hivesim.DemoKey("alice", "memo"): 1}, nil)
		}, []*hivetx.PrivateKey{posting("alice"), hivesim.DemoKey("alice", "memo")}, true},
		{"multisig accounts below the threshold", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 2, own("alice"), map[string]int{"bob": 1, "carol": 1})
		}, []*hivetx.PrivateKey{posting("bob")}, false},
		{"multisig accounts at the threshold", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 2, own("alice"), map[string]int{"bob": 1, "carol": 1})
		}, []*hivetx.PrivateKey{posting("bob"), posting("carol")}, true},
		{"a key and an account summed", func(t *testing.T, c *client) {
			setPosting(t, c, "alice", 3, map[*hivetx.PrivateKey]int{posting("alice"): 2}, map[string]int{"bob": 1})
		}, []*hivetx.PrivateKey{posting("alice"), posting("bob")}, true},
		{"an account approving twice counts once", func(t *testing.T, c *client) {
			// bob and carol both approve through trent: one signature, two
			// accounts, each counted by its weight once.
			setPosting(t, c, "alice", 3, own("alice"), map[string]int{"bob": 1, "carol": 1})
			setPosting(t, c, "bob", 1, own("bob"), map[string]int{"trent": 1})
			setPosting(t, c, "carol", 1, own("carol"), map[string]int{"trent": 1})
		}, []*hivetx.PrivateKey{posting("trent")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c, _ := testNode(t, 47)
			tc.setup(t, c)
			r := broadcast(t, c, signed(t, newTx(t, c, follows(t, "alice", "bob")), tc.keys...))
			if tc.ok && r.Error != nil {
				t.Fatalf("refused: %s", r.Error.Message)
			}
			if !tc.ok {
				refused(t, r, "tx_missing_posting_auth", "Missing Posting Authority alice")
			}
		})
	}
}

// TestSignStateAccountLimit: hived resolves at most HIVE_MAX_SIG_CHECK_ACCOUNTS
// (125) account authorities for one required account; past that the
// authority fails even if a later member would approve.
func TestSignStateAccountLimit(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 48)
	fixed := []string{"initminer", "alice", "bob", "carol", "dave", "eve", "frank", "grace",
		"heidi", "ivan", "judy", "mallory", "oscar", "peggy", "trent", "victor", "walter"}
	var members []string
	for _, a := range c.result(t, "condenser_api.lookup_accounts", []any{"a", 200}).([]any) {
		if n := a.(string); !slices.Contains(fixed, n) && len(members) < 40 {
			members = append(members, n)
		}
	}
	if len(members) < 40 {
		t.Fatalf("only %d generated accounts", len(members))
	}
	forty := map[string]int{}
	for _, m := range members {
		forty[m] = 1
	}
	// alice lists bob, carol, dave and eve (in hived's name order); bob,
	// carol and dave each list 40 accounts that do not sign: 1 + 3·41 = 124
	// resolved, eve is the 125th and her first member would be the 126th.
	for _, a := range []string{"bob", "carol", "dave"} {
		setPosting(t, c, a, 1, nil, forty)
	}
	setPosting(t, c, "eve", 1, nil, map[string]int{"trent": 1})
	setPosting(t, c, "alice", 1, map[*hivetx.PrivateKey]int{hivesim.DemoKey("alice", "posting"): 1},
		map[string]int{"bob": 1, "carol": 1, "dave": 1, "eve": 1})
	refused(t, broadcast(t, c, signed(t, newTx(t, c, follows(t, "alice", "bob")), hivesim.DemoKey("trent", "posting"))),
		"tx_missing_posting_auth", "Missing Posting Authority alice")
	// With one list fewer, eve is reached and trent signs for alice.
	setPosting(t, c, "dave", 1, map[*hivetx.PrivateKey]int{hivesim.DemoKey("dave", "posting"): 1}, nil)
	if r := broadcast(t, c, signed(t, newTx(t, c, follows(t, "alice", "carol")), hivesim.DemoKey("trent", "posting"))); r.Error != nil {
		t.Fatalf("refused below the limit: %s", r.Error.Message)
	}
}

// follows is alice's follow of another account: a custom_json needing
// alice's posting authority and nothing on chain.
func follows(t *testing.T, follower, following string) hivetx.Operation {
	return mustOp(t, "custom_json", obj{"required_posting_auths": []any{follower}, "id": "follow",
		"json": `["follow",{"follower":"` + follower + `","following":"` + following + `","what":["blog"]}]`})
}
