package hivesim_test

import (
	"cmp"
	"strings"

	"github.com/hivegate/hivegate/hivesim"
)

// Paging cases for the finance, DHF and hivemind list methods (see pagingCases).

func financeCases(n *hivesim.Node, acctID map[string]int64) []pagingCase {
	var cases []pagingCase
	add := func(c pagingCase) { cases = append(cases, c) }
	esc := n.Escrows()
	escID := func(x hivesim.Escrow) string { return sid(x.ID) }
	approved := func(x hivesim.Escrow) int {
		if x.ToApproved && x.AgentApproved {
			return 1
		}
		return 0
	}
	add(pagingCase{method: "database_api.list_escrows", order: "by_from_id", key: "escrows", start: []any{"", 0},
		ident: byID("id"), next: cursor("from", "escrow_id"),
		want: mapWant(esc, func(a, b hivesim.Escrow) int {
			return cmp.Or(strings.Compare(a.From, b.From), cmp.Compare(a.EscrowID, b.EscrowID))
		}, escID)})
	add(pagingCase{method: "database_api.list_escrows", order: "by_ratification_deadline", key: "escrows",
		start: []any{false, epoch, 0}, ident: byID("id"),
		next: func(p, l obj) {
			p["start"] = []any{l["to_approved"] == true && l["agent_approved"] == true, l["ratification_deadline"], l["id"]}
		},
		want: mapWant(esc, func(a, b hivesim.Escrow) int {
			return cmp.Or(cmp.Compare(approved(a), approved(b)), a.RatificationDeadline.Compare(b.RatificationDeadline), cmp.Compare(a.ID, b.ID))
		}, escID)})
	routes := n.WithdrawRoutes()
	routeID := func(x hivesim.WithdrawRoute) string { return sid(x.ID) }
	add(pagingCase{method: "database_api.list_withdraw_vesting_routes", order: "by_withdraw_route", key: "routes",
		start: []any{"", ""}, ident: byID("id"), next: cursor("from_account", "to_account"),
		want: mapWant(routes, func(a, b hivesim.WithdrawRoute) int {
			return cmp.Or(strings.Compare(a.FromAccount, b.FromAccount), strings.Compare(a.ToAccount, b.ToAccount))
		}, routeID)})
	add(pagingCase{method: "database_api.list_withdraw_vesting_routes", order: "by_destination", key: "routes",
		start: []any{"", 0}, ident: byID("id"), next: cursor("to_account", "id"),
		want: mapWant(routes, func(a, b hivesim.WithdrawRoute) int {
			return cmp.Or(strings.Compare(a.ToAccount, b.ToAccount), cmp.Compare(a.ID, b.ID))
		}, routeID)})
	sav := n.SavingsWithdrawals()
	savID := func(x hivesim.SavingsWithdraw) string { return sid(x.ID) }
	add(pagingCase{method: "database_api.list_savings_withdrawals", order: "by_from_id", key: "withdrawals",
		start: []any{"", 0}, ident: byID("id"), next: cursor("from", "request_id"),
		want: mapWant(sav, func(a, b hivesim.SavingsWithdraw) int {
			return cmp.Or(strings.Compare(a.From, b.From), cmp.Compare(a.RequestID, b.RequestID))
		}, savID)})
	add(pagingCase{method: "database_api.list_savings_withdrawals", order: "by_complete_from_id", key: "withdrawals",
		start: []any{epoch, "", 0}, ident: byID("id"), next: cursor("complete", "from", "request_id"),
		want: mapWant(sav, func(a, b hivesim.SavingsWithdraw) int {
			return cmp.Or(a.Complete.Compare(b.Complete), strings.Compare(a.From, b.From), cmp.Compare(a.RequestID, b.RequestID))
		}, savID)})
	add(pagingCase{method: "database_api.list_savings_withdrawals", order: "by_to_complete", key: "withdrawals",
		start: []any{"", epoch, 0}, ident: byID("id"), next: cursor("to", "complete", "id"),
		want: mapWant(sav, func(a, b hivesim.SavingsWithdraw) int {
			return cmp.Or(strings.Compare(a.To, b.To), a.Complete.Compare(b.Complete), cmp.Compare(a.ID, b.ID))
		}, savID)})
	add(pagingCase{method: "database_api.list_vesting_delegations", order: "by_delegation", key: "delegations",
		start: []any{"initminer", ""}, ident: byID("id"), next: cursor("delegator", "delegatee"),
		want: mapWant(n.VestingDelegations(), func(a, b hivesim.VestingDelegation) int {
			return cmp.Or(cmp.Compare(acctID[a.Delegator], acctID[b.Delegator]), cmp.Compare(acctID[a.Delegatee], acctID[b.Delegatee]))
		}, func(x hivesim.VestingDelegation) string { return sid(x.ID) })})
	exp := n.DelegationExpirations()
	expID := func(x hivesim.DelegationExpiration) string { return sid(x.ID) }
	add(pagingCase{method: "database_api.list_vesting_delegation_expirations", order: "by_expiration", key: "delegations",
		start: []any{epoch, 0}, ident: byID("id"), next: cursor("expiration", "id"),
		want: mapWant(exp, func(a, b hivesim.DelegationExpiration) int {
			return cmp.Or(a.Expiration.Compare(b.Expiration), cmp.Compare(a.ID, b.ID))
		}, expID)})
	add(pagingCase{method: "database_api.list_vesting_delegation_expirations", order: "by_account_expiration", key: "delegations",
		start: []any{"", epoch, 0}, ident: byID("id"), next: cursor("delegator", "expiration", "id"),
		want: mapWant(exp, func(a, b hivesim.DelegationExpiration) int {
			return cmp.Or(cmp.Compare(acctID[a.Delegator], acctID[b.Delegator]), a.Expiration.Compare(b.Expiration), cmp.Compare(a.ID, b.ID))
		}, expID)})
	conv := n.ConvertRequests()
	convID := func(x hivesim.ConvertRequest) string { return sid(x.ID) }
	add(pagingCase{method: "database_api.list_hbd_conversion_requests", order: "by_conversion_date", key: "requests",
		start: []any{epoch, 0}, ident: byID("id"), next: cursor("conversion_date", "id"),
		want: mapWant(conv, func(a, b hivesim.ConvertRequest) int {
			return cmp.Or(a.ConversionDate.Compare(b.ConversionDate), cmp.Compare(a.ID, b.ID))
		}, convID)})
	add(pagingCase{method: "database_api.list_hbd_conversion_requests", order: "by_account", key: "requests",
		start: []any{"", 0}, ident: byID("id"), next: cursor("owner", "requestid"),
		want: mapWant(conv, func(a, b hivesim.ConvertRequest) int {
			return cmp.Or(cmp.Compare(acctID[a.Owner], acctID[b.Owner]), cmp.Compare(a.RequestID, b.RequestID))
		}, convID)})
	coll := n.CollateralizedConvertRequests()
	collID := func(x hivesim.CollateralizedConvertRequest) string { return sid(x.ID) }
	add(pagingCase{method: "database_api.list_collateralized_conversion_requests", order: "by_conversion_date", key: "requests",
		start: []any{epoch, 0}, ident: byID("id"), next: cursor("conversion_date", "id"),
		want: mapWant(coll, func(a, b hivesim.CollateralizedConvertRequest) int {
			return cmp.Or(a.ConversionDate.Compare(b.ConversionDate), cmp.Compare(a.ID, b.ID))
		}, collID)})
	add(pagingCase{method: "database_api.list_collateralized_conversion_requests", order: "by_account", key: "requests",
		start: []any{"", 0}, ident: byID("id"), next: cursor("owner", "requestid"),
		want: mapWant(coll, func(a, b hivesim.CollateralizedConvertRequest) int {
			return cmp.Or(cmp.Compare(acctID[a.Owner], acctID[b.Owner]), cmp.Compare(a.RequestID, b.RequestID))
		}, collID)})
	orders := n.LimitOrders()
	orderID := func(x hivesim.LimitOrder) string { return sid(x.ID) }
	// A VESTS-based price sorts above every HIVE or HBD order: the top of the by_price index.
	top := obj{"base": obj{"amount": "1", "precision": 6, "nai": "@@000000037"}, "quote": obj{"amount": "1", "precision": 3, "nai": "@@000000021"}}
	add(pagingCase{method: "database_api.list_limit_orders", order: "by_price", key: "orders", start: []any{top, 0},
		ident: byID("id"), next: cursor("sell_price", "id"),
		want: mapWant(orders, func(a, b hivesim.LimitOrder) int {
			return cmp.Or(priceCmp(b.SellPrice, a.SellPrice), cmp.Compare(a.ID, b.ID))
		}, orderID)})
	add(pagingCase{method: "database_api.list_limit_orders", order: "by_account", key: "orders", start: []any{"", 0},
		ident: byID("id"), next: cursor("seller", "orderid"),
		want: mapWant(orders, func(a, b hivesim.LimitOrder) int {
			return cmp.Or(strings.Compare(a.Seller, b.Seller), cmp.Compare(a.OrderID, b.OrderID))
		}, orderID)})
	return cases
}

func dhfCases(n *hivesim.Node) []pagingCase {
	props := n.Proposals()
	propID := func(x hivesim.Proposal) string { return sid(x.ID) }
	lastID := func(p, l obj) { p["last_id"] = l["id"] }
	extra := obj{"order_direction": "ascending", "status": "all"}
	pv := n.ProposalVotes()
	pvID := func(x hivesim.ProposalVote) string { return sid(x.ID) }
	return []pagingCase{
		{method: "database_api.list_proposals", order: "by_creator", key: "proposals", start: []any{}, extra: extra,
			ident: byID("id"), next: lastID, want: mapWant(props, func(a, b hivesim.Proposal) int {
				return cmp.Or(strings.Compare(a.Creator, b.Creator), cmp.Compare(a.ID, b.ID))
			}, propID)},
		{method: "database_api.list_proposals", order: "by_start_date", key: "proposals", start: []any{}, extra: extra,
			ident: byID("id"), next: lastID, want: mapWant(props, func(a, b hivesim.Proposal) int {
				return cmp.Or(a.StartDate.Compare(b.StartDate), cmp.Compare(a.ID, b.ID))
			}, propID)},
		{method: "database_api.list_proposals", order: "by_end_date", key: "proposals", start: []any{""}, extra: extra,
			ident: byID("id"), next: lastID, want: mapWant(props, func(a, b hivesim.Proposal) int {
				return cmp.Or(a.EndDate.Compare(b.EndDate), cmp.Compare(a.ID, b.ID))
			}, propID)},
		{method: "database_api.list_proposals", order: "by_total_votes", key: "proposals", start: []any{0}, extra: extra,
			ident: byID("id"), next: lastID, want: mapWant(props, func(a, b hivesim.Proposal) int {
				return cmp.Or(cmp.Compare(a.TotalVotes, b.TotalVotes), cmp.Compare(a.ID, b.ID))
			}, propID)},
		{method: "database_api.list_proposal_votes", order: "by_voter_proposal", key: "proposal_votes", start: []any{},
			extra: extra, ident: byID("id"),
			next: func(p, l obj) { p["start"] = []any{l["voter"], l["proposal"].(obj)["id"]} },
			want: mapWant(pv, func(a, b hivesim.ProposalVote) int {
				return cmp.Or(strings.Compare(a.Voter, b.Voter), cmp.Compare(a.ProposalID, b.ProposalID))
			}, pvID)},
		{method: "database_api.list_proposal_votes", order: "by_proposal_voter", key: "proposal_votes", start: []any{0, ""},
			extra: extra, ident: byID("id"),
			next: func(p, l obj) { p["start"] = []any{l["proposal"].(obj)["id"], l["voter"]} },
			want: mapWant(pv, func(a, b hivesim.ProposalVote) int {
				return cmp.Or(cmp.Compare(a.ProposalID, b.ProposalID), strings.Compare(a.Voter, b.Voter))
			}, pvID)},
	}
}

// mostBy returns the key with the most elements (ties: smallest key); "" keys are skipped.
func mostBy[T any](rows []T, key func(T) string) string {
	counts := map[string]int{}
	for _, r := range rows {
		if k := key(r); k != "" {
			counts[k]++
		}
	}
	best := ""
	for k, c := range counts {
		if c > counts[best] || (c == counts[best] && k < best) {
			best = k
		}
	}
	return best
}

func socialCases(n *hivesim.Node, acctID, commentID map[string]int64) []pagingCase {
	votes := n.Votes()
	comments := n.Comments()
	post := mostBy(votes, func(v hivesim.Vote) string { return v.Author + "/" + v.Permlink })
	postAuthor, postPermlink, _ := strings.Cut(post, "/")
	voter := mostBy(votes, func(v hivesim.Vote) string { return v.Voter })
	var postVotes, voterVotes []hivesim.Vote
	for _, v := range votes {
		if v.Author+"/"+v.Permlink == post {
			postVotes = append(postVotes, v)
		}
		if v.Voter == voter {
			voterVotes = append(voterVotes, v)
		}
	}
	commentIdent := func(c hivesim.Comment) string { return sid(c.ID) }
	thread := func(keep func(c hivesim.Comment) bool) []hivesim.Comment {
		var out []hivesim.Comment
		for _, c := range comments {
			if keep(c) {
				out = append(out, c)
			}
		}
		return out
	}
	replies := thread(func(c hivesim.Comment) bool { return c.ParentAuthor != "" })
	root := mostBy(replies, func(c hivesim.Comment) string { return c.RootAuthor + "/" + c.RootPermlink })
	rootAuthor, rootPermlink, _ := strings.Cut(root, "/")
	parent := mostBy(replies, func(c hivesim.Comment) string { return c.ParentAuthor + "/" + c.ParentPermlink })
	parentAuthor, parentPermlink, _ := strings.Cut(parent, "/")
	repliedTo := mostBy(replies, func(c hivesim.Comment) string { return c.ParentAuthor })
	author := mostBy(comments, func(c hivesim.Comment) string { return c.Author })
	byUpdate := func(a, b hivesim.Comment) int {
		return cmp.Or(b.LastUpdate.Compare(a.LastUpdate), cmp.Compare(a.ID, b.ID))
	}
	byIDCmp := func(a, b hivesim.Comment) int { return cmp.Compare(a.ID, b.ID) }
	future := "2100-01-01T00:00:00"
	return []pagingCase{
		{method: "database_api.list_votes", order: "by_comment_voter", key: "votes", start: []any{postAuthor, postPermlink, ""},
			ident: byID("voter"), next: func(p, l obj) { p["start"] = []any{postAuthor, postPermlink, l["voter"]} },
			want: mapWant(postVotes, func(a, b hivesim.Vote) int { return cmp.Compare(acctID[a.Voter], acctID[b.Voter]) },
				func(v hivesim.Vote) string { return v.Voter })},
		{method: "database_api.list_votes", order: "by_voter_comment", key: "votes", start: []any{voter, "", ""},
			ident: func(o obj) string { return ids(o, "author", "permlink") },
			next:  func(p, l obj) { p["start"] = []any{voter, l["author"], l["permlink"]} },
			want: mapWant(voterVotes, func(a, b hivesim.Vote) int {
				return cmp.Compare(commentID[a.Author+"/"+a.Permlink], commentID[b.Author+"/"+b.Permlink])
			}, func(v hivesim.Vote) string { return v.Author + "|" + v.Permlink })},
		{method: "database_api.list_comments", order: "by_cashout_time", key: "comments", start: []any{epoch, "", ""},
			ident: byID("id"), next: cursor("cashout_time", "author", "permlink"),
			want: mapWant(comments, func(a, b hivesim.Comment) int {
				return cmp.Or(a.CashoutTime.Compare(b.CashoutTime), cmp.Compare(a.ID, b.ID))
			}, commentIdent)},
		{method: "database_api.list_comments", order: "by_permlink", key: "comments", start: []any{"", ""},
			ident: byID("id"), next: cursor("author", "permlink"),
			want: mapWant(comments, func(a, b hivesim.Comment) int {
				return cmp.Or(strings.Compare(a.Author, b.Author), strings.Compare(a.Permlink, b.Permlink))
			}, commentIdent)},
		{method: "database_api.list_comments", order: "by_root", key: "comments", start: []any{rootAuthor, rootPermlink, "", ""},
			ident: byID("id"), next: func(p, l obj) { p["start"] = []any{rootAuthor, rootPermlink, l["author"], l["permlink"]} },
			want: mapWant(thread(func(c hivesim.Comment) bool { return c.RootAuthor+"/"+c.RootPermlink == root }), byIDCmp, commentIdent)},
		{method: "database_api.list_comments", order: "by_parent", key: "comments", start: []any{parentAuthor, parentPermlink, "", ""},
			ident: byID("id"), next: func(p, l obj) { p["start"] = []any{parentAuthor, parentPermlink, l["author"], l["permlink"]} },
			want: mapWant(thread(func(c hivesim.Comment) bool { return c.ParentAuthor+"/"+c.ParentPermlink == parent }), byIDCmp, commentIdent)},
		{method: "database_api.list_comments", order: "by_last_update", key: "comments", start: []any{repliedTo, future, "", ""},
			ident: byID("id"), next: func(p, l obj) { p["start"] = []any{repliedTo, l["last_update"], l["author"], l["permlink"]} },
			want: mapWant(thread(func(c hivesim.Comment) bool { return c.ParentAuthor == repliedTo }), byUpdate, commentIdent)},
		{method: "database_api.list_comments", order: "by_author_last_update", key: "comments", start: []any{author, future, "", ""},
			ident: byID("id"), next: func(p, l obj) { p["start"] = []any{author, l["last_update"], l["author"], l["permlink"]} },
			want: mapWant(thread(func(c hivesim.Comment) bool { return c.Author == author }), byUpdate, commentIdent)},
	}
}
