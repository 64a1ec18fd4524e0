package gateway_test

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// commentPagingCases walk database_api.list_comments in each of its six
// orders (issue 28 item 1: it was excused from TestPagingContract). No
// current node serves list_comments; the simulated node answers it as
// hivemind's Python server did, and the contract holds there as for every
// paged RPC.
func commentPagingCases(node *hivesim.Node) []pagingCase {
	comments := node.Comments()
	type key struct{ author, permlink string }
	byRoot, byParent := map[key]int{}, map[key]int{}
	byParentAuthor, byAuthor := map[string]int{}, map[string]int{}
	for _, c := range comments {
		byAuthor[c.Author]++
		if c.ParentAuthor == "" {
			continue
		}
		byRoot[key{c.RootAuthor, c.RootPermlink}]++
		byParent[key{c.ParentAuthor, c.ParentPermlink}]++
		byParentAuthor[c.ParentAuthor]++
	}
	busiest := func(m map[key]int) key {
		var best key
		for k, n := range m {
			if n > m[best] || n == m[best] && (k.author+"/"+k.permlink) < (best.author+"/"+best.permlink) {
				best = k
			}
		}
		return best
	}
	busiestName := func(m map[string]int) string {
		best := ""
		for k, n := range m {
			if n > m[best] || n == m[best] && k < best {
				best = k
			}
		}
		return best
	}
	root, parent := busiest(byRoot), busiest(byParent)
	parentAuthor, author := busiestName(byParentAuthor), busiestName(byAuthor)
	db := "hive.database_api.v1.DatabaseApiService.ListComments"
	later := timestamppb.New(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
	start := func(s *dbv1.ListCommentsStart) *dbv1.ListCommentsRequest {
		return &dbv1.ListCommentsRequest{Start: s}
	}
	return []pagingCase{
		{"comments by_cashout_time", db, &dbv1.ListCommentsRequest{Order: dbv1.ListCommentsOrder_LIST_COMMENTS_ORDER_BY_CASHOUT_TIME}, len(comments)},
		{"comments by_permlink", db, &dbv1.ListCommentsRequest{Order: dbv1.ListCommentsOrder_LIST_COMMENTS_ORDER_BY_PERMLINK}, len(comments)},
		{"comments by_root", db, start(&dbv1.ListCommentsStart{Start: &dbv1.ListCommentsStart_ByRoot_{ByRoot: &dbv1.ListCommentsStart_ByRoot{RootAuthor: root.author, RootPermlink: root.permlink}}}), byRoot[root] + 1},
		{"comments by_parent", db, start(&dbv1.ListCommentsStart{Start: &dbv1.ListCommentsStart_ByParent_{ByParent: &dbv1.ListCommentsStart_ByParent{ParentAuthor: parent.author, ParentPermlink: parent.permlink}}}), byParent[parent]},
		{"comments by_last_update", db, start(&dbv1.ListCommentsStart{Start: &dbv1.ListCommentsStart_ByLastUpdate_{ByLastUpdate: &dbv1.ListCommentsStart_ByLastUpdate{ParentAuthor: parentAuthor, LastUpdate: later}}}), byParentAuthor[parentAuthor]},
		{"comments by_author_last_update", db, start(&dbv1.ListCommentsStart{Start: &dbv1.ListCommentsStart_ByAuthorLastUpdate_{ByAuthorLastUpdate: &dbv1.ListCommentsStart_ByAuthorLastUpdate{Author: author, LastUpdate: later}}}), byAuthor[author]},
	}
}
