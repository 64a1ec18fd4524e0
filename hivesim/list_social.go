package hivesim

import (
	"cmp"
	"strings"
	"time"
)

// database_api.list_votes and list_comments as hivemind served them.

func writeCommentVote(w *jw, v *Vote) {
	w.val(obj{"voter", v.Voter, "author", v.Author, "permlink", v.Permlink, "weight", v.Weight, "rshares", v.Rshares,
		"vote_percent", v.VotePercent, "last_update", v.LastUpdate, "num_changes", v.NumChanges})
}

// writeDBComment writes api_comment_object with NAI assets (hivemind's database_api form).
func writeDBComment(w *jw, c *Comment) {
	w.val(obj{"id", c.ID, "author", c.Author, "permlink", c.Permlink, "category", c.Category, "parent_author", c.ParentAuthor,
		"parent_permlink", c.ParentPermlink, "title", c.Title, "body", c.Body, "json_metadata", c.JSONMetadata,
		"last_update", c.LastUpdate, "created", c.Created, "last_payout", c.LastPayout, "depth", c.Depth, "children", c.Children,
		"net_rshares", c.NetRshares, "abs_rshares", c.AbsRshares, "vote_rshares", c.VoteRshares, "children_abs_rshares", int64(0),
		"cashout_time", c.CashoutTime, "max_cashout_time", MaxTime, "total_vote_weight", c.TotalVoteWeight, "reward_weight", 10000,
		"total_payout_value", naiAsset(c.TotalPayout), "curator_payout_value", naiAsset(c.CuratorPayout), "author_rewards", c.AuthorRewards,
		"net_votes", c.NetVotes, "root_author", c.RootAuthor, "root_permlink", c.RootPermlink,
		"max_accepted_payout", naiAsset(asset(1_000_000_000, HBD)), "percent_hbd", c.PercentHBD, "allow_replies", true,
		"allow_votes", true, "allow_curation_rewards", true, "beneficiaries", []any{}})
}

// order is the required 'order' argument, one of supported.
func (a hmArgs) order(supported ...string) string {
	a.required("order")
	return a.oneOf("order", "order", supported)
}

// start is the 'start' array of n elements, or fails with msg.
func (a hmArgs) start(n int, msg string) []any {
	s, ok := a.m["start"].([]any)
	a.c.failIf(!ok || len(s) != n, msg)
	return s
}

var listVotes = raising(func(c *callCtx, p any, w *jw) {
	a := c.args(p, "start", "limit", "order")
	order, limit := a.order("by_comment_voter", "by_voter_comment"), uint32(a.limit("limit", 1000, 1000))
	s := &c.n.ch.social
	var rows []*Vote
	if order == "by_comment_voter" {
		start := a.start(3, "Expecting 3 arguments in 'start' array: post author and permlink, optional page start voter")
		author, permlink := need(c.hmAccount(start[0], false)), need(c.hmPermlink(start[1], false))
		voter, voterID := need(c.hmAccount(start[2], true)), int64(-1)
		post := need(c.hmPost(author, permlink))
		if voter != "" {
			voterID = c.n.ch.accountID(c.existing(voter))
		}
		rows = page(s.votesByComment[post.ID], func(v *Vote) int { return cmp.Compare(v.voterID, voterID) }, limit)
	} else {
		start := a.start(3, "Expecting 3 arguments in 'start' array: voter, optional page start author and permlink")
		voter := c.existing(start[0])
		fromID := idOrMinus1(c.startPost(start[1], start[2]))
		rows = page(s.votesByVoter[voter], func(v *Vote) int { return cmp.Compare(v.commentID, fromID) }, limit)
	}
	writeList(w, "votes", rows, writeCommentVote)
})

var commentOrders = []string{"by_cashout_time", "by_permlink", "by_root", "by_parent", "by_last_update", "by_author_last_update"}

// listCommentsStart are list_comments' start messages by order.
var listCommentsStart = map[string]string{
	"by_cashout_time":       "Expecting three arguments in 'start' array: cashout time, optional page start author and permlink",
	"by_permlink":           "Expecting two arguments in 'start' array: author and permlink",
	"by_root":               "Expecting 4 arguments in 'start' array: discussion root author and permlink, optional page start author and permlink",
	"by_parent":             "Expecting 4 arguments in 'start' array: parent post author and permlink, optional page start author and permlink",
	"by_last_update":        "Expecting 4 arguments in 'start' array: parent author, update time, optional page start author and permlink",
	"by_author_last_update": "Expecting 4 arguments in 'start' array: author, update time, optional page start author and permlink",
}

var listComments = raising(func(c *callCtx, p any, w *jw) {
	a := c.args(p, "start", "limit", "order")
	order, limit := a.order(commentOrders...), uint32(a.limit("limit", 1000, 1000))
	s := &c.n.ch.social
	var rows []*Comment
	switch order {
	case "by_cashout_time":
		start := a.start(3, listCommentsStart[order])
		when := c.hmDate(start[0])
		fromID := idOrMinus1(c.startPost(start[1], start[2]))
		rows = page(s.cByCashout, func(x *Comment) int { return cmp.Or(x.CashoutTime.Compare(when), cmp.Compare(x.ID, fromID)) }, limit)
	case "by_permlink":
		start := a.start(2, listCommentsStart[order])
		author, ok := start[0].(string)
		c.failIf(!ok, "invalid account name type")
		permlink, ok := start[1].(string)
		c.failIf(!ok, "permlink must be string")
		rows = page(s.cByPermlink, func(x *Comment) int {
			return cmp.Or(strings.Compare(x.Author, author), strings.Compare(x.Permlink, permlink))
		}, limit)
	case "by_root", "by_parent":
		start := a.start(4, listCommentsStart[order])
		author, permlink := need(c.hmAccount(start[0], false)), need(c.hmPermlink(start[1], false))
		need(c.hmAccount(start[2], true))
		need(c.hmPermlink(start[3], true))
		post := need(c.hmPost(author, permlink))
		fromID := idOrMinus1(c.startPost(start[2], start[3]))
		thread := map[string]map[int][]*Comment{"by_root": s.byRoot, "by_parent": s.byParent}[order][int(post.ID)]
		rows = page(thread, func(x *Comment) int { return cmp.Compare(x.ID, fromID) }, limit)
	default: // by_last_update, by_author_last_update
		start := a.start(4, listCommentsStart[order])
		author, when := need(c.hmAccount(start[0], false)), c.hmDate(start[1])
		need(c.hmAccount(start[2], true))
		need(c.hmPermlink(start[3], true))
		c.existing(author)
		fromID := idOrMinus1(c.startPost(start[2], start[3]))
		list := map[string]map[string][]*Comment{"by_last_update": s.byParentAuthor, "by_author_last_update": s.byAuthor}[order][author]
		rows = page(list, updatedKey(when, fromID), limit)
	}
	writeList(w, "comments", rows, writeDBComment)
})

// updatedKey orders (last_update descending, id ascending): rows updated before when,
// or at when with an id not below fromID, are at or after the key.
func updatedKey(when time.Time, fromID int64) func(*Comment) int {
	return func(x *Comment) int { return cmp.Or(-x.LastUpdate.Compare(when), cmp.Compare(x.ID, fromID)) }
}

func idOrMinus1(c *Comment) int64 {
	if c == nil {
		return -1
	}
	return c.ID
}
