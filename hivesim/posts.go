package hivesim

import "unicode/utf8"

// postOpts selects the variants of hivemind's condenser post object.
type postOpts struct {
	truncate int      // truncate_body: keep at most this many characters of the body (0 = all)
	postID   bool     // tags_api adds post_id
	content  bool     // get_content adds the "content additions"
	replies  []string // get_state's discussions list the direct replies ("author/permlink")
}

// condenserPost is hivemind's condenser post object (legacy HBD strings).
func condenserPost(ch *chain, c *Comment, o postOpts) obj {
	s := &ch.social
	root := s.comments[c.root]
	body, lastPayout, url := c.Body, MaxTime, "/"+c.Category+"/@"+root.Author+"/"+root.Permlink
	if o.truncate > 0 && utf8.RuneCountInString(body) > o.truncate {
		body = string([]rune(body)[:o.truncate])
	}
	if paidOut(c) {
		lastPayout = c.LastPayout
	}
	if c.parent >= 0 {
		url += "#@" + c.Author + "/" + c.Permlink
	}
	out := obj{"author", c.Author, "permlink", c.Permlink, "category", c.Category, "title", c.Title, "body", body,
		"json_metadata", c.JSONMetadata, "created", c.Created, "last_update", c.LastUpdate, "depth", c.Depth,
		"children", c.Children, "net_rshares", c.NetRshares, "last_payout", lastPayout, "cashout_time", c.CashoutTime,
		"total_payout_value", legacyAsset(c.TotalPayout), "curator_payout_value", legacyAsset(c.CuratorPayout),
		"pending_payout_value", legacyAsset(c.PendingPayout), "replies", o.replies, "body_length", len(c.Body),
		"author_reputation", ch.byName[c.Author].Reputation, "parent_author", c.ParentAuthor,
		"parent_permlink", c.ParentPermlink, "url", url, "root_title", root.Title, "beneficiaries", []any{},
		"max_accepted_payout", legacyAsset(asset(1_000_000_000, HBD)), "percent_hbd", c.PercentHBD}
	if o.postID {
		out = append(out, "post_id", c.ID)
	}
	if o.content {
		out = append(out, "id", c.ID, "author_rewards", c.AuthorRewards, "max_cashout_time", MaxTime,
			"reward_weight", 10000, "root_author", c.RootAuthor, "root_permlink", c.RootPermlink, "allow_replies", true,
			"allow_votes", true, "allow_curation_rewards", true, "reblogged_by", []any{}, "net_votes", c.NetVotes,
			"children_abs_rshares", int64(0), "total_pending_payout_value", legacyAsset(asset(0, HBD)),
			"total_vote_weight", c.TotalVoteWeight, "vote_rshares", c.VoteRshares, "abs_rshares", c.AbsRshares)
	}
	return append(out, "active_votes", mapRows(s.votesByComment[c.ID], func(v *Vote) any {
		reputation := ch.byName[v.Voter].Reputation
		if o.content {
			return obj{"voter", v.Voter, "weight", v.Weight, "rshares", v.Rshares, "percent", v.VotePercent,
				"reputation", reputation, "time", v.LastUpdate}
		}
		return obj{"voter", v.Voter, "rshares", v.Rshares, "percent", itoa(int64(v.VotePercent)), "reputation", reputation}
	}))
}

func itoa(v int64) string { return string(appendInt(nil, v)) }
