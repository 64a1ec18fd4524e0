package hivesim

import (
	"cmp"
	"strings"
	"time"
)

// database_api.list_votes and list_comments as hivemind served them.

func writeCommentVote(w *jw, v *Vote) {
	w.objBegin()
	w.kstr("voter", v.Voter)
	w.kstr("author", v.Author)
	w.kstr("permlink", v.Permlink)
	w.ku64("weight", v.Weight)
	w.ki64("rshares", v.Rshares)
	w.knum("vote_percent", int64(v.VotePercent))
	w.ktime("last_update", v.LastUpdate)
	w.knum("num_changes", int64(v.NumChanges))
	w.objEnd()
}

// writeDBComment writes api_comment_object with NAI assets (hivemind's database_api form).
func writeDBComment(w *jw, c *Comment) {
	w.objBegin()
	w.knum("id", c.ID)
	w.kstr("author", c.Author)
	w.kstr("permlink", c.Permlink)
	w.kstr("category", c.Category)
	w.kstr("parent_author", c.ParentAuthor)
	w.kstr("parent_permlink", c.ParentPermlink)
	w.kstr("title", c.Title)
	w.kstr("body", c.Body)
	w.kstr("json_metadata", c.JSONMetadata)
	w.ktime("last_update", c.LastUpdate)
	w.ktime("created", c.Created)
	w.ktime("last_payout", c.LastPayout)
	w.knum("depth", int64(c.Depth))
	w.knum("children", int64(c.Children))
	w.ki64("net_rshares", c.NetRshares)
	w.ki64("abs_rshares", c.AbsRshares)
	w.ki64("vote_rshares", c.VoteRshares)
	w.ki64("children_abs_rshares", 0)
	w.ktime("cashout_time", c.CashoutTime)
	w.ktime("max_cashout_time", MaxTime)
	w.ku64("total_vote_weight", c.TotalVoteWeight)
	w.knum("reward_weight", 10000)
	w.kasset("total_payout_value", c.TotalPayout, false)
	w.kasset("curator_payout_value", c.CuratorPayout, false)
	w.ki64("author_rewards", c.AuthorRewards)
	w.knum("net_votes", int64(c.NetVotes))
	w.kstr("root_author", c.RootAuthor)
	w.kstr("root_permlink", c.RootPermlink)
	w.kasset("max_accepted_payout", asset(1_000_000_000, HBD), false)
	w.knum("percent_hbd", int64(c.PercentHBD))
	w.kbool("allow_replies", true)
	w.kbool("allow_votes", true)
	w.kbool("allow_curation_rewards", true)
	w.kemptyArr("beneficiaries")
	w.objEnd()
}

func listVotes(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "start", "limit", "order")
	if err != nil {
		return err
	}
	order, err := c.hmOrder(m, "by_comment_voter", "by_voter_comment")
	if err != nil {
		return err
	}
	limit, err := c.hmLimit(m["limit"], 1000, 1000)
	if err != nil {
		return err
	}
	s := &c.n.ch.social
	var rows []*Vote
	if order == "by_comment_voter" {
		start, err := c.hmStart(m, 3, "Expecting 3 arguments in 'start' array: post author and permlink, optional page start voter")
		if err != nil {
			return err
		}
		author, err := c.hmAccount(start[0], false)
		if err != nil {
			return err
		}
		permlink, err := c.hmPermlink(start[1], false)
		if err != nil {
			return err
		}
		voter, err := c.hmAccount(start[2], true)
		if err != nil {
			return err
		}
		post, err := c.hmPost(author, permlink)
		if err != nil {
			return err
		}
		voterID := int64(-1)
		if voter != "" {
			if err := c.hmExisting(voter); err != nil {
				return err
			}
			voterID = c.n.ch.accountID(voter)
		}
		rows = page(s.votesByComment[post.ID], func(v *Vote) int { return cmp.Compare(v.voterID, voterID) }, uint32(limit))
	} else {
		start, err := c.hmStart(m, 3, "Expecting 3 arguments in 'start' array: voter, optional page start author and permlink")
		if err != nil {
			return err
		}
		voter, err := c.hmAccount(start[0], false)
		if err != nil {
			return err
		}
		if err := c.hmExisting(voter); err != nil {
			return err
		}
		from, err := c.hmStartPost(start[1], start[2])
		if err != nil {
			return err
		}
		fromID := int64(-1)
		if from != nil {
			fromID = from.ID
		}
		rows = page(s.votesByVoter[voter], func(v *Vote) int { return cmp.Compare(v.commentID, fromID) }, uint32(limit))
	}
	writeList(w, "votes", rows, writeCommentVote)
	return nil
}

var commentOrders = []string{"by_cashout_time", "by_permlink", "by_root", "by_parent", "by_last_update", "by_author_last_update"}

func listComments(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "start", "limit", "order")
	if err != nil {
		return err
	}
	order, err := c.hmOrder(m, commentOrders...)
	if err != nil {
		return err
	}
	limit, err := c.hmLimit(m["limit"], 1000, 1000)
	if err != nil {
		return err
	}
	s := &c.n.ch.social
	var rows []*Comment
	switch order {
	case "by_cashout_time":
		start, err := c.hmStart(m, 3, "Expecting three arguments in 'start' array: cashout time, optional page start author and permlink")
		if err != nil {
			return err
		}
		when, err := c.hmDate(start[0])
		if err != nil {
			return err
		}
		from, err := c.hmStartPost(start[1], start[2])
		if err != nil {
			return err
		}
		fromID := idOrMinus1(from)
		rows = page(s.cByCashout, func(x *Comment) int {
			return cmp.Or(x.CashoutTime.Compare(when), cmp.Compare(x.ID, fromID))
		}, uint32(limit))
	case "by_permlink":
		start, err := c.hmStart(m, 2, "Expecting two arguments in 'start' array: author and permlink")
		if err != nil {
			return err
		}
		author, ok := start[0].(string)
		if !ok {
			return c.hivemindError("invalid account name type")
		}
		permlink, ok := start[1].(string)
		if !ok {
			return c.hivemindError("permlink must be string")
		}
		rows = page(s.cByPermlink, func(x *Comment) int {
			return cmp.Or(strings.Compare(x.Author, author), strings.Compare(x.Permlink, permlink))
		}, uint32(limit))
	case "by_root", "by_parent":
		msg := "Expecting 4 arguments in 'start' array: discussion root author and permlink, optional page start author and permlink"
		if order == "by_parent" {
			msg = "Expecting 4 arguments in 'start' array: parent post author and permlink, optional page start author and permlink"
		}
		start, err := c.hmStart(m, 4, msg)
		if err != nil {
			return err
		}
		author, err := c.hmAccount(start[0], false)
		if err != nil {
			return err
		}
		permlink, err := c.hmPermlink(start[1], false)
		if err != nil {
			return err
		}
		if _, err := c.hmAccount(start[2], true); err != nil {
			return err
		}
		if _, err := c.hmPermlink(start[3], true); err != nil {
			return err
		}
		post, err := c.hmPost(author, permlink)
		if err != nil {
			return err
		}
		from, err := c.hmStartPost(start[2], start[3])
		if err != nil {
			return err
		}
		thread := s.byRoot[int(post.ID)]
		if order == "by_parent" {
			thread = s.byParent[int(post.ID)]
		}
		fromID := idOrMinus1(from)
		rows = page(thread, func(x *Comment) int { return cmp.Compare(x.ID, fromID) }, uint32(limit))
	default: // by_last_update, by_author_last_update
		msg := "Expecting 4 arguments in 'start' array: parent author, update time, optional page start author and permlink"
		if order == "by_author_last_update" {
			msg = "Expecting 4 arguments in 'start' array: author, update time, optional page start author and permlink"
		}
		start, err := c.hmStart(m, 4, msg)
		if err != nil {
			return err
		}
		author, err := c.hmAccount(start[0], false)
		if err != nil {
			return err
		}
		when, err := c.hmDate(start[1])
		if err != nil {
			return err
		}
		if _, err := c.hmAccount(start[2], true); err != nil {
			return err
		}
		if _, err := c.hmPermlink(start[3], true); err != nil {
			return err
		}
		if err := c.hmExisting(author); err != nil {
			return err
		}
		from, err := c.hmStartPost(start[2], start[3])
		if err != nil {
			return err
		}
		list := s.byParentAuthor[author]
		if order == "by_author_last_update" {
			list = s.byAuthor[author]
		}
		rows = page(list, updatedKey(when, idOrMinus1(from)), uint32(limit))
	}
	writeList(w, "comments", rows, writeDBComment)
	return nil
}

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
