package server

import (
	"encoding/json"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"

	ahv1 "github.com/hivegate/hivegate/gen/hive/account_history_api/v1"
	blockv1 "github.com/hivegate/hivegate/gen/hive/block_api/v1"
	bridgev1 "github.com/hivegate/hivegate/gen/hive/bridge/v1"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	mhv1 "github.com/hivegate/hivegate/gen/hive/market_history_api/v1"
	rcv1 "github.com/hivegate/hivegate/gen/hive/rc_api/v1"
	tagsv1 "github.com/hivegate/hivegate/gen/hive/tags_api/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
	"github.com/hivegate/hivegate/server/transcode"
)

// plannedMethods plans every typed method of the registry.
func plannedMethods(t testing.TB) map[string]*typedMethod {
	t.Helper()
	reg, err := transcode.NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatal(err)
	}
	methods, err := planMethods(reg)
	if err != nil {
		t.Fatalf("planMethods: %v", err)
	}
	out := map[string]*typedMethod{}
	for _, tm := range methods {
		out[tm.JSONRPC] = tm
	}
	return out
}

// TestPlanEveryMethod checks that the schema's paging options are complete:
// every typed method plans, every list response with next_start has a
// cursor for every order, and every paged request has a limit maximum.
func TestPlanEveryMethod(t *testing.T) {
	t.Parallel()
	methods := plannedMethods(t)
	if len(methods) < 40 {
		t.Fatalf("only %d typed methods planned", len(methods))
	}
	for name, tm := range methods {
		if tm.next != nil {
			if tm.nextPlain == nil && len(tm.nextCases) != len(tm.cases) {
				t.Errorf("%s: next_start has %d cases for %d orders", name, len(tm.nextCases), len(tm.cases))
			}
			if tm.limit == nil {
				t.Errorf("%s: a paged method without (hivegate.v1.limit_max)", name)
			}
		}
		if tm.order != nil && len(tm.cases) == 0 {
			t.Errorf("%s: order without start cases", name)
		}
	}
}

// TestPrepareParams checks the JSON-RPC params a typed request becomes:
// defaults, first pages, positional cursors and the order taken from the
// start's case.
func TestPrepareParams(t *testing.T) {
	t.Parallel()
	methods := plannedMethods(t)
	tests := []struct {
		name   string
		method string
		req    proto.Message
		want   string
	}{
		{"by_name minimal start", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(10), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME},
			`{"limit":10,"order":"by_name","start":""}`},
		{"order from the start's case", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(2), Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByProxy_{ByProxy: &dbv1.ListAccountsStart_ByProxy{Proxy: "a", Account: "b"}}}},
			`{"limit":2,"order":"by_proxy","start":["a","b"]}`},
		{"minimal time cursor", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(1), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NEXT_VESTING_WITHDRAWAL, DelayedVotesActive: proto.Bool(false)},
			`{"limit":1,"order":"by_next_vesting_withdrawal","start":["1970-01-01T00:00:00"],"delayed_votes_active":false}`},
		{"descending index first page", "database_api.list_witnesses",
			&dbv1.ListWitnessesRequest{Limit: proto.Uint32(5), Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_VOTE_NAME},
			`{"limit":5,"order":"by_vote_name","start":["9223372036854775807",""]}`},
		{"empty-array first page", "database_api.list_limit_orders",
			&dbv1.ListLimitOrdersRequest{Limit: proto.Uint32(5), Order: dbv1.ListLimitOrdersOrder_LIST_LIMIT_ORDERS_ORDER_BY_PRICE},
			`{"limit":5,"order":"by_price","start":[]}`},
		{"single order implied", "database_api.list_vesting_delegations",
			&dbv1.ListVestingDelegationsRequest{Limit: proto.Uint32(3)},
			`{"limit":3,"order":"by_delegation","start":["",""]}`},
		{"no order: the tuple itself", "database_api.list_owner_histories",
			&dbv1.ListOwnerHistoriesRequest{Limit: proto.Uint32(3)},
			`{"limit":3,"start":["","1970-01-01T00:00:00"]}`},
		{"unset time inside a tuple is the epoch", "database_api.list_savings_withdrawals",
			&dbv1.ListSavingsWithdrawalsRequest{Limit: proto.Uint32(3), Start: &dbv1.ListSavingsWithdrawalsStart{Start: &dbv1.ListSavingsWithdrawalsStart_ByCompleteFromId_{ByCompleteFromId: &dbv1.ListSavingsWithdrawalsStart_ByCompleteFromId{FromAccount: "x", RequestId: 2}}}},
			`{"limit":3,"order":"by_complete_from_id","start":["1970-01-01T00:00:00","x",2]}`},
		{"proposals first page", "database_api.list_proposals",
			&dbv1.ListProposalsRequest{Limit: proto.Uint32(3), Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_START_DATE, OrderDirection: dbv1.OrderDirection_ORDER_DIRECTION_DESCENDING},
			`{"limit":3,"order":"by_start_date","order_direction":"descending","start":[]}`},
		{"condenser follow_type default", "condenser_api.get_followers",
			&condv1.GetFollowersRequest{Account: "alice", Limit: proto.Uint32(10)},
			`["alice","","blog",10]`},
		{"account history", "account_history_api.get_account_history",
			&ahv1.GetAccountHistoryRequest{Account: "alice", Start: proto.Int64(-1), Limit: proto.Uint32(1000)},
			`{"account":"alice","start":-1,"limit":1000}`},
		{"block range count", "block_api.get_block_range",
			&blockv1.GetBlockRangeRequest{StartingBlockNum: 5, Count: proto.Uint32(2)},
			`{"starting_block_num":5,"count":2}`},
		// Issue 28 item 4: hived's get_order_book_args is {limit} alone
		// (hived 1.28.7); base and quote are not sent.
		{"order book: limit only", "database_api.get_order_book",
			&dbv1.GetOrderBookRequest{Limit: proto.Uint32(10)},
			`{"limit":10}`},
		// Issue 28 item 3: block_num -1 is expressible (hived and HAfAH
		// answer it with no block).
		{"block_num -1", "block_api.get_block",
			&blockv1.GetBlockRequest{BlockNum: -1},
			`{"block_num":-1}`},
		// Issue 28 item 4: an unset limit is hived's own default, left to
		// the node (condenser_api.cpp: 100 for vesting delegations, 1000
		// for trades; market_history_api: 500 orders, 1000 trades; HAfAH's
		// enum_virtual_ops: 150000), as hived's pattern tests send them.
		{"vesting delegations: hived's default 100", "condenser_api.get_vesting_delegations",
			&condv1.GetVestingDelegationsRequest{Delegator: "alice"},
			`["alice",""]`},
		{"expiring delegations: hived's default 100", "condenser_api.get_expiring_vesting_delegations",
			&condv1.GetExpiringVestingDelegationsRequest{Account: "duplibot"},
			`["duplibot","1970-01-01T00:00:00"]`},
		{"recent trades: hived's default", "condenser_api.get_recent_trades",
			&condv1.GetRecentTradesRequest{},
			`[]`},
		{"market order book: hived's default", "market_history_api.get_order_book",
			&mhv1.GetOrderBookRequest{},
			`{}`},
		{"virtual ops: HAfAH's default", "account_history_api.enum_virtual_ops",
			&ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 6},
			`{"block_range_begin":1,"block_range_end":6}`},
		// Issue 28 item 3: -1 where hived and HAfAH take it. A filter of
		// all ones is hived's -1 (uint64) and HAfAH's (numeric_to_bigint).
		{"ops in block -1", "account_history_api.get_ops_in_block",
			&ahv1.GetOpsInBlockRequest{BlockNum: -1},
			`{"block_num":-1,"only_virtual":false}`},
		{"condenser ops in block -1", "condenser_api.get_ops_in_block",
			&condv1.GetOpsInBlockRequest{BlockNum: -1},
			`[-1]`},
		{"block header -1", "block_api.get_block_header",
			&blockv1.GetBlockHeaderRequest{BlockNum: -1},
			`{"block_num":-1}`},
		{"block range from -1", "block_api.get_block_range",
			&blockv1.GetBlockRangeRequest{StartingBlockNum: -1, Count: proto.Uint32(1000)},
			`{"starting_block_num":-1,"count":1000}`},
		{"history filters -1", "account_history_api.get_account_history",
			&ahv1.GetAccountHistoryRequest{Account: "gtg", Start: proto.Int64(50), Limit: proto.Uint32(30), OperationFilterLow: proto.Uint64(1<<64 - 1), OperationFilterHigh: proto.Uint64(1<<64 - 1)},
			`{"account":"gtg","start":50,"limit":30,"operation_filter_low":"18446744073709551615","operation_filter_high":"18446744073709551615"}`},
		{"virtual ops filter -1", "account_history_api.enum_virtual_ops",
			&ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 3744646, BlockRangeEnd: 3744647, Limit: proto.Uint32(1000), Filter: proto.Uint64(1<<64 - 1)},
			`{"block_range_begin":3744646,"block_range_end":3744647,"limit":1000,"filter":"18446744073709551615"}`},
		// Issue 28 item 2: an unset limit is the node's default. hived's
		// list_* have none: hivegate sends the maximum.
		{"unset limit, no node default", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME},
			`{"limit":1000,"order":"by_name","start":""}`},
		// hivemind has a default (limit_default): the params leave it out.
		{"unset limit, node default", "condenser_api.get_followers",
			&condv1.GetFollowersRequest{Account: "steemit"},
			`["steemit","","blog"]`},
		// Issue 28 item 3: an unset history start is -1, the newest entry.
		{"history start unset", "account_history_api.get_account_history",
			&ahv1.GetAccountHistoryRequest{Account: "alice", Limit: proto.Uint32(10)},
			`{"account":"alice","start":-1,"limit":10}`},
		// Near the oldest entry the page size sent stops at entry 0.
		{"history near entry 0", "account_history_api.get_account_history",
			&ahv1.GetAccountHistoryRequest{Account: "alice", Start: proto.Int64(5), Limit: proto.Uint32(10)},
			`{"account":"alice","start":5,"limit":6}`},
		// An inclusive start's skip: the node is asked for limit + skip
		// items, and skip is never sent.
		{"skip asks for more", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(10), Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByName_{ByName: &dbv1.ListAccountsStart_ByName{Account: "bob"}}, Skip: proto.Uint32(1)}},
			`{"limit":11,"order":"by_name","start":"bob"}`},
		{"skip at the maximum", "condenser_api.get_trade_history",
			&condv1.GetTradeHistoryRequest{Start: &timestamppb.Timestamp{}, End: &timestamppb.Timestamp{Seconds: 60}, Limit: proto.Uint32(1000), Skip: proto.Uint32(3)},
			`["1970-01-01T00:00:00","1970-01-01T00:01:00",1000]`},
		{"cursor message copied as given", "database_api.list_limit_orders",
			&dbv1.ListLimitOrdersRequest{Limit: proto.Uint32(5), Start: &dbv1.ListLimitOrdersStart{Start: &dbv1.ListLimitOrdersStart_ByPrice_{ByPrice: &dbv1.ListLimitOrdersStart_ByPrice{
				SellPrice: &typesv1.Price{Base: &typesv1.Asset{Amount: 1, Precision: 3, Nai: "@@000000021"}, Quote: &typesv1.Asset{Amount: 2, Precision: 3, Nai: "@@000000013"}}, Id: 7}}}},
			`{"limit":5,"order":"by_price","start":[{"base":{"amount":"1","precision":3,"nai":"@@000000021"},"quote":{"amount":"2","precision":3,"nai":"@@000000013"}},7]}`},
		{"positional first page spliced", "condenser_api.list_proposals",
			&condv1.ListProposalsRequest{Limit: proto.Uint32(10), Order: condv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_CREATOR},
			`[[],10,"by_creator","ascending","all"]`},
		{"positional cursor given", "condenser_api.list_proposal_votes",
			&condv1.ListProposalVotesRequest{Limit: proto.Uint32(10), Start: &condv1.ListProposalVotesStart{Start: &condv1.ListProposalVotesStart_ByProposalVoter_{ByProposalVoter: &condv1.ListProposalVotesStart_ByProposalVoter{ProposalId: proto.Int64(4)}}},
				OrderDirection: condv1.OrderDirection_ORDER_DIRECTION_DESCENDING},
			`[[4],10,"by_proposal_voter","descending","all"]`},
		{"discussion query", "condenser_api.get_discussions_by_trending",
			&condv1.GetDiscussionsByTrendingRequest{Query: &typesv1.DiscussionQuery{Tag: proto.String("hive"), Limit: proto.Uint32(5)}},
			`[{"tag":"hive","limit":5,"truncate_body":0,"start_author":"","start_permlink":""}]`},
		// Issue 28 item 6: the methods older nodes serve. The promoted
		// lists send what hivemind 1.27 read (the trending query); the
		// condenser form of enum_virtual_ops sends HAfAH's positions
		// (6ed49d4: begin, end, operation_begin, limit, filter,
		// include_reversible, group_by_block), operation_begin 0 when
		// unset so that a limit can follow it.
		{"promoted discussion query", "condenser_api.get_discussions_by_promoted",
			&condv1.GetDiscussionsByPromotedRequest{Query: &typesv1.DiscussionQuery{Tag: proto.String("hive"), Limit: proto.Uint32(5)}},
			`[{"tag":"hive","limit":5,"truncate_body":0,"start_author":"","start_permlink":""}]`},
		{"promoted, tags_api", "tags_api.get_discussions_by_promoted",
			&tagsv1.GetDiscussionsByPromotedRequest{StartAuthor: "alice", StartPermlink: "p", Observer: proto.String("bob")},
			`{"truncate_body":0,"start_author":"alice","start_permlink":"p","observer":"bob"}`},
		{"condenser virtual ops: HAfAH's defaults", "condenser_api.enum_virtual_ops",
			&condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 6},
			`[1,6,0]`},
		{"condenser virtual ops: a page", "condenser_api.enum_virtual_ops",
			&condv1.EnumVirtualOpsRequest{BlockRangeBegin: 3744646, BlockRangeEnd: 3744647, Limit: proto.Uint32(1000)},
			`[3744646,3744647,0,1000]`},
		{"condenser virtual ops: filter -1", "condenser_api.enum_virtual_ops",
			&condv1.EnumVirtualOpsRequest{BlockRangeBegin: 3744646, BlockRangeEnd: 3744647, Limit: proto.Uint32(1000), Filter: proto.Uint64(1<<64 - 1)},
			`[3744646,3744647,0,1000,"18446744073709551615"]`},
		{"condenser virtual ops: every field", "condenser_api.enum_virtual_ops",
			&condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, OperationBegin: proto.Uint64(64), Limit: proto.Uint32(7), Filter: proto.Uint64(0x4000), IncludeReversible: proto.Bool(true), GroupByBlock: proto.Bool(false)},
			`[1,100,64,7,16384,true,false]`},
		{"an order without a start is a plain parameter", "database_api.find_withdraw_vesting_routes",
			&dbv1.FindWithdrawVestingRoutesRequest{Account: "a", Order: dbv1.FindWithdrawVestingRoutesOrder_FIND_WITHDRAW_VESTING_ROUTES_ORDER_BY_DESTINATION},
			`{"account":"a","order":"by_destination"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tm := methods[tt.method]
			if tm == nil {
				t.Fatalf("no typed method %s", tt.method)
			}
			got, _, err := tm.prepare(tt.req.ProtoReflect())
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			if !jsonEqual(t, got, []byte(tt.want)) {
				t.Errorf("params = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestPrepareInvalid checks that invalid typed requests are rejected as
// invalid_argument with a message naming the field.
func TestPrepareInvalid(t *testing.T) {
	t.Parallel()
	methods := plannedMethods(t)
	byProxy := &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByProxy_{ByProxy: &dbv1.ListAccountsStart_ByProxy{}}}
	tests := []struct {
		name   string
		method string
		req    proto.Message
		want   string
	}{
		{"limit zero", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(0), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, "limit: must be 1..1000, got 0"},
		{"limit too big", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(1001), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, "limit: must be 1..1000, got 1001"},
		{"blog limit", "condenser_api.get_blog",
			&condv1.GetBlogRequest{Account: "a", Limit: proto.Uint32(21)}, "limit: must be 1..20, got 21"},
		{"trending tags limit", "condenser_api.get_trending_tags",
			&condv1.GetTrendingTagsRequest{Limit: proto.Uint32(251)}, "limit: must be 1..250, got 251"},
		{"block range count", "block_api.get_block_range",
			&blockv1.GetBlockRangeRequest{StartingBlockNum: 1, Count: proto.Uint32(0)}, "count: must be 1..1000, got 0"},
		{"limit inside the discussion query", "condenser_api.get_discussions_by_created",
			&condv1.GetDiscussionsByCreatedRequest{Query: &typesv1.DiscussionQuery{Limit: proto.Uint32(21)}}, "query.limit: must be 1..20, got 21"},
		{"zero limit inside the discussion query", "condenser_api.get_discussions_by_created",
			&condv1.GetDiscussionsByCreatedRequest{Query: &typesv1.DiscussionQuery{Limit: proto.Uint32(0)}}, "query.limit: must be 1..20, got 0"},
		{"skip of a whole page", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME, Start: &dbv1.ListAccountsStart{Skip: proto.Uint32(1000)}},
			"skip: must be below 1000, got 1000"},
		{"bridge posts limit", "bridge.get_ranked_posts",
			&bridgev1.GetRankedPostsRequest{Sort: bridgev1.RankedPostsSort_RANKED_POSTS_SORT_TRENDING, Limit: proto.Uint32(21)}, "limit: must be 1..20, got 21"},
		{"case of another order", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(1), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME, Start: byProxy},
			"start: case by_proxy does not match order LIST_ACCOUNTS_ORDER_BY_NAME"},
		{"no order, no start", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(1)}, "order: must be set"},
		{"unknown order", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(1), Order: 42}, "order: unknown value 42"},
		{"history start below limit-1", "account_history_api.get_account_history",
			&ahv1.GetAccountHistoryRequest{Account: "a", Start: proto.Int64(-2), Limit: proto.Uint32(10)}, "start: must be -1 (the newest entry) or a sequence number, got -2"},
		{"positional hole", "condenser_api.get_account_history",
			&condv1.GetAccountHistoryRequest{Account: "a", Start: proto.Int64(-1), Limit: proto.Uint32(10), OperationFilterHigh: proto.Uint64(1)},
			"operation_filter_low: must be set when operation_filter_high is set"},
		{"condenser virtual ops: positional hole", "condenser_api.enum_virtual_ops",
			&condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 6, GroupByBlock: proto.Bool(true)},
			"limit: must be set when group_by_block is set"},
		{"cursor hole", "database_api.list_proposals",
			&dbv1.ListProposalsRequest{Limit: proto.Uint32(1), Start: &dbv1.ListProposalsStart{Start: &dbv1.ListProposalsStart_ByCreator_{ByCreator: &dbv1.ListProposalsStart_ByCreator{ProposalId: proto.Int64(3)}}}},
			"start.by_creator.creator: must be set when proposal_id is set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := methods[tt.method].prepare(tt.req.ProtoReflect())
			if err == nil {
				t.Fatalf("prepare accepted the request")
			}
			if connect.CodeOf(err) != connect.CodeInvalidArgument {
				t.Errorf("code = %v, want invalid_argument", connect.CodeOf(err))
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// TestNextStart checks next_start built from items through the schema's
// item_field options, including the computed escrow element, first-item
// cursors with an offset and the last-page marker.
func TestNextStart(t *testing.T) {
	t.Parallel()
	methods := plannedMethods(t)
	tests := []struct {
		name   string
		method string
		req    proto.Message
		result string // hived JSON
		want   string // next_start as hived JSON, "" for unset
	}{
		{"accounts by_proxy", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(2), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_PROXY},
			`{"accounts":[{"name":"a","proxy":""},{"name":"b","proxy":"p"}]}`, `["p","b"]`},
		{"empty page", "database_api.list_accounts",
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(2), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME},
			`{"accounts":[]}`, ``},
		{"escrow is_approved computed", "database_api.list_escrows",
			&dbv1.ListEscrowsRequest{Limit: proto.Uint32(2), Order: dbv1.ListEscrowsOrder_LIST_ESCROWS_ORDER_BY_RATIFICATION_DEADLINE},
			`{"escrows":[{"id":4,"to_approved":true,"agent_approved":true,"ratification_deadline":"2020-01-01T00:00:00"}]}`,
			`[true,"2020-01-01T00:00:00",4]`},
		{"proposal votes nested path", "database_api.list_proposal_votes",
			&dbv1.ListProposalVotesRequest{Limit: proto.Uint32(2), Order: dbv1.ListProposalVotesOrder_LIST_PROPOSAL_VOTES_ORDER_BY_PROPOSAL_VOTER},
			`{"proposal_votes":[{"id":1,"voter":"v","proposal":{"proposal_id":9}}]}`, `[9,"v"]`},
		{"account history counts down", "condenser_api.get_account_history",
			&condv1.GetAccountHistoryRequest{Account: "a", Start: proto.Int64(-1), Limit: proto.Uint32(2)},
			`[[10,{"block":1}],[11,{"block":2}]]`, `{"start":9}`},
		{"account history reaches 0", "condenser_api.get_account_history",
			&condv1.GetAccountHistoryRequest{Account: "a", Start: proto.Int64(1), Limit: proto.Uint32(2)},
			`[[0,{"block":1}],[1,{"block":2}]]`, ``},
		{"blog ends at entry 0", "condenser_api.get_blog_entries",
			&condv1.GetBlogEntriesRequest{Account: "a", Limit: proto.Uint32(2)},
			`[{"entry_id":1},{"entry_id":0}]`, ``},
		{"blog continues", "condenser_api.get_blog_entries",
			&condv1.GetBlogEntriesRequest{Account: "a", Limit: proto.Uint32(2)},
			`[{"entry_id":5},{"entry_id":4}]`, `{"start_entry_id":4}`},
		{"virtual ops: the backend's next cursor", "account_history_api.enum_virtual_ops",
			&ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, Limit: proto.Uint32(2)},
			`{"ops":[{"block":3},{"block":7}],"ops_by_block":[],"next_block_range_begin":50,"next_operation_begin":"9007199254740993"}`,
			`{"block_range_begin":50,"operation_begin":"9007199254740993"}`},
		{"virtual ops: grouped, cursor without items", "account_history_api.enum_virtual_ops",
			&ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, Limit: proto.Uint32(2), GroupByBlock: proto.Bool(true)},
			`{"ops":[],"ops_by_block":[{"block":3,"ops":[]}],"next_block_range_begin":3,"next_operation_begin":12}`,
			`{"block_range_begin":3,"operation_begin":12}`},
		{"virtual ops: range reached", "account_history_api.enum_virtual_ops",
			&ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, Limit: proto.Uint32(2)},
			`{"ops":[{"block":3}],"ops_by_block":[],"next_block_range_begin":120,"next_operation_begin":77}`, ``},
		{"virtual ops: range past the head", "account_history_api.enum_virtual_ops",
			&ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, Limit: proto.Uint32(2)},
			`{"ops":[],"ops_by_block":[],"next_block_range_begin":0,"next_operation_begin":0}`, ``},
		{"condenser virtual ops: the backend's next cursor", "condenser_api.enum_virtual_ops",
			&condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, Limit: proto.Uint32(2)},
			`{"ops":[{"block":3},{"block":7}],"ops_by_block":[],"next_block_range_begin":50,"next_operation_begin":3200}`,
			`{"block_range_begin":50,"operation_begin":3200}`},
		{"condenser virtual ops: range reached", "condenser_api.enum_virtual_ops",
			&condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, Limit: proto.Uint32(2)},
			`{"ops":[{"block":3}],"ops_by_block":[],"next_block_range_begin":100,"next_operation_begin":0}`, ``},
		{"promoted posts", "condenser_api.get_discussions_by_promoted",
			&condv1.GetDiscussionsByPromotedRequest{Query: &typesv1.DiscussionQuery{Limit: proto.Uint32(2)}},
			`[{"author":"a","permlink":"p"},{"author":"b","permlink":"q"}]`, `{"start_author":"b","start_permlink":"q"}`},
		{"names: the item itself", "condenser_api.lookup_accounts",
			&condv1.LookupAccountsRequest{LowerBoundName: "a", Limit: proto.Uint32(2)},
			`["alice","bob"]`, `{"lower_bound_name":"bob"}`},
		{"rc delegations: the cursor is the start", "rc_api.list_rc_direct_delegations",
			&rcv1.ListRcDirectDelegationsRequest{Start: &rcv1.RcDelegationCursor{FromAccount: "a"}, Limit: proto.Uint32(2)},
			`{"rc_direct_delegations":[{"from":"a","to":"b","delegated_rc":1},{"from":"a","to":"c","delegated_rc":1}]}`, `["a","c"]`},
		{"bridge posts", "bridge.get_ranked_posts",
			&bridgev1.GetRankedPostsRequest{Sort: bridgev1.RankedPostsSort_RANKED_POSTS_SORT_HOT, Limit: proto.Uint32(2)},
			`[{"author":"a","permlink":"p"},{"author":"b","permlink":"q"}]`, `{"start_author":"b","start_permlink":"q"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tm := methods[tt.method]
			_, order, err := tm.prepare(tt.req.ProtoReflect())
			if err != nil {
				t.Fatal(err)
			}
			m := tm.Response.New()
			if _, err := transcode.Unmarshal([]byte(tt.result), m.Interface()); err != nil {
				t.Fatal(err)
			}
			cp := tm.nextPlain
			if cp == nil {
				cp = tm.nextCases[order]
			}
			cp.build(m, tm.items, tm.next, tt.req.ProtoReflect(), -1)
			if tt.want == "" {
				if m.Has(tm.next) {
					t.Errorf("next_start set: %v", m.Get(tm.next).Message().Interface())
				}
				return
			}
			if !m.Has(tm.next) {
				t.Fatalf("next_start unset")
			}
			got, err := transcode.Marshal(m.Get(tm.next).Message().Interface())
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, []byte(tt.want)) {
				t.Errorf("next_start = %s, want %s", got, tt.want)
			}
		})
	}
}

// jsonEqual compares two JSON texts as values.
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
