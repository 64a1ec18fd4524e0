package gateway_test

// Paging through the simulated node by following next_start: every item of
// a list is visited exactly once per order, once the duplicate first item of
// each following page is dropped (hived's start is inclusive), and the
// cursor needs nothing from the client but "send next_start back".

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hivegate/hivegate/gateway"
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
	// inclusive: each page after the first repeats the previous page's last item.
	inclusive bool
	// next adjusts a follow-up request before it is sent (nil: nothing).
	next func(req, prevResp protoreflect.Message)
}

// TestPagingVisitsEveryItemOnce walks lists of several methods and orders
// through the gateway by sending each response's next_start back.
func TestPagingVisitsEveryItemOnce(t *testing.T) {
	t.Parallel()
	node := hivesim.New(hivesim.Options{Seed: 1})
	g := startTypedGateway(t, node, gateway.Options{})
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
	proposalsLastID := func(req, prev protoreflect.Message) {
		ps := prev.Interface().(*dbv1.ListProposalsResponse).GetProposals()
		req.Interface().(*dbv1.ListProposalsRequest).LastId = proto.Uint64(ps[len(ps)-1].GetId())
	}
	historyLimit := func(req, _ protoreflect.Message) {
		switch r := req.Interface().(type) {
		case *ahv1.GetAccountHistoryRequest:
			r.Limit = uint32(min(int64(r.Limit), r.Start+1))
		case *condv1.GetAccountHistoryRequest:
			r.Limit = uint32(min(int64(r.Limit), r.Start+1))
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
	tests := []pagingCase{
		{"accounts by_name", db + "ListAccounts", &dbv1.ListAccountsRequest{Limit: 37, Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, len(node.Accounts()), true, nil},
		{"accounts by_proxy", db + "ListAccounts", &dbv1.ListAccountsRequest{Limit: 37, Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_PROXY}, len(node.Accounts()), true, nil},
		{"accounts by_next_vesting_withdrawal", db + "ListAccounts", &dbv1.ListAccountsRequest{Limit: 37, Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NEXT_VESTING_WITHDRAWAL}, len(node.Accounts()), true, nil},
		{"witnesses by_name", db + "ListWitnesses", &dbv1.ListWitnessesRequest{Limit: 7, Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_NAME}, len(node.Witnesses()), true, nil},
		{"witnesses by_vote_name", db + "ListWitnesses", &dbv1.ListWitnessesRequest{Limit: 7, Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_VOTE_NAME}, len(node.Witnesses()), true, nil},
		{"witness votes by_account_witness", db + "ListWitnessVotes", &dbv1.ListWitnessVotesRequest{Limit: 50, Order: dbv1.ListWitnessVotesOrder_LIST_WITNESS_VOTES_ORDER_BY_ACCOUNT_WITNESS}, len(node.WitnessVotes()), true, nil},
		{"witness votes by_witness_account", db + "ListWitnessVotes", &dbv1.ListWitnessVotesRequest{Limit: 50, Order: dbv1.ListWitnessVotesOrder_LIST_WITNESS_VOTES_ORDER_BY_WITNESS_ACCOUNT}, len(node.WitnessVotes()), true, nil},
		// hived requires an existing delegator in the cursor, so the walk
		// starts at the first one rather than at the minimal start.
		{"delegations", db + "ListVestingDelegations", &dbv1.ListVestingDelegationsRequest{Limit: 9, Start: &dbv1.ListVestingDelegationsStart{Start: &dbv1.ListVestingDelegationsStart_ByDelegation_{ByDelegation: &dbv1.ListVestingDelegationsStart_ByDelegation{Delegator: firstDelegator}}}}, len(node.VestingDelegations()), true, nil},
		{"delegation expirations by_expiration", db + "ListVestingDelegationExpirations", &dbv1.ListVestingDelegationExpirationsRequest{Limit: 4, Order: dbv1.ListVestingDelegationExpirationsOrder_LIST_VESTING_DELEGATION_EXPIRATIONS_ORDER_BY_EXPIRATION}, len(node.DelegationExpirations()), true, nil},
		{"delegation expirations by_account_expiration", db + "ListVestingDelegationExpirations", &dbv1.ListVestingDelegationExpirationsRequest{Limit: 4, Order: dbv1.ListVestingDelegationExpirationsOrder_LIST_VESTING_DELEGATION_EXPIRATIONS_ORDER_BY_ACCOUNT_EXPIRATION}, len(node.DelegationExpirations()), true, nil},
		{"owner histories", db + "ListOwnerHistories", &dbv1.ListOwnerHistoriesRequest{Limit: 3}, len(node.OwnerHistories()), true, nil},
		{"recovery requests by_expiration", db + "ListAccountRecoveryRequests", &dbv1.ListAccountRecoveryRequestsRequest{Limit: 3, Order: dbv1.ListAccountRecoveryRequestsOrder_LIST_ACCOUNT_RECOVERY_REQUESTS_ORDER_BY_EXPIRATION}, len(node.RecoveryRequests()), true, nil},
		{"change recovery by_effective_date", db + "ListChangeRecoveryAccountRequests", &dbv1.ListChangeRecoveryAccountRequestsRequest{Limit: 3, Order: dbv1.ListChangeRecoveryAccountRequestsOrder_LIST_CHANGE_RECOVERY_ACCOUNT_REQUESTS_ORDER_BY_EFFECTIVE_DATE}, len(node.ChangeRecoveryRequests()), true, nil},
		{"decline voting rights by_account", db + "ListDeclineVotingRightsRequests", &dbv1.ListDeclineVotingRightsRequestsRequest{Limit: 3, Order: dbv1.ListDeclineVotingRightsRequestsOrder_LIST_DECLINE_VOTING_RIGHTS_REQUESTS_ORDER_BY_ACCOUNT}, len(node.DeclineVotingRightsRequests()), true, nil},
		{"escrows by_from_id", db + "ListEscrows", &dbv1.ListEscrowsRequest{Limit: 4, Order: dbv1.ListEscrowsOrder_LIST_ESCROWS_ORDER_BY_FROM_ID}, len(node.Escrows()), true, nil},
		{"escrows by_ratification_deadline", db + "ListEscrows", &dbv1.ListEscrowsRequest{Limit: 4, Order: dbv1.ListEscrowsOrder_LIST_ESCROWS_ORDER_BY_RATIFICATION_DEADLINE}, len(node.Escrows()), true, nil},
		{"routes by_withdraw_route", db + "ListWithdrawVestingRoutes", &dbv1.ListWithdrawVestingRoutesRequest{Limit: 4, Order: dbv1.ListWithdrawVestingRoutesOrder_LIST_WITHDRAW_VESTING_ROUTES_ORDER_BY_WITHDRAW_ROUTE}, len(node.WithdrawRoutes()), true, nil},
		{"routes by_destination", db + "ListWithdrawVestingRoutes", &dbv1.ListWithdrawVestingRoutesRequest{Limit: 4, Order: dbv1.ListWithdrawVestingRoutesOrder_LIST_WITHDRAW_VESTING_ROUTES_ORDER_BY_DESTINATION}, len(node.WithdrawRoutes()), true, nil},
		{"savings by_from_id", db + "ListSavingsWithdrawals", &dbv1.ListSavingsWithdrawalsRequest{Limit: 4, Order: dbv1.ListSavingsWithdrawalsOrder_LIST_SAVINGS_WITHDRAWALS_ORDER_BY_FROM_ID}, len(node.SavingsWithdrawals()), true, nil},
		{"savings by_complete_from_id", db + "ListSavingsWithdrawals", &dbv1.ListSavingsWithdrawalsRequest{Limit: 4, Order: dbv1.ListSavingsWithdrawalsOrder_LIST_SAVINGS_WITHDRAWALS_ORDER_BY_COMPLETE_FROM_ID}, len(node.SavingsWithdrawals()), true, nil},
		{"savings by_to_complete", db + "ListSavingsWithdrawals", &dbv1.ListSavingsWithdrawalsRequest{Limit: 4, Order: dbv1.ListSavingsWithdrawalsOrder_LIST_SAVINGS_WITHDRAWALS_ORDER_BY_TO_COMPLETE}, len(node.SavingsWithdrawals()), true, nil},
		{"hbd conversions by_conversion_date", db + "ListHbdConversionRequests", &dbv1.ListHbdConversionRequestsRequest{Limit: 4, Order: dbv1.ListHbdConversionRequestsOrder_LIST_HBD_CONVERSION_REQUESTS_ORDER_BY_CONVERSION_DATE}, len(node.ConvertRequests()), true, nil},
		{"hbd conversions by_account", db + "ListHbdConversionRequests", &dbv1.ListHbdConversionRequestsRequest{Limit: 4, Order: dbv1.ListHbdConversionRequestsOrder_LIST_HBD_CONVERSION_REQUESTS_ORDER_BY_ACCOUNT}, len(node.ConvertRequests()), true, nil},
		{"collateralized conversions by_account", db + "ListCollateralizedConversionRequests", &dbv1.ListCollateralizedConversionRequestsRequest{Limit: 4, Order: dbv1.ListCollateralizedConversionRequestsOrder_LIST_COLLATERALIZED_CONVERSION_REQUESTS_ORDER_BY_ACCOUNT}, len(node.CollateralizedConvertRequests()), true, nil},
		{"limit orders by_account", db + "ListLimitOrders", &dbv1.ListLimitOrdersRequest{Limit: 6, Order: dbv1.ListLimitOrdersOrder_LIST_LIMIT_ORDERS_ORDER_BY_ACCOUNT}, len(node.LimitOrders()), true, nil},
		{"proposals by_creator", db + "ListProposals", &dbv1.ListProposalsRequest{Limit: 4, Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_CREATOR}, len(node.Proposals()), true, proposalsLastID},
		{"proposals by_total_votes", db + "ListProposals", &dbv1.ListProposalsRequest{Limit: 4, Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_TOTAL_VOTES}, len(node.Proposals()), true, proposalsLastID},
		{"proposals by_start_date", db + "ListProposals", &dbv1.ListProposalsRequest{Limit: 4, Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_START_DATE}, len(node.Proposals()), true, proposalsLastID},
		{"proposal votes by_voter_proposal", db + "ListProposalVotes", &dbv1.ListProposalVotesRequest{Limit: 10, Order: dbv1.ListProposalVotesOrder_LIST_PROPOSAL_VOTES_ORDER_BY_VOTER_PROPOSAL}, len(node.ProposalVotes()), true, nil},
		{"proposal votes by_proposal_voter", db + "ListProposalVotes", &dbv1.ListProposalVotesRequest{Limit: 10, Order: dbv1.ListProposalVotesOrder_LIST_PROPOSAL_VOTES_ORDER_BY_PROPOSAL_VOTER}, len(node.ProposalVotes()), true, nil},
		{"reputations", "hive.reputation_api.v1.ReputationApiService.GetAccountReputations", &repv1.GetAccountReputationsRequest{Limit: 30}, reputations, true, nil},
		{"condenser followers (exclusive)", "hive.condenser_api.v1.CondenserApiService.GetFollowers", &condv1.GetFollowersRequest{Account: acct, Limit: 3}, followers, false, nil},
		{"condenser trending tags (exclusive)", "hive.condenser_api.v1.CondenserApiService.GetTrendingTags", &condv1.GetTrendingTagsRequest{Limit: 4}, len(node.Tags()), false, nil},
		{"condenser blog entries", "hive.condenser_api.v1.CondenserApiService.GetBlogEntries", &condv1.GetBlogEntriesRequest{Account: blog, Limit: 3}, len(node.Blog(blog)), true, nil},
		{"account history (counts down)", "hive.account_history_api.v1.AccountHistoryApiService.GetAccountHistory", &ahv1.GetAccountHistoryRequest{Account: hist, Start: -1, Limit: 7}, node.HistoryLen(hist), false, historyLimit},
		{"condenser account history", "hive.condenser_api.v1.CondenserApiService.GetAccountHistory", &condv1.GetAccountHistoryRequest{Account: hist, Start: -1, Limit: 7}, node.HistoryLen(hist), false, historyLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.want < 2 {
				t.Fatalf("the simulated node holds %d items: too few to page", tt.want)
			}
			walkPages(t, g, tt)
		})
	}
}

// walkPages pages through one list and checks that every item is seen once.
func walkPages(t *testing.T, g *typedGateway, tt pagingCase) {
	t.Helper()
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(tt.method))
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MethodDescriptor)
	respType, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if err != nil {
		t.Fatal(err)
	}
	items := itemsField(md.Output())
	limitFD := md.Input().Fields().ByName("limit")
	seen := map[string]int{}
	req := proto.Clone(tt.first).ProtoReflect()
	ps := protocols()
	for page := 0; ; page++ {
		if page > 4*tt.want+10 {
			t.Fatalf("still paging after %d pages", page)
		}
		resp := respType.New()
		if _, err := g.call(context.Background(), ps[page%len(ps)], md, req.Interface(), resp.Interface()); err != nil {
			t.Fatalf("page %d (%v): %v", page, req.Interface(), err)
		}
		list := resp.Get(items).List()
		for i := range list.Len() {
			if i == 0 && page > 0 && tt.inclusive {
				continue // the previous page's last item, repeated
			}
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(list.Get(i).Message().Interface())
			if err != nil {
				t.Fatal(err)
			}
			seen[string(b)]++
		}
		next := resp.Get(md.Output().Fields().ByName("next_start")).Message()
		limit := req.Get(limitFD).Uint()
		if uint64(list.Len()) < limit || !next.IsValid() {
			break
		}
		req = proto.Clone(req.Interface()).ProtoReflect()
		applyNextStart(t, req, next)
		if tt.next != nil {
			tt.next(req, resp)
		}
	}
	dups := 0
	for _, n := range seen {
		if n > 1 {
			dups++
		}
	}
	if len(seen) != tt.want || dups > 0 {
		t.Errorf("visited %d distinct items (%d more than once), want %d", len(seen), dups, tt.want)
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

// itemsField is a response's repeated message field.
func itemsField(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	fields := md.Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); fd.IsList() && fd.Kind() == protoreflect.MessageKind {
			return fd
		}
	}
	panic(fmt.Sprintf("%s has no repeated message field", md.FullName()))
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
