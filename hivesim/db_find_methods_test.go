package hivesim_test

import "testing"

// TestFindUnknownAccount checks each database_api find_* that takes one
// account against hived 1.28.7 (libraries/plugins/apis/database_api/
// database_api_{accounts,financial}.cpp). Five resolve the account with
// _db.find_account and FC_ASSERT it exists, so an unknown name is refused
// with -32003 "Assert Exception:<expr>: <message>"; the others look the name
// up in an index and answer an empty list. An existing account is answered
// by every one.
func TestFindUnknownAccount(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 7)
	existing := n.Accounts()[0].Name
	const unknown = "nobody-here"
	cases := []struct {
		method string
		member string // the account's member of the args
		key    string // the result's list
		extra  obj    // other args
		// err is hived's assert message for an unknown account; "" when
		// hived answers an empty list.
		err string
	}{
		// find_account( args.account ); FC_ASSERT( delegator != nullptr, ... )
		{"database_api.find_vesting_delegations", "account", "delegations", nil,
			"Assert Exception:delegator != nullptr: Given account does not exist."},
		{"database_api.find_vesting_delegation_expirations", "account", "delegations", nil,
			"Assert Exception:delegator != nullptr: Given account does not exist."},
		// find_account( args.account ); FC_ASSERT( owner != nullptr, ... )
		{"database_api.find_hbd_conversion_requests", "account", "requests", nil,
			"Assert Exception:owner != nullptr: Given account does not exist."},
		{"database_api.find_collateralized_conversion_requests", "account", "requests", nil,
			"Assert Exception:owner != nullptr: Given account does not exist."},
		// find_account( args.from ); FC_ASSERT( from_account != nullptr, ... )
		{"database_api.find_recurrent_transfers", "from", "recurrent_transfers", nil,
			"Assert Exception:from_account != nullptr: Given 'from' account does not exist."},
		// lower_bound( name ) on an index keyed by name: empty.
		{"database_api.find_owner_histories", "owner", "owner_auths", nil, ""},
		{"database_api.find_escrows", "from", "escrows", nil, ""},
		{"database_api.find_savings_withdrawals", "account", "withdrawals", nil, ""},
		{"database_api.find_limit_orders", "account", "orders", nil, ""},
		{"database_api.find_withdraw_vesting_routes", "account", "routes", obj{"order": "by_withdraw_route"}, ""},
		{"database_api.find_withdraw_vesting_routes", "account", "routes", obj{"order": "by_destination"}, ""},
		// _db.find<>( name ) per name, unknown names skipped: empty.
		{"database_api.find_account_recovery_requests", "accounts", "requests", nil, ""},
		{"database_api.find_change_recovery_account_requests", "accounts", "requests", nil, ""},
		{"database_api.find_decline_voting_rights_requests", "accounts", "requests", nil, ""},
		{"database_api.find_witnesses", "owners", "witnesses", nil, ""},
	}
	for _, tt := range cases {
		params := func(name string) obj {
			p := obj{}
			for k, v := range tt.extra {
				p[k] = v
			}
			if tt.member == "accounts" || tt.member == "owners" {
				p[tt.member] = []any{name}
			} else {
				p[tt.member] = name
			}
			return p
		}
		if tt.err != "" {
			c.expectError(t, tt.method, params(unknown), -32003, tt.err)
		} else if got := items(t, c.result(t, tt.method, params(unknown)), tt.key); len(got) != 0 {
			t.Errorf("%s %s: %d rows, want none (hived answers an empty list)", tt.method, unknown, len(got))
		}
		// An existing account is answered, whatever it owns.
		items(t, c.result(t, tt.method, params(existing)), tt.key)
	}
}

// TestCondenserUnknownAccount checks condenser_api's one-account lists
// against hived 1.28.7's condenser_api.cpp: the three that call one of the
// resolving finds above refuse an unknown account as that find does (a
// recorded mainnet answer, fixtures' condenser_api.get_conversion_requests,
// shows "owner != nullptr" for an unknown name); the ones reading an index
// answer an empty array.
func TestCondenserUnknownAccount(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 7)
	existing := n.Accounts()[0].Name
	const unknown = "nobody-here"
	cases := []struct{ method, err string }{
		{"condenser_api.get_conversion_requests", "Assert Exception:owner != nullptr: Given account does not exist."},
		{"condenser_api.get_collateralized_conversion_requests",
			"Assert Exception:owner != nullptr: Given account does not exist."},
		{"condenser_api.find_recurrent_transfers",
			"Assert Exception:from_account != nullptr: Given 'from' account does not exist."},
		{"condenser_api.get_owner_history", ""},
		{"condenser_api.get_savings_withdraw_from", ""},
		{"condenser_api.get_savings_withdraw_to", ""},
		{"condenser_api.get_open_orders", ""},
	}
	for _, tt := range cases {
		if tt.err != "" {
			c.expectError(t, tt.method, []any{unknown}, -32003, tt.err)
		} else if got, ok := c.result(t, tt.method, []any{unknown}).([]any); !ok || len(got) != 0 {
			t.Errorf("%s %s: %v, want an empty array (hived reads an index)", tt.method, unknown, got)
		}
		if _, ok := c.result(t, tt.method, []any{existing}).([]any); !ok {
			t.Errorf("%s %s: not an array", tt.method, existing)
		}
	}
}
