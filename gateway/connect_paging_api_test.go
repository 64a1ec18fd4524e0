package gateway_test

// The read API's lists walked by TestPagingContract.

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	ahv1 "github.com/hivegate/hivegate/gen/hive/account_history_api/v1"
	bridgev1 "github.com/hivegate/hivegate/gen/hive/bridge/v1"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	rcv1 "github.com/hivegate/hivegate/gen/hive/rc_api/v1"
	searchv1 "github.com/hivegate/hivegate/gen/hive/search_api/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// readPagingCases are the lists of the read API of issue 21 (bridge,
// condenser_api, tags_api, rc_api, search_api, HAfAH's enum_virtual_ops),
// every order and sort, walked by TestPagingContract.
func readPagingCases(node *hivesim.Node) []pagingCase {
	comments := node.Comments()
	count := func(keep func(c hivesim.Comment) bool) int {
		n := 0
		for _, c := range comments {
			if keep(c) {
				n++
			}
		}
		return n
	}
	pending := func(c hivesim.Comment) bool { return !c.CashoutTime.Equal(hivesim.MaxTime) }
	root := func(c hivesim.Comment) bool { return c.ParentAuthor == "" }
	byAuthor := map[string]hivesim.Comment{}
	for _, c := range comments {
		byAuthor[c.Author+"/"+c.Permlink] = c
	}
	// The busiest accounts, so that every list has several pages.
	blog, feed, writer, replied, payer, notified := "", "", "", "", "", ""
	most := map[string]int{}
	for _, a := range node.Accounts() {
		n := a.Name
		if len(node.Blog(n)) > len(node.Blog(blog)) {
			blog = n
		}
		if node.FeedLen(n) > node.FeedLen(feed) {
			feed = n
		}
		if len(node.Notifications(n)) > len(node.Notifications(notified)) {
			notified = n
		}
	}
	commentsBy := map[string]int{}
	repliesTo := map[string]int{}
	pendingBy := map[string]int{}
	for _, c := range comments {
		if !root(c) {
			commentsBy[c.Author]++
			repliesTo[c.ParentAuthor]++
		}
		if pending(c) {
			pendingBy[c.Author]++
		}
	}
	for a, n := range commentsBy {
		if n > most["w"] || (n == most["w"] && a < writer) {
			writer, most["w"] = a, n
		}
	}
	for a, n := range repliesTo {
		if n > most["r"] || (n == most["r"] && a < replied) {
			replied, most["r"] = a, n
		}
	}
	for a, n := range pendingBy {
		if n > most["p"] || (n == most["p"] && a < payer) {
			payer, most["p"] = a, n
		}
	}
	busyPost := comments[0]
	for _, c := range comments {
		if len(node.PostNotifications(c.Author, c.Permlink)) > len(node.PostNotifications(busyPost.Author, busyPost.Permlink)) {
			busyPost = c
		}
	}
	community := node.Communities()[0]
	rcFrom, rcCount := "", 0
	perFrom := map[string]int{}
	for _, d := range node.RCDelegations() {
		perFrom[d.From]++
		if perFrom[d.From] > rcCount || (perFrom[d.From] == rcCount && d.From < rcFrom) {
			rcFrom, rcCount = d.From, perFrom[d.From]
		}
	}
	minScore := func(notes []hivesim.Notification) int {
		n := 0
		for _, x := range notes {
			if x.Score >= 25 {
				n++
			}
		}
		return n
	}
	team := len(community.Team)
	b := "hive.bridge.v1.BridgeApiService."
	cond := "hive.condenser_api.v1.CondenserApiService."
	tags := "hive.tags_api.v1.TagsApiService."
	tests := []pagingCase{
		{"bridge notifications", b + "AccountNotifications", &bridgev1.AccountNotificationsRequest{Account: notified, Limit: proto.Uint32(7)}, minScore(node.Notifications(notified))},
		{"bridge post notifications", b + "PostNotifications", &bridgev1.PostNotificationsRequest{Author: busyPost.Author, Permlink: busyPost.Permlink, MinScore: proto.Uint32(0), Limit: proto.Uint32(2)},
			len(node.PostNotifications(busyPost.Author, busyPost.Permlink))},
		{"bridge subscribers", b + "ListSubscribers", &bridgev1.ListSubscribersRequest{Community: community.Name, Limit: proto.Uint32(4)}, len(node.Subscribers(community.Name))},
		{"bridge community roles", b + "ListCommunityRoles", &bridgev1.ListCommunityRolesRequest{Community: community.Name, Limit: proto.Uint32(2)}, team},
	}
	for _, sort := range []bridgev1.CommunitiesSort{bridgev1.CommunitiesSort_COMMUNITIES_SORT_RANK, bridgev1.CommunitiesSort_COMMUNITIES_SORT_NEW, bridgev1.CommunitiesSort_COMMUNITIES_SORT_SUBS} {
		tests = append(tests, pagingCase{"bridge communities " + sort.String(), b + "ListCommunities", &bridgev1.ListCommunitiesRequest{Sort: sort, Limit: proto.Uint32(3)}, len(node.Communities())})
	}
	ranked := map[bridgev1.RankedPostsSort]int{
		bridgev1.RankedPostsSort_RANKED_POSTS_SORT_TRENDING:        count(func(c hivesim.Comment) bool { return root(c) && pending(c) }),
		bridgev1.RankedPostsSort_RANKED_POSTS_SORT_HOT:             count(func(c hivesim.Comment) bool { return root(c) && pending(c) }),
		bridgev1.RankedPostsSort_RANKED_POSTS_SORT_CREATED:         count(root),
		bridgev1.RankedPostsSort_RANKED_POSTS_SORT_PAYOUT:          count(func(c hivesim.Comment) bool { return root(c) && pending(c) }),
		bridgev1.RankedPostsSort_RANKED_POSTS_SORT_PAYOUT_COMMENTS: count(func(c hivesim.Comment) bool { return !root(c) && pending(c) }),
		bridgev1.RankedPostsSort_RANKED_POSTS_SORT_MUTED:           count(func(c hivesim.Comment) bool { return root(c) && pending(c) && hivesim.Muted(c) }),
	}
	for sort, want := range ranked {
		tests = append(tests, pagingCase{"bridge ranked " + sort.String(), b + "GetRankedPosts", &bridgev1.GetRankedPostsRequest{Sort: sort, Limit: proto.Uint32(20)}, want})
	}
	account := map[bridgev1.AccountPostsSort]struct {
		account string
		want    int
	}{
		bridgev1.AccountPostsSort_ACCOUNT_POSTS_SORT_BLOG:     {blog, len(node.Blog(blog))},
		bridgev1.AccountPostsSort_ACCOUNT_POSTS_SORT_FEED:     {feed, node.FeedLen(feed)},
		bridgev1.AccountPostsSort_ACCOUNT_POSTS_SORT_POSTS:    {blog, count(func(c hivesim.Comment) bool { return root(c) && c.Author == blog })},
		bridgev1.AccountPostsSort_ACCOUNT_POSTS_SORT_COMMENTS: {writer, commentsBy[writer]},
		bridgev1.AccountPostsSort_ACCOUNT_POSTS_SORT_REPLIES:  {replied, repliesTo[replied]},
		bridgev1.AccountPostsSort_ACCOUNT_POSTS_SORT_PAYOUT:   {payer, pendingBy[payer]},
	}
	for sort, a := range account {
		tests = append(tests, pagingCase{"bridge account posts " + sort.String(), b + "GetAccountPosts", &bridgev1.GetAccountPostsRequest{Sort: sort, Account: a.account, Limit: proto.Uint32(2)}, a.want})
	}
	discussions := []struct {
		method string
		query  *typesv1.DiscussionQuery
		want   int
	}{
		{"GetDiscussionsByTrending", &typesv1.DiscussionQuery{Limit: proto.Uint32(20)}, ranked[bridgev1.RankedPostsSort_RANKED_POSTS_SORT_TRENDING]},
		{"GetDiscussionsByHot", &typesv1.DiscussionQuery{Limit: proto.Uint32(20)}, ranked[bridgev1.RankedPostsSort_RANKED_POSTS_SORT_HOT]},
		{"GetDiscussionsByCreated", &typesv1.DiscussionQuery{Limit: proto.Uint32(20)}, ranked[bridgev1.RankedPostsSort_RANKED_POSTS_SORT_CREATED]},
		{"GetPostDiscussionsByPayout", &typesv1.DiscussionQuery{Limit: proto.Uint32(20)}, ranked[bridgev1.RankedPostsSort_RANKED_POSTS_SORT_PAYOUT]},
		// Deprecated (older hivemind): every pending post, as promoted by 0.
		{"GetDiscussionsByPromoted", &typesv1.DiscussionQuery{Limit: proto.Uint32(20)}, ranked[bridgev1.RankedPostsSort_RANKED_POSTS_SORT_PAYOUT]},
		{"GetCommentDiscussionsByPayout", &typesv1.DiscussionQuery{Limit: proto.Uint32(20)}, ranked[bridgev1.RankedPostsSort_RANKED_POSTS_SORT_PAYOUT_COMMENTS]},
		{"GetDiscussionsByBlog", &typesv1.DiscussionQuery{Tag: proto.String(blog), Limit: proto.Uint32(3)}, len(node.Blog(blog))},
		{"GetDiscussionsByFeed", &typesv1.DiscussionQuery{Tag: proto.String(feed), Limit: proto.Uint32(3)}, node.FeedLen(feed)},
		{"GetDiscussionsByComments", &typesv1.DiscussionQuery{StartAuthor: writer, Limit: proto.Uint32(3)}, commentsBy[writer]},
	}
	for _, d := range discussions {
		// condenser_api: the query is one positional object.
		tests = append(tests, pagingCase{"condenser " + d.method, cond + d.method, condDiscussionRequest(d.method, d.query), d.want})
		if d.method == "GetDiscussionsByFeed" {
			continue // tags_api has no feed
		}
		tests = append(tests, pagingCase{"tags " + d.method, tags + d.method, tagsDiscussionRequest(d.method, d.query), d.want})
	}
	tests = append(tests,
		pagingCase{"condenser witnesses by vote", cond + "GetWitnessesByVote", &condv1.GetWitnessesByVoteRequest{Limit: proto.Uint32(7)}, len(node.Witnesses())},
		pagingCase{"condenser lookup accounts", cond + "LookupAccounts", &condv1.LookupAccountsRequest{Limit: proto.Uint32(37)}, len(node.Accounts())},
		pagingCase{"condenser lookup witness accounts", cond + "LookupWitnessAccounts", &condv1.LookupWitnessAccountsRequest{Limit: proto.Uint32(7)}, len(node.Witnesses())},
		pagingCase{"condenser rc accounts", cond + "ListRcAccounts", &condv1.ListRcAccountsRequest{Limit: proto.Uint32(37)}, len(node.Accounts())},
		pagingCase{"condenser rc delegations", cond + "ListRcDirectDelegations", &condv1.ListRcDirectDelegationsRequest{Start: &condv1.RcDelegationCursor{FromAccount: rcFrom}, Limit: proto.Uint32(2)}, rcCount},
		pagingCase{"condenser proposals by_creator", cond + "ListProposals", &condv1.ListProposalsRequest{Limit: proto.Uint32(4), Order: condv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_CREATOR}, len(node.Proposals())},
		pagingCase{"condenser proposals by_total_votes", cond + "ListProposals", &condv1.ListProposalsRequest{Limit: proto.Uint32(4), Order: condv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_TOTAL_VOTES}, len(node.Proposals())},
		pagingCase{"condenser proposal votes by_voter_proposal", cond + "ListProposalVotes", &condv1.ListProposalVotesRequest{Limit: proto.Uint32(10), Order: condv1.ListProposalVotesOrder_LIST_PROPOSAL_VOTES_ORDER_BY_VOTER_PROPOSAL}, len(node.ProposalVotes())},
		pagingCase{"condenser proposal votes by_proposal_voter", cond + "ListProposalVotes", &condv1.ListProposalVotesRequest{Limit: proto.Uint32(10), Order: condv1.ListProposalVotesOrder_LIST_PROPOSAL_VOTES_ORDER_BY_PROPOSAL_VOTER}, len(node.ProposalVotes())},
		pagingCase{"rc_api accounts", "hive.rc_api.v1.RcApiService.ListRcAccounts", &rcv1.ListRcAccountsRequest{Limit: proto.Uint32(37)}, len(node.Accounts())},
		pagingCase{"rc_api delegations", "hive.rc_api.v1.RcApiService.ListRcDirectDelegations", &rcv1.ListRcDirectDelegationsRequest{Start: &rcv1.RcDelegationCursor{FromAccount: rcFrom}, Limit: proto.Uint32(2)}, rcCount},
		pagingCase{"search find_text by relevance", "hive.search_api.v1.SearchApiService.FindText", &searchv1.FindTextRequest{Pattern: "coffee", Sort: searchv1.FindTextSort_FIND_TEXT_SORT_RELEVANCE, Limit: proto.Uint32(20)},
			count(func(c hivesim.Comment) bool { return strings.Contains(strings.ToLower(c.Title+" "+c.Body), "coffee") })},
		pagingCase{"search find_text by created", "hive.search_api.v1.SearchApiService.FindText", &searchv1.FindTextRequest{Pattern: "coffee", Sort: searchv1.FindTextSort_FIND_TEXT_SORT_CREATED, Limit: proto.Uint32(20)},
			count(func(c hivesim.Comment) bool { return strings.Contains(strings.ToLower(c.Title+" "+c.Body), "coffee") })},
		pagingCase{"virtual ops (the backend's cursor)", "hive.account_history_api.v1.AccountHistoryApiService.EnumVirtualOps", &ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 1000, BlockRangeEnd: 1100, Limit: proto.Uint32(7)}, 100},
		pagingCase{"virtual ops grouped", "hive.account_history_api.v1.AccountHistoryApiService.EnumVirtualOps", &ahv1.EnumVirtualOpsRequest{BlockRangeBegin: 1000, BlockRangeEnd: 1050, Limit: proto.Uint32(9), GroupByBlock: proto.Bool(true)}, 50},
		// Deprecated (HAfAH of 2022): the positional form of the same list.
		pagingCase{"condenser virtual ops", cond + "EnumVirtualOps", &condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1000, BlockRangeEnd: 1100, Limit: proto.Uint32(7)}, 100},
		pagingCase{"condenser virtual ops grouped", cond + "EnumVirtualOps", &condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1000, BlockRangeEnd: 1050, Limit: proto.Uint32(9), Filter: proto.Uint64(1<<64 - 1), IncludeReversible: proto.Bool(false), GroupByBlock: proto.Bool(true)}, 50},
	)
	return tests
}

func condDiscussionRequest(method string, q *typesv1.DiscussionQuery) proto.Message {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("hive.condenser_api.v1.CondenserApiService." + method))
	if err != nil {
		panic(err)
	}
	mt, err := protoregistry.GlobalTypes.FindMessageByName(d.(protoreflect.MethodDescriptor).Input().FullName())
	if err != nil {
		panic(err)
	}
	m := mt.New()
	m.Set(m.Descriptor().Fields().ByName("query"), protoreflect.ValueOfMessage(proto.Clone(q).ProtoReflect()))
	return m.Interface()
}

func tagsDiscussionRequest(method string, q *typesv1.DiscussionQuery) proto.Message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName("hive.tags_api.v1." + method + "Request"))
	if err != nil {
		panic(err)
	}
	m := mt.New()
	src := q.ProtoReflect()
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		m.Set(m.Descriptor().Fields().ByName(fd.Name()), v)
		return true
	})
	return m.Interface()
}

// pageItems returns a page's items as keys: each message's deterministic
// encoding, or the name itself; virtual operations grouped by block are
// flattened.
func pageItems(t *testing.T, resp protoreflect.Message) []string {
	t.Helper()
	var out []string
	add := func(m protoreflect.Message) {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	fields := resp.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !fd.IsList() {
			continue
		}
		l := resp.Get(fd).List()
		for j := range l.Len() {
			switch {
			case fd.Kind() != protoreflect.MessageKind:
				out = append(out, l.Get(j).String())
			case fd.Name() == "ops_by_block":
				blk := l.Get(j).Message()
				ops := blk.Get(blk.Descriptor().Fields().ByName("ops")).List()
				for k := range ops.Len() {
					add(ops.Get(k).Message())
				}
			default:
				add(l.Get(j).Message())
			}
		}
	}
	return out
}
