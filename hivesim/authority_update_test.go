package hivesim_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

// postingAuthority is an authority object of n demo keys and the accounts.
func postingAuthority(threshold, n int, accounts ...string) obj {
	ka := []any{}
	for i := range n {
		ka = append(ka, []any{hivesim.DemoKey("k"+strconv.Itoa(i), "posting").PublicKey().String(), json.Number("1")})
	}
	aa := []any{}
	for _, a := range accounts {
		aa = append(aa, []any{a, json.Number("1")})
	}
	return obj{"weight_threshold": json.Number(strconv.Itoa(threshold)), "account_auths": aa, "key_auths": ka}
}

// TestAccountUpdateAuthorityChecks: the node refuses an account_update or
// account_update2 as hived's evaluators do: a new authority of more than
// HIVE_MAX_AUTHORITY_MEMBERSHIP (40) entries (validate_auth_size), or one
// naming an account that does not exist (verify_authority_accounts_exist);
// 40 entries are accepted.
func TestAccountUpdateAuthorityChecks(t *testing.T) {
	t.Parallel()
	memo := hivesim.DemoKey("alice", "memo").PublicKey().String()
	update := func(role string, auth obj) obj {
		return obj{"account": "alice", role: auth, "memo_key": memo, "json_metadata": ""}
	}
	for _, tc := range []struct {
		name, op string
		fields   obj
		message  string // "" for accepted
	}{
		{"41 posting entries", "account_update", update("posting", postingAuthority(1, 40, "bob")),
			"size <= HIVE_MAX_AUTHORITY_MEMBERSHIP: Authority membership exceeded. Max: 40 Current: 41"},
		{"41 active entries (update2)", "account_update2", update("active", postingAuthority(1, 41)),
			"size <= HIVE_MAX_AUTHORITY_MEMBERSHIP: Authority membership exceeded. Max: 40 Current: 41"},
		{"40 entries", "account_update", update("posting", postingAuthority(1, 39, "bob")), ""},
		{"a posting member that does not exist", "account_update", update("posting", postingAuthority(1, 1, "bob", "nobody-here")),
			"a != nullptr: New posting authority on account alice references non-existing account nobody-here"},
		{"an active member that does not exist (update2)", "account_update2", update("active", postingAuthority(1, 1, "nobody-here")),
			"a != nullptr: New active authority on account alice references non-existing account nobody-here"},
		{"members that exist", "account_update2", update("posting", postingAuthority(1, 1, "bob", "carol")), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c, _ := testNode(t, 52)
			tx := signed(t, newTx(t, c, mustOp(t, tc.op, tc.fields)), hivesim.DemoKey("alice", "active"))
			r := broadcast(t, c, tx)
			if tc.message == "" {
				if r.Error != nil {
					t.Fatalf("refused: %s", r.Error.Message)
				}
				return
			}
			refused(t, r, "assert_exception", tc.message)
			// Nothing changed: alice's own posting key still signs alone.
			if r := broadcast(t, c, signed(t, newTx(t, c, follows(t, "alice", "carol")), postingKey("alice"))); r.Error != nil {
				t.Fatalf("after the refused update: %s", r.Error.Message)
			}
		})
	}
}
