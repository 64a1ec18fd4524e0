package gateway_test

// The paging contract (proto/README.md, "Paging"), checked for every paged
// RPC on the simulated node: walking a list by sending next_start back
// unchanged, with page sizes 1, 2, 7 and the maximum, gives exactly the full
// list, in the same order, with no item repeated or skipped, and ends
// (next_start unset on the last page). The paged RPCs are found in the
// descriptors, so a new one without a walk fails TestPagingContract.

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hivegate/hivegate/gateway"
	blockv1 "github.com/hivegate/hivegate/gen/hive/block_api/v1"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	followv1 "github.com/hivegate/hivegate/gen/hive/follow_api/v1"
	mhv1 "github.com/hivegate/hivegate/gen/hive/market_history_api/v1"
	tagsv1 "github.com/hivegate/hivegate/gen/hive/tags_api/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/server/transcode"
)

// notWalked are the paged RPCs the simulated node cannot walk, with why
// (none today).
var notWalked = map[string]string{}

// TestPagingContract walks every paged RPC with page sizes 1, 2, 7 and the
// maximum.
func TestPagingContract(t *testing.T) {
	t.Parallel()
	// A clock that stands still: the head block does not move during the
	// walks, so get_block_range's list has one length.
	now := time.Now()
	node := hivesim.New(hivesim.Options{Seed: 1, Now: func() time.Time { return now }}).WithSMTs()
	g := startTypedGateway(t, node, gateway.Options{})
	cases := append(dbPagingCases(node), readPagingCases(node)...)
	cases = append(cases, morePagingCases(node)...)
	cases = append(cases, commentPagingCases(node)...)
	cases = append(cases, smtPagingCases(node)...)

	walked := map[string]bool{}
	for _, c := range cases {
		walked[c.method] = true
	}
	for _, m := range pagedMethods(t) {
		if !walked[m] && notWalked[m] == "" {
			t.Errorf("%s is paged (its response has next_start) but no case walks it", m)
		}
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.want < 2 {
				t.Fatalf("the simulated node holds %d items: too few to page", tt.want)
			}
			walkContract(t, g, tt)
		})
	}
}

// pagedMethods are the full names of the RPCs whose response has a
// next_start.
func pagedMethods(t *testing.T) []string {
	t.Helper()
	reg, err := transcode.NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range reg.Methods() {
		if m.Desc.Output().Fields().ByName("next_start") != nil {
			out = append(out, string(m.Desc.FullName()))
		}
	}
	if len(out) < 70 {
		t.Fatalf("found %d paged RPCs; the descriptors are not all linked", len(out))
	}
	return out
}

// walkContract walks one list with every page size and compares the walks.
func walkContract(t *testing.T, g *typedGateway, tt pagingCase) {
	t.Helper()
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(tt.method))
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MethodDescriptor)
	maxSize := proto.GetExtension(md.Options(), hivegatev1.E_LimitMax).(uint32)
	var full []string
	for _, size := range []uint32{maxSize, 1, 2, 7} {
		got := walkOnce(t, g, md, tt, size)
		if size == maxSize {
			seen := map[string]bool{}
			for _, k := range got {
				if seen[k] {
					t.Fatalf("page size %d: an item is returned twice", size)
				}
				seen[k] = true
			}
			if len(got) != tt.want {
				t.Fatalf("page size %d: %d items, want %d", size, len(got), tt.want)
			}
			full = got
			continue
		}
		if !slices.Equal(got, full) {
			t.Errorf("page size %d: %d items differ from the %d of page size %d (first difference at %d)",
				size, len(got), len(full), maxSize, firstDifference(got, full))
		}
	}
}

// walkOnce pages through one list with page size size and returns its
// items in order. It fails when a page is larger than size or when paging
// does not end.
func walkOnce(t *testing.T, g *typedGateway, md protoreflect.MethodDescriptor, tt pagingCase, size uint32) []string {
	t.Helper()
	respType, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if err != nil {
		t.Fatal(err)
	}
	limitName := proto.GetExtension(md.Options(), hivegatev1.E_LimitField).(string)
	if limitName == "" {
		limitName = "limit"
	}
	req := proto.Clone(tt.first).ProtoReflect()
	// target is the message holding the limit and the cursor fields
	// (condenser_api's discussion query).
	target := func(m protoreflect.Message) protoreflect.Message {
		if q, ok := strings.CutSuffix(limitName, ".limit"); ok {
			return m.Mutable(m.Descriptor().Fields().ByName(protoreflect.Name(q))).Message()
		}
		return m
	}
	tgt := target(req)
	limitFD := tgt.Descriptor().Fields().ByName(protoreflect.Name(limitName[strings.LastIndex(limitName, ".")+1:]))
	tgt.Set(limitFD, protoreflect.ValueOfUint32(size))
	ps := protocols()
	var out []string
	for page := 0; ; page++ {
		if page > tt.want+3 {
			t.Fatalf("page size %d: still paging after %d pages", size, page)
		}
		resp := respType.New()
		if _, err := g.call(context.Background(), ps[page%len(ps)], md, req.Interface(), resp.Interface()); err != nil {
			t.Fatalf("page size %d, page %d (%v): %v", size, page, req.Interface(), err)
		}
		items := pageItems(t, resp)
		if uint32(len(items)) > size && md.Name() != "EnumVirtualOps" {
			t.Fatalf("page size %d, page %d: %d items", size, page, len(items))
		}
		if countsDown(md) {
			// Pages go from the newest entries to the oldest, each page
			// oldest first: the list is the pages in reverse.
			out = append(items, out...)
		} else {
			out = append(out, items...)
		}
		next := resp.Get(md.Output().Fields().ByName("next_start")).Message()
		if !next.IsValid() {
			return out
		}
		req = proto.Clone(req.Interface()).ProtoReflect()
		applyNextStart(t, target(req), next)
	}
}

// countsDown reports a method whose request has a counts_down field.
func countsDown(md protoreflect.MethodDescriptor) bool {
	fields := md.Input().Fields()
	for i := range fields.Len() {
		if proto.GetExtension(fields.Get(i).Options(), hivegatev1.E_CountsDown).(bool) {
			return true
		}
	}
	return false
}

// firstDifference is the first index where a and b differ.
func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// morePagingCases are the paged RPCs the older tables do not walk.
func morePagingCases(node *hivesim.Node) []pagingCase {
	acct := busiestFollowed(node)
	following := ""
	count := map[string]int{}
	followers := 0
	for _, f := range node.Follows() {
		if f.What != "blog" {
			continue
		}
		count[f.Follower]++
		if count[f.Follower] > count[following] {
			following = f.Follower
		}
		if f.Following == acct {
			followers++
		}
	}
	blog := ""
	for _, a := range node.Accounts() {
		if len(node.Blog(a.Name)) > len(node.Blog(blog)) {
			blog = a.Name
		}
	}
	delegator := ""
	delegations := map[string]int{}
	for _, d := range node.VestingDelegations() {
		delegations[d.Delegator]++
		if delegations[d.Delegator] > delegations[delegator] {
			delegator = d.Delegator
		}
	}
	// The delegator with the most expirations pending (hivesim gives a few
	// delegators a series of them, some sharing an expiration).
	expiring := ""
	expirations := map[string]int{}
	for _, x := range node.DelegationExpirations() {
		expirations[x.Delegator]++
		if expirations[x.Delegator] > expirations[expiring] || expirations[x.Delegator] == expirations[expiring] && x.Delegator < expiring {
			expiring = x.Delegator
		}
	}
	voter, comment := "", ""
	byVoter, byComment := map[string]int{}, map[string]int{}
	for _, v := range node.Votes() {
		byVoter[v.Voter]++
		if byVoter[v.Voter] > byVoter[voter] {
			voter = v.Voter
		}
		k := v.Author + "/" + v.Permlink
		byComment[k]++
		if byComment[k] > byComment[comment] {
			comment = k
		}
	}
	voted := strings.SplitN(comment, "/", 2)
	posts, replies := map[string]int{}, map[string]int{}
	author, replied := "", ""
	for _, c := range node.Comments() {
		if c.ParentAuthor == "" {
			posts[c.Author]++
			if posts[c.Author] > posts[author] {
				author = c.Author
			}
		} else {
			replies[c.ParentAuthor]++
			if replies[c.ParentAuthor] > replies[replied] {
				replied = c.ParentAuthor
			}
		}
	}
	feed := ""
	for _, a := range node.Accounts() {
		if node.FeedLen(a.Name) > node.FeedLen(feed) {
			feed = a.Name
		}
	}
	head := node.Head()
	follow := "hive.follow_api.v1.FollowApiService."
	cond := "hive.condenser_api.v1.CondenserApiService."
	epoch := &timestamppb.Timestamp{}
	end := timestamppb.New(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	return []pagingCase{
		{"follow_api followers", follow + "GetFollowers", &followv1.GetFollowersRequest{Account: acct, FollowType: typesv1.FollowType_FOLLOW_TYPE_BLOG}, followers},
		{"follow_api following", follow + "GetFollowing", &followv1.GetFollowingRequest{Account: following, FollowType: typesv1.FollowType_FOLLOW_TYPE_BLOG}, count[following]},
		{"condenser following", cond + "GetFollowing", &condv1.GetFollowingRequest{Account: following}, count[following]},
		{"follow_api blog entries", follow + "GetBlogEntries", &followv1.GetBlogEntriesRequest{Account: blog}, len(node.Blog(blog))},
		{"follow_api blog", follow + "GetBlog", &followv1.GetBlogRequest{Account: blog}, len(node.Blog(blog))},
		{"condenser blog", cond + "GetBlog", &condv1.GetBlogRequest{Account: blog}, len(node.Blog(blog))},
		{"market trade history", "hive.market_history_api.v1.MarketHistoryApiService.GetTradeHistory", &mhv1.GetTradeHistoryRequest{Start: epoch, End: end}, len(node.Trades())},
		{"condenser trade history", cond + "GetTradeHistory", &condv1.GetTradeHistoryRequest{Start: epoch, End: end}, len(node.Trades())},
		{"block range", "hive.block_api.v1.BlockApiService.GetBlockRange", &blockv1.GetBlockRangeRequest{StartingBlockNum: int64(head) - 40}, 41},
		{"condenser reputations", cond + "GetAccountReputations", &condv1.GetAccountReputationsRequest{}, len(node.Accounts())},
		{"follow_api reputations", follow + "GetAccountReputations", &followv1.GetAccountReputationsRequest{}, len(node.Accounts())},
		{"condenser vesting delegations", cond + "GetVestingDelegations", &condv1.GetVestingDelegationsRequest{Delegator: delegator}, delegations[delegator]},
		{"condenser expiring vesting delegations", cond + "GetExpiringVestingDelegations", &condv1.GetExpiringVestingDelegationsRequest{Account: expiring}, expirations[expiring]},
		{"condenser posts before date", cond + "GetDiscussionsByAuthorBeforeDate", &condv1.GetDiscussionsByAuthorBeforeDateRequest{Author: author, BeforeDate: "2100-01-01T00:00:00"}, posts[author]},
		{"tags posts before date", "hive.tags_api.v1.TagsApiService.GetDiscussionsByAuthorBeforeDate", &tagsv1.GetDiscussionsByAuthorBeforeDateRequest{Author: author, BeforeDate: "2100-01-01T00:00:00"}, posts[author]},
		{"condenser replies by last update", cond + "GetRepliesByLastUpdate", &condv1.GetRepliesByLastUpdateRequest{StartAuthor: replied}, replies[replied]},
		{"condenser feed", cond + "GetFeed", &condv1.GetFeedRequest{Account: feed}, node.FeedLen(feed)},
		{"condenser feed entries", cond + "GetFeedEntries", &condv1.GetFeedEntriesRequest{Account: feed}, node.FeedLen(feed)},
		{"votes by_comment_voter", "hive.database_api.v1.DatabaseApiService.ListVotes", &dbv1.ListVotesRequest{Start: &dbv1.ListVotesStart{Start: &dbv1.ListVotesStart_ByCommentVoter_{ByCommentVoter: &dbv1.ListVotesStart_ByCommentVoter{Author: voted[0], Permlink: voted[1]}}}}, byComment[comment]},
		{"votes by_voter_comment", "hive.database_api.v1.DatabaseApiService.ListVotes", &dbv1.ListVotesRequest{Start: &dbv1.ListVotesStart{Start: &dbv1.ListVotesStart_ByVoterComment_{ByVoterComment: &dbv1.ListVotesStart_ByVoterComment{Voter: voter}}}}, byVoter[voter]},
	}
}
