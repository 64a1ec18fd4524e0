package gateway_test

// The lists of the simulated node walked by TestPagingContract: every item
// of a list is visited exactly once per order, and the cursor needs nothing
// from the client but "send next_start back".

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ahv1 "github.com/hivegate/hivegate/gen/hive/account_history_api/v1"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	repv1 "github.com/hivegate/hivegate/gen/hive/reputation_api/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// pagingCase is one list walked page by page.
type pagingCase struct {
	name string
	// method is the RPC's full name, e.g. "hive.database_api.v1.DatabaseApiService.ListAccounts".
	method string
	// first is the first page's request (no start).
	first proto.Message
	// want is how many distinct items the whole list holds.
	want int
}

// dbPagingCases are the lists of database_api, reputations, follows, blogs
// and account history on the simulated node, each walked by
// TestPagingContract (connect_paging_contract_test.go).
func dbPagingCases(node *hivesim.Node) []pagingCase {
	db := "hive.database_api.v1.DatabaseApiService."
	acct := busiestFollowed(node)
	hist := "alice"
	for _, a := range node.Accounts() {
		if node.HistoryLen(a.Name) > node.HistoryLen(hist) {
			hist = a.Name
		}
	}
	blog := ""
	for _, a := range node.Accounts() {
		if len(node.Blog(a.Name)) > len(node.Blog(blog)) {
			blog = a.Name
		}
	}
	// by_delegation sorts by the accounts' object ids, not their names.
	firstDelegator := ""
	for _, d := range node.VestingDelegations() {
		a, _ := node.Account(d.Delegator)
		b, _ := node.Account(firstDelegator)
		if firstDelegator == "" || a.ID < b.ID {
			firstDelegator = d.Delegator
		}
	}
	reputations := 0
	for _, a := range node.Accounts() {
		if a.Reputation != 0 {
			reputations++
		}
	}
	followers := 0
	for _, f := range node.Follows() {
		if f.Following == acct && f.What == "blog" {
			followers++
		}
	}
	return []pagingCase{
		{"accounts by_name", db + "ListAccounts", &dbv1.ListAccountsRequest{Limit: proto.Uint32(37), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, len(node.Accounts())},
		{"accounts by_proxy", db + "ListAccounts", &dbv1.ListAccountsRequest{Limit: proto.Uint32(37), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_PROXY}, len(node.Accounts())},
		{"accounts by_next_vesting_withdrawal", db + "ListAccounts", &dbv1.ListAccountsRequest{Limit: proto.Uint32(37), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NEXT_VESTING_WITHDRAWAL}, len(node.Accounts())},
		{"witnesses by_name", db + "ListWitnesses", &dbv1.ListWitnessesRequest{Limit: proto.Uint32(7), Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_NAME}, len(node.Witnesses())},
		{"witnesses by_vote_name", db + "ListWitnesses", &dbv1.ListWitnessesRequest{Limit: proto.Uint32(7), Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_VOTE_NAME}, len(node.Witnesses())},
		{"witness votes by_account_witness", db + "ListWitnessVotes", &dbv1.ListWitnessVotesRequest{Limit: proto.Uint32(50), Order: dbv1.ListWitnessVotesOrder_LIST_WITNESS_VOTES_ORDER_BY_ACCOUNT_WITNESS}, len(node.WitnessVotes())},
		{"witness votes by_witness_account", db + "ListWitnessVotes", &dbv1.ListWitnessVotesRequest{Limit: proto.Uint32(50), Order: dbv1.ListWitnessVotesOrder_LIST_WITNESS_VOTES_ORDER_BY_WITNESS_ACCOUNT}, len(node.WitnessVotes())},
		// hived requires an existing delegator in the cursor, so the walk
		// starts at the first one rather than at the minimal start.
		{"delegations", db + "ListVestingDelegations", &dbv1.ListVestingDelegationsRequest{Limit: proto.Uint32(9), Start: &dbv1.ListVestingDelegationsStart{Start: &dbv1.ListVestingDelegationsStart_ByDelegation_{ByDelegation: &dbv1.ListVestingDelegationsStart_ByDelegation{Delegator: firstDelegator}}}}, len(node.VestingDelegations())},
		{"delegation expirations by_expiration", db + "ListVestingDelegationExpirations", &dbv1.ListVestingDelegationExpirationsRequest{Limit: proto.Uint32(4), Order: dbv1.ListVestingDelegationExpirationsOrder_LIST_VESTING_DELEGATION_EXPIRATIONS_ORDER_BY_EXPIRATION}, len(node.DelegationExpirations())},
		{"delegation expirations by_account_expiration", db + "ListVestingDelegationExpirations", &dbv1.ListVestingDelegationExpirationsRequest{Limit: proto.Uint32(4), Order: dbv1.ListVestingDelegationExpirationsOrder_LIST_VESTING_DELEGATION_EXPIRATIONS_ORDER_BY_ACCOUNT_EXPIRATION}, len(node.DelegationExpirations())},
		{"owner histories", db + "ListOwnerHistories", &dbv1.ListOwnerHistoriesRequest{Limit: proto.Uint32(3)}, len(node.OwnerHistories())},
		{"recovery requests by_expiration", db + "ListAccountRecoveryRequests", &dbv1.ListAccountRecoveryRequestsRequest{Limit: proto.Uint32(3), Order: dbv1.ListAccountRecoveryRequestsOrder_LIST_ACCOUNT_RECOVERY_REQUESTS_ORDER_BY_EXPIRATION}, len(node.RecoveryRequests())},
		{"change recovery by_effective_date", db + "ListChangeRecoveryAccountRequests", &dbv1.ListChangeRecoveryAccountRequestsRequest{Limit: proto.Uint32(3), Order: dbv1.ListChangeRecoveryAccountRequestsOrder_LIST_CHANGE_RECOVERY_ACCOUNT_REQUESTS_ORDER_BY_EFFECTIVE_DATE}, len(node.ChangeRecoveryRequests())},
		{"decline voting rights by_account", db + "ListDeclineVotingRightsRequests", &dbv1.ListDeclineVotingRightsRequestsRequest{Limit: proto.Uint32(3), Order: dbv1.ListDeclineVotingRightsRequestsOrder_LIST_DECLINE_VOTING_RIGHTS_REQUESTS_ORDER_BY_ACCOUNT}, len(node.DeclineVotingRightsRequests())},
		{"escrows by_from_id", db + "ListEscrows", &dbv1.ListEscrowsRequest{Limit: proto.Uint32(4), Order: dbv1.ListEscrowsOrder_LIST_ESCROWS_ORDER_BY_FROM_ID}, len(node.Escrows())},
		{"escrows by_ratification_deadline", db + "ListEscrows", &dbv1.ListEscrowsRequest{Limit: proto.Uint32(4), Order: dbv1.ListEscrowsOrder_LIST_ESCROWS_ORDER_BY_RATIFICATION_DEADLINE}, len(node.Escrows())},
		{"routes by_withdraw_route", db + "ListWithdrawVestingRoutes", &dbv1.ListWithdrawVestingRoutesRequest{Limit: proto.Uint32(4), Order: dbv1.ListWithdrawVestingRoutesOrder_LIST_WITHDRAW_VESTING_ROUTES_ORDER_BY_WITHDRAW_ROUTE}, len(node.WithdrawRoutes())},
		{"routes by_destination", db + "ListWithdrawVestingRoutes", &dbv1.ListWithdrawVestingRoutesRequest{Limit: proto.Uint32(4), Order: dbv1.ListWithdrawVestingRoutesOrder_LIST_WITHDRAW_VESTING_ROUTES_ORDER_BY_DESTINATION}, len(node.WithdrawRoutes())},
		{"savings by_from_id", db + "ListSavingsWithdrawals", &dbv1.ListSavingsWithdrawalsRequest{Limit: proto.Uint32(4), Order: dbv1.ListSavingsWithdrawalsOrder_LIST_SAVINGS_WITHDRAWALS_ORDER_BY_FROM_ID}, len(node.SavingsWithdrawals())},
		{"savings by_complete_from_id", db + "ListSavingsWithdrawals", &dbv1.ListSavingsWithdrawalsRequest{Limit: proto.Uint32(4), Order: dbv1.ListSavingsWithdrawalsOrder_LIST_SAVINGS_WITHDRAWALS_ORDER_BY_COMPLETE_FROM_ID}, len(node.SavingsWithdrawals())},
		{"savings by_to_complete", db + "ListSavingsWithdrawals", &dbv1.ListSavingsWithdrawalsRequest{Limit: proto.Uint32(4), Order: dbv1.ListSavingsWithdrawalsOrder_LIST_SAVINGS_WITHDRAWALS_ORDER_BY_TO_COMPLETE}, len(node.SavingsWithdrawals())},
		{"hbd conversions by_conversion_date", db + "ListHbdConversionRequests", &dbv1.ListHbdConversionRequestsRequest{Limit: proto.Uint32(4), Order: dbv1.ListHbdConversionRequestsOrder_LIST_HBD_CONVERSION_REQUESTS_ORDER_BY_CONVERSION_DATE}, len(node.ConvertRequests())},
		{"hbd conversions by_account", db + "ListHbdConversionRequests", &dbv1.ListHbdConversionRequestsRequest{Limit: proto.Uint32(4), Order: dbv1.ListHbdConversionRequestsOrder_LIST_HBD_CONVERSION_REQUESTS_ORDER_BY_ACCOUNT}, len(node.ConvertRequests())},
		{"collateralized conversions by_account", db + "ListCollateralizedConversionRequests", &dbv1.ListCollateralizedConversionRequestsRequest{Limit: proto.Uint32(4), Order: dbv1.ListCollateralizedConversionRequestsOrder_LIST_COLLATERALIZED_CONVERSION_REQUESTS_ORDER_BY_ACCOUNT}, len(node.CollateralizedConvertRequests())},
		{"limit orders by_account", db + "ListLimitOrders", &dbv1.ListLimitOrdersRequest{Limit: proto.Uint32(6), Order: dbv1.ListLimitOrdersOrder_LIST_LIMIT_ORDERS_ORDER_BY_ACCOUNT}, len(node.LimitOrders())},
		{"proposals by_creator", db + "ListProposals", &dbv1.ListProposalsRequest{Limit: proto.Uint32(4), Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_CREATOR}, len(node.Proposals())},
		{"proposals by_total_votes", db + "ListProposals", &dbv1.ListProposalsRequest{Limit: proto.Uint32(4), Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_TOTAL_VOTES}, len(node.Proposals())},
		{"proposals by_start_date", db + "ListProposals", &dbv1.ListProposalsRequest{Limit: proto.Uint32(4), Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_START_DATE}, len(node.Proposals())},
		{"proposal votes by_voter_proposal", db + "ListProposalVotes", &dbv1.ListProposalVotesRequest{Limit: proto.Uint32(10), Order: dbv1.ListProposalVotesOrder_LIST_PROPOSAL_VOTES_ORDER_BY_VOTER_PROPOSAL}, len(node.ProposalVotes())},
		{"proposal votes by_proposal_voter", db + "ListProposalVotes", &dbv1.ListProposalVotesRequest{Limit: proto.Uint32(10), Order: dbv1.ListProposalVotesOrder_LIST_PROPOSAL_VOTES_ORDER_BY_PROPOSAL_VOTER}, len(node.ProposalVotes())},
		{"reputations", "hive.reputation_api.v1.ReputationApiService.GetAccountReputations", &repv1.GetAccountReputationsRequest{Limit: proto.Uint32(30)}, reputations},
		{"condenser followers (exclusive)", "hive.condenser_api.v1.CondenserApiService.GetFollowers", &condv1.GetFollowersRequest{Account: acct, Limit: proto.Uint32(3)}, followers},
		{"condenser trending tags (exclusive)", "hive.condenser_api.v1.CondenserApiService.GetTrendingTags", &condv1.GetTrendingTagsRequest{Limit: proto.Uint32(4)}, len(node.Tags())},
		{"condenser blog entries", "hive.condenser_api.v1.CondenserApiService.GetBlogEntries", &condv1.GetBlogEntriesRequest{Account: blog, Limit: proto.Uint32(3)}, len(node.Blog(blog))},
		{"account history (counts down)", "hive.account_history_api.v1.AccountHistoryApiService.GetAccountHistory", &ahv1.GetAccountHistoryRequest{Account: hist, Start: proto.Int64(-1), Limit: proto.Uint32(7)}, node.HistoryLen(hist)},
		{"condenser account history", "hive.condenser_api.v1.CondenserApiService.GetAccountHistory", &condv1.GetAccountHistoryRequest{Account: hist, Start: proto.Int64(-1), Limit: proto.Uint32(7)}, node.HistoryLen(hist)},
	}
}

// applyNextStart sends next_start back, the way docs/api.md tells clients:
// as `start` when the request has a start of that type, otherwise field by
// field into the request fields of the same names.
func applyNextStart(t *testing.T, req, next protoreflect.Message) {
	t.Helper()
	if fd := req.Descriptor().Fields().ByName("start"); fd != nil && fd.Kind() == protoreflect.MessageKind &&
		fd.Message().FullName() == next.Descriptor().FullName() {
		req.Set(fd, protoreflect.ValueOfMessage(next))
		return
	}
	fields := next.Descriptor().Fields()
	for i := range fields.Len() {
		src := fields.Get(i)
		dst := req.Descriptor().Fields().ByName(src.Name())
		if dst == nil || dst.Kind() != src.Kind() {
			t.Fatalf("%s has no field %s for next_start", req.Descriptor().FullName(), src.Name())
		}
		req.Set(dst, next.Get(src))
	}
}

// busiestFollowed is the account with the most followers.
func busiestFollowed(n *hivesim.Node) string {
	count := map[string]int{}
	best := ""
	for _, f := range n.Follows() {
		if f.What != "blog" {
			continue
		}
		count[f.Following]++
		if count[f.Following] > count[best] {
			best = f.Following
		}
	}
	return best
}
