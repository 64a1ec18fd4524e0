package server

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// hivedParams are the params each hived or HAfAH method accepts (issue 28
// item 4), from the current sources:
//   - named params: the members of the method's args struct, as its
//     FC_REFLECT lists them in openhive-network/hive 1.28.7 (1584099c3,
//     libraries/plugins/apis/*/include/hive/plugins/*/*_api{,_args}.hpp);
//     HAfAH (3141b0e6, postgrest/hafah_endpoints.sql) reads the same names
//     for account_history_api and block_api;
//   - condenser_api's positional params: "[min..max]", the element counts
//     its FC_ASSERT / CHECK_ARG_SIZE accepts (condenser_api.cpp); where
//     HAfAH serves the method too (get_ops_in_block, get_transaction,
//     get_account_history) it reads at least as many. condenser_api.enum_virtual_ops
//     is HAfAH's only (6ed49d4, the last commit before 8763e8c dropped it:
//     call_enum_virtual_ops reads positions 0..6).
//
// "" is a method without params ({} or []).
var hivedParams = map[string]string{
	"account_by_key_api.get_key_references":                "keys",
	"account_history_api.enum_virtual_ops":                 "block_range_begin block_range_end include_reversible group_by_block operation_begin limit filter",
	"account_history_api.get_account_history":              "account start limit include_reversible operation_filter_low operation_filter_high",
	"account_history_api.get_ops_in_block":                 "block_num only_virtual include_reversible",
	"account_history_api.get_transaction":                  "id include_reversible",
	"block_api.get_block":                                  "block_num",
	"block_api.get_block_header":                           "block_num",
	"block_api.get_block_range":                            "starting_block_num count",
	"database_api.find_account_recovery_requests":          "accounts",
	"database_api.find_accounts":                           "accounts delayed_votes_active",
	"database_api.find_change_recovery_account_requests":   "accounts",
	"database_api.find_collateralized_conversion_requests": "account",
	"database_api.find_decline_voting_rights_requests":     "accounts",
	"database_api.find_escrows":                            "from",
	"database_api.find_hbd_conversion_requests":            "account",
	"database_api.find_limit_orders":                       "account",
	"database_api.find_owner_histories":                    "owner",
	"database_api.find_proposals":                          "proposal_ids",
	"database_api.find_recurrent_transfers":                "from",
	"database_api.find_savings_withdrawals":                "account",
	"database_api.find_vesting_delegation_expirations":     "account",
	"database_api.find_vesting_delegations":                "account",
	"database_api.find_withdraw_vesting_routes":            "account order",
	"database_api.find_witnesses":                          "owners",
	"database_api.get_active_witnesses":                    "include_future",
	"database_api.get_comment_pending_payouts":             "comments",
	"database_api.get_config":                              "",
	"database_api.get_current_price_feed":                  "",
	"database_api.get_dynamic_global_properties":           "",
	"database_api.get_feed_history":                        "",
	"database_api.get_hardfork_properties":                 "",
	"database_api.get_order_book":                          "limit",
	"database_api.get_potential_signatures":                "trx",
	"database_api.get_required_signatures":                 "trx available_keys",
	"database_api.get_reward_funds":                        "",
	"database_api.get_transaction_hex":                     "trx",
	"database_api.get_version":                             "",
	"database_api.get_witness_schedule":                    "include_future",
	"database_api.is_known_transaction":                    "id",
	"database_api.list_account_recovery_requests":          "start limit order",
	"database_api.list_accounts":                           "start limit order delayed_votes_active",
	"database_api.list_change_recovery_account_requests":   "start limit order",
	"database_api.list_collateralized_conversion_requests": "start limit order",
	"database_api.list_decline_voting_rights_requests":     "start limit order",
	"database_api.list_escrows":                            "start limit order",
	"database_api.list_hbd_conversion_requests":            "start limit order",
	"database_api.list_limit_orders":                       "start limit order",
	"database_api.list_owner_histories":                    "start limit",
	"database_api.list_proposal_votes":                     "start limit order order_direction status last_id",
	"database_api.list_proposals":                          "start limit order order_direction status last_id",
	"database_api.list_savings_withdrawals":                "start limit order",
	"database_api.list_vesting_delegation_expirations":     "start limit order",
	"database_api.list_vesting_delegations":                "start limit order",
	"database_api.list_withdraw_vesting_routes":            "start limit order",
	"database_api.list_witness_votes":                      "start limit order",
	"database_api.list_witnesses":                          "start limit order",
	"database_api.verify_account_authority":                "account signers level",
	"database_api.verify_authority":                        "trx pack",
	"database_api.verify_signatures":                       "hash signatures required_owner required_active required_posting required_witness required_other",
	"market_history_api.get_market_history":                "bucket_seconds start end",
	"market_history_api.get_market_history_buckets":        "",
	"market_history_api.get_order_book":                    "limit",
	"market_history_api.get_recent_trades":                 "limit",
	"market_history_api.get_ticker":                        "",
	"market_history_api.get_trade_history":                 "start end limit",
	"market_history_api.get_volume":                        "",
	"rc_api.find_rc_accounts":                              "accounts",
	"rc_api.get_rc_operation_stats":                        "operation",
	"rc_api.get_rc_stats":                                  "",
	"rc_api.get_resource_params":                           "",
	"rc_api.get_resource_pool":                             "",
	"rc_api.list_rc_accounts":                              "start limit",
	"rc_api.list_rc_direct_delegations":                    "start limit",
	"reputation_api.get_account_reputations":               "account_lower_bound limit",
	"transaction_status_api.find_transaction":              "transaction_id expiration",
	"hive_api.get_version":                                 "", // HAfAH: hafah_endpoints.sql reads no params

	"condenser_api.enum_virtual_ops":                       "[2..7]", // HAfAH 6ed49d4 (2022), hafah_endpoints.sql: no current node
	"condenser_api.find_proposals":                         "[1..1]",
	"condenser_api.find_rc_accounts":                       "[1..1]",
	"condenser_api.find_recurrent_transfers":               "[1..1]",
	"condenser_api.get_account_count":                      "[0..0]",
	"condenser_api.get_account_history":                    "[3..5]",
	"condenser_api.get_accounts":                           "[1..2]",
	"condenser_api.get_active_witnesses":                   "[0..1]",
	"condenser_api.get_block":                              "[1..1]",
	"condenser_api.get_block_header":                       "[1..1]",
	"condenser_api.get_chain_properties":                   "[0..0]",
	"condenser_api.get_collateralized_conversion_requests": "[1..1]",
	"condenser_api.get_config":                             "[0..0]",
	"condenser_api.get_conversion_requests":                "[1..1]",
	"condenser_api.get_current_median_history_price":       "[0..0]",
	"condenser_api.get_dynamic_global_properties":          "[0..0]",
	"condenser_api.get_escrow":                             "[2..2]",
	"condenser_api.get_expiring_vesting_delegations":       "[2..3]",
	"condenser_api.get_feed_history":                       "[0..0]",
	"condenser_api.get_hardfork_version":                   "[0..0]",
	"condenser_api.get_key_references":                     "[1..1]",
	"condenser_api.get_market_history":                     "[3..3]",
	"condenser_api.get_market_history_buckets":             "[0..0]",
	"condenser_api.get_next_scheduled_hardfork":            "[0..0]",
	"condenser_api.get_open_orders":                        "[1..1]",
	"condenser_api.get_ops_in_block":                       "[1..2]",
	"condenser_api.get_order_book":                         "[0..1]",
	"condenser_api.get_owner_history":                      "[1..1]",
	"condenser_api.get_potential_signatures":               "[1..1]",
	"condenser_api.get_recent_trades":                      "[0..1]",
	"condenser_api.get_recovery_request":                   "[1..1]",
	"condenser_api.get_required_signatures":                "[2..2]",
	"condenser_api.get_reward_fund":                        "[1..1]",
	"condenser_api.get_savings_withdraw_from":              "[1..1]",
	"condenser_api.get_savings_withdraw_to":                "[1..1]",
	"condenser_api.get_ticker":                             "[0..0]",
	"condenser_api.get_trade_history":                      "[2..3]",
	"condenser_api.get_transaction":                        "[1..1]",
	"condenser_api.get_transaction_hex":                    "[1..1]",
	"condenser_api.get_version":                            "[0..0]",
	"condenser_api.get_vesting_delegations":                "[2..3]",
	"condenser_api.get_volume":                             "[0..0]",
	"condenser_api.get_withdraw_routes":                    "[1..2]",
	"condenser_api.get_witness_by_account":                 "[1..1]",
	"condenser_api.get_witness_count":                      "[0..0]",
	"condenser_api.get_witness_schedule":                   "[0..1]",
	"condenser_api.get_witnesses":                          "[1..1]",
	"condenser_api.get_witnesses_by_vote":                  "[2..2]",
	"condenser_api.is_known_transaction":                   "[1..1]",
	"condenser_api.list_proposal_votes":                    "[3..5]",
	"condenser_api.list_proposals":                         "[3..6]",
	"condenser_api.list_rc_accounts":                       "[2..2]",
	"condenser_api.list_rc_direct_delegations":             "[2..2]",
	"condenser_api.lookup_account_names":                   "[1..2]",
	"condenser_api.lookup_accounts":                        "[2..2]",
	"condenser_api.lookup_witness_accounts":                "[2..2]",
	"condenser_api.verify_account_authority":               "[2..3]",
	"condenser_api.verify_authority":                       "[1..1]",
}

// TestHivedParamsAccepted builds every typed request of a hived or HAfAH
// method twice, empty and with every singular field set, and checks that
// its params hold only what the node accepts: named params only the args
// struct's members, positional params an element count the node accepts.
// An empty request that would send fewer positional params than the node
// needs is refused before any call (a required field, typed_plan.go's
// planRequired, or a positional hole): on 7109886 condenser_api's
// get_market_history, get_trade_history, get_transaction_hex,
// get_potential_signatures and verify_authority sent too few.
func TestHivedParamsAccepted(t *testing.T) {
	t.Parallel()
	methods := plannedMethods(t)
	for method, spec := range hivedParams {
		tm := methods[method]
		if tm == nil {
			t.Errorf("%s: no typed RPC", method)
			continue
		}
		for _, filled := range []bool{false, true} {
			req := tm.Request.New()
			if filled {
				fillEvery(req)
			}
			params, _, err := tm.prepare(req)
			if err != nil {
				if filled || connect.CodeOf(err) != connect.CodeInvalidArgument {
					t.Errorf("%s: filled %v: %v", method, filled, err)
				}
				continue
			}
			if lo, hi, ok := arity(spec); ok {
				checkPositionalCount(t, method, params, lo, hi)
			} else {
				checkNamed(t, method, params, strings.Fields(spec))
			}
		}
	}
	// Every typed method a hived or HAfAH node serves is in the table.
	for name := range methods {
		if _, ok := hivedParams[name]; ok || !servedByHived(name) {
			continue
		}
		t.Errorf("%s: a hived or HAfAH method missing from hivedParams", name)
	}
}

// servedByHived reports a JSON-RPC method that hived or HAfAH serves on a
// current API node (the others are hivemind's, or served by none).
func servedByHived(method string) bool {
	api, name, _ := strings.Cut(method, ".")
	if _, ok := hivemindParams[method]; ok {
		return false
	}
	switch api {
	case "bridge", "follow_api", "tags_api", "search_api", "hive":
		return false
	case "database_api":
		// hivemind serves find_comments (and list_votes, find_votes);
		// no current node serves list_comments or the SMT lists.
		return !strings.HasPrefix(name, "list_smt_") && name != "list_comments" && name != "find_comments"
	case "condenser_api":
		// hivemind's condenser_api methods (hivemind's
		// get_condenser_api_method, cab9e32).
		switch name {
		case "get_follow_count", "get_reblogged_by", "get_trending_tags", "get_state", "get_account_reputations",
			"get_blog", "get_blog_entries", "get_content", "get_content_replies", "get_followers", "get_following",
			"get_active_votes", "get_discussions_by_author_before_date", "get_replies_by_last_update",
			"get_feed", "get_feed_entries", "get_discussions_by_promoted":
			return false
		}
	}
	return true
}

// arity parses "[lo..hi]".
func arity(spec string) (lo, hi int, ok bool) {
	inner, ok := strings.CutPrefix(spec, "[")
	if !ok {
		return 0, 0, false
	}
	inner = strings.TrimSuffix(inner, "]")
	a, b, _ := strings.Cut(inner, "..")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	return lo, hi, err1 == nil && err2 == nil
}

// checkNamed checks that params is an object whose keys are all accepted.
func checkNamed(t *testing.T, method string, params json.RawMessage, accepted []string) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(params, &obj); err != nil {
		t.Errorf("%s: params %s are not an object", method, params)
		return
	}
	var extra []string
	for k := range obj {
		if !slices.Contains(accepted, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s: sends %q, which the node's args do not have (params %s)", method, extra, params)
	}
}

// checkPositionalCount checks a positional params array's length.
func checkPositionalCount(t *testing.T, method string, params json.RawMessage, lo, hi int) {
	t.Helper()
	var arr []json.RawMessage
	if err := json.Unmarshal(params, &arr); err != nil {
		t.Errorf("%s: params %s are not an array", method, params)
		return
	}
	n := len(arr)
	if n > hi {
		t.Errorf("%s: sends %d params, the node takes at most %d (params %s)", method, n, hi, params)
	}
	if n < lo {
		t.Errorf("%s: sends %d params, the node needs at least %d (params %s)", method, n, lo, params)
	}
}

// fillEvery sets every singular field of m outside a oneof: scalars as
// fillAll does (and a tag), times to a fixed time, other messages to an
// empty message; a request's start and the page state (skip) stay unset,
// since they are checked by the paging tests.
func fillEvery(m protoreflect.Message) {
	fillAll(m, true)
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() || fd.IsMap() || fd.Kind() != protoreflect.MessageKind || fd.Name() == "start" ||
			fd.ContainingOneof() != nil && !fd.ContainingOneof().IsSynthetic() || m.Has(fd) {
			continue
		}
		if fd.Message().FullName() == "google.protobuf.Timestamp" {
			m.Set(fd, protoreflect.ValueOfMessage((&timestamppb.Timestamp{Seconds: 1700000000}).ProtoReflect()))
			continue
		}
		m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
	}
}
