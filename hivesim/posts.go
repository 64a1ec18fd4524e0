package hivesim

import "unicode/utf8"

// postOpts selects the variants of hivemind's condenser post object.
type postOpts struct {
	truncate int      // truncate_body: keep at most this many characters of the body (0 = all)
	postID   bool     // tags_api adds post_id
	content  bool     // get_content adds the "content additions"
	replies  []string // get_state's discussions list the direct replies ("author/permlink")
}

// writePost writes hivemind's condenser post object (legacy HBD strings).
func writePost(w *jw, ch *chain, c *Comment, o postOpts) {
	s := &ch.social
	root := s.comments[c.root]
	paid := c.CashoutTime.Equal(MaxTime)
	body := c.Body
	if o.truncate > 0 && utf8.RuneCountInString(body) > o.truncate {
		body = string([]rune(body)[:o.truncate])
	}
	w.objBegin()
	w.kstr("author", c.Author)
	w.kstr("permlink", c.Permlink)
	w.kstr("category", c.Category)
	w.kstr("title", c.Title)
	w.kstr("body", body)
	w.kstr("json_metadata", c.JSONMetadata)
	w.ktime("created", c.Created)
	w.ktime("last_update", c.LastUpdate)
	w.knum("depth", int64(c.Depth))
	w.knum("children", int64(c.Children))
	w.ki64("net_rshares", c.NetRshares)
	if paid {
		w.ktime("last_payout", c.LastPayout)
	} else {
		w.ktime("last_payout", MaxTime)
	}
	w.ktime("cashout_time", c.CashoutTime)
	w.kasset("total_payout_value", c.TotalPayout, true)
	w.kasset("curator_payout_value", c.CuratorPayout, true)
	w.kasset("pending_payout_value", c.PendingPayout, true)
	w.kstrs("replies", o.replies)
	w.knum("body_length", int64(len(c.Body)))
	w.ki64("author_reputation", ch.byName[c.Author].Reputation)
	w.kstr("parent_author", c.ParentAuthor)
	w.kstr("parent_permlink", c.ParentPermlink)
	url := "/" + c.Category + "/@" + root.Author + "/" + root.Permlink
	if c.parent >= 0 {
		url += "#@" + c.Author + "/" + c.Permlink
	}
	w.kstr("url", url)
	w.kstr("root_title", root.Title)
	w.kemptyArr("beneficiaries")
	w.kasset("max_accepted_payout", asset(1_000_000_000, HBD), true)
	w.knum("percent_hbd", int64(c.PercentHBD))
	if o.postID {
		w.knum("post_id", c.ID)
	}
	if o.content {
		w.knum("id", c.ID)
		w.ki64("author_rewards", c.AuthorRewards)
		w.ktime("max_cashout_time", MaxTime)
		w.knum("reward_weight", 10000)
		w.kstr("root_author", c.RootAuthor)
		w.kstr("root_permlink", c.RootPermlink)
		w.kbool("allow_replies", true)
		w.kbool("allow_votes", true)
		w.kbool("allow_curation_rewards", true)
		w.kstrs("reblogged_by", nil)
		w.knum("net_votes", int64(c.NetVotes))
		w.ki64("children_abs_rshares", 0)
		w.kasset("total_pending_payout_value", asset(0, HBD), true)
		w.ku64("total_vote_weight", c.TotalVoteWeight)
		w.ki64("vote_rshares", c.VoteRshares)
		w.ki64("abs_rshares", c.AbsRshares)
	}
	w.key("active_votes")
	w.arrBegin()
	for _, v := range s.votesByComment[c.ID] {
		w.objBegin()
		w.kstr("voter", v.Voter)
		if o.content {
			w.ku64("weight", v.Weight)
		}
		w.ki64("rshares", v.Rshares)
		if o.content {
			w.knum("percent", int64(v.VotePercent))
		} else {
			w.kstr("percent", itoa(int64(v.VotePercent)))
		}
		w.ki64("reputation", ch.byName[v.Voter].Reputation)
		if o.content {
			w.ktime("time", v.LastUpdate)
		}
		w.objEnd()
	}
	w.arrEnd()
	w.objEnd()
}

func itoa(v int64) string { return string(appendInt(nil, v)) }
