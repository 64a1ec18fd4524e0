package hivesim

import (
	"slices"
	"strings"
)

// hivemind's condenser_api, tags_api and follow_api content methods
// (discussions, replies, votes, reblogs, follow counts), search_api and its
// own "hive" status API.

// discussionSorts maps the get_discussions_by_* methods to their ranking.
var discussionSorts = map[string]string{
	"get_discussions_by_trending":       "trending",
	"get_discussions_by_hot":            "hot",
	"get_discussions_by_created":        "created",
	"get_post_discussions_by_payout":    "payout",
	"get_comment_discussions_by_payout": "payout_comments",
}

// discussionQuery reads hivemind's discussion query (named, or condenser's
// single positional object).
func (c *callCtx) discussionQuery(p any) (tag string, start *Comment, limit int64, truncate int, err *rpcError) {
	m, err := c.hmParams(p, "start_author", "start_permlink", "limit", "tag", "truncate_body", "filter_tags", "observer")
	if err != nil {
		return
	}
	if arr, ok := p.([]any); ok && len(arr) == 1 {
		if o, ok := arr[0].(map[string]any); ok {
			m = o
		}
	}
	if m["filter_tags"] != nil {
		err = c.hivemindError("filter_tags not supported")
		return
	}
	if limit, err = c.hmLimit(m["limit"], 20, 20); err != nil {
		return
	}
	if truncate, err = c.hmTruncate(m["truncate_body"]); err != nil {
		return
	}
	if _, err = c.hmAccount(m["observer"], true); err != nil {
		return
	}
	tag, _ = m["tag"].(string)
	if permlink, _ := m["start_permlink"].(string); permlink != "" {
		start, err = c.hmStartPost(m["start_author"], permlink)
	} else {
		_, err = c.hmAccount(m["start_author"], true)
	}
	return
}

// getDiscussions serves the ranked get_discussions_by_* methods.
func getDiscussions(method string) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		tag, start, limit, truncate, err := c.discussionQuery(p)
		if err != nil {
			return err
		}
		rows, _ := c.n.ch.rankedPosts(discussionSorts[method], tag, start, int(limit))
		writePosts(w, c.n.ch, rows, postOpts{truncate: truncate, postID: true})
		return nil
	}
}

// getDiscussionsByAccount serves get_discussions_by_blog / _feed /
// _comments: the account's list newest first, after the start post.
func getDiscussionsByAccount(sort string) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		tag, start, limit, truncate, err := c.discussionQuery(p)
		if err != nil {
			return err
		}
		account := tag
		if sort == "comments" {
			m, _ := c.hmParams(p, "start_author")
			if arr, ok := p.([]any); ok && len(arr) == 1 {
				m, _ = arr[0].(map[string]any)
			}
			if account, err = c.hmAccount(m["start_author"], false); err != nil {
				return err
			}
		}
		if account, err = c.hmAccount(account, false); err != nil {
			return err
		}
		if err := c.hmExisting(account); err != nil {
			return err
		}
		rows, _ := c.n.ch.accountPosts(sort, account)
		w.arrBegin()
		for _, r := range afterStart(rows, start, int(limit)) {
			writePost(w, c.n.ch, r.c, postOpts{truncate: truncate, postID: true})
		}
		w.arrEnd()
		return nil
	}
}

// hmPostArgs reads author and permlink (named or positional).
func (c *callCtx) hmPostArgs(p any) (*Comment, *rpcError) {
	m, err := c.hmParams(p, "author", "permlink", "observer")
	if err != nil {
		return nil, err
	}
	return c.hmAuthorPermlink(m)
}

func writeActiveVotes(w *jw, ch *chain, c *Comment) {
	w.arrBegin()
	for _, v := range ch.social.votesByComment[c.ID] {
		w.objBegin()
		w.knum("percent", int64(v.VotePercent))
		w.ki64("reputation", ch.byName[v.Voter].Reputation)
		w.ki64("rshares", v.Rshares)
		w.ktime("time", v.LastUpdate)
		w.kstr("voter", v.Voter)
		w.ku64("weight", v.Weight)
		w.objEnd()
	}
	w.arrEnd()
}

func followCount(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "account")
	if err != nil {
		return err
	}
	account, err := c.hmAccount(m["account"], false)
	if err != nil {
		return err
	}
	if err := c.hmExisting(account); err != nil {
		return err
	}
	s := &c.n.ch.social
	count := func(fs []*Follow) int64 {
		n := int64(0)
		for _, f := range fs {
			if f.What == "blog" {
				n++
			}
		}
		return n
	}
	w.objBegin()
	w.kstr("account", account)
	w.knum("follower_count", count(s.followers[account]))
	w.knum("following_count", count(s.following[account]))
	w.objEnd()
	return nil
}

func rebloggedBy(c *callCtx, p any, w *jw) *rpcError {
	post, err := c.hmPostArgs(p)
	if err != nil {
		return err
	}
	names := append([]string{post.Author}, c.n.ch.social.reblogs[int(post.ID)]...)
	slices.Sort(names[1:])
	writeStrings(w, names)
	return nil
}

// contentReplies serves get_content_replies: the direct replies, oldest first.
func contentReplies(content bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		post, err := c.hmPostArgs(p)
		if err != nil {
			return err
		}
		writePosts(w, c.n.ch, c.n.ch.social.byParent[int(post.ID)], postOpts{content: content, postID: !content})
		return nil
	}
}

func findText(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "pattern", "sort", "author", "start_author", "start_permlink", "limit", "observer", "truncate_body")
	if err != nil {
		return err
	}
	pattern, _ := m["pattern"].(string)
	if strings.TrimSpace(pattern) == "" {
		return c.hivemindError("pattern cannot be blank")
	}
	sort, _ := m["sort"].(string)
	if sort != "relevance" && sort != "created" {
		return c.hivemindError("Unsupported sort, valid sorts: relevance, created")
	}
	author, err := c.hmAccount(m["author"], true)
	if err != nil {
		return err
	}
	start, err := c.hmStartPost(m["start_author"], m["start_permlink"])
	if err != nil {
		return err
	}
	limit, err := c.hmLimit(m["limit"], 20, 20)
	if err != nil {
		return err
	}
	truncate, err := c.hmTruncate(m["truncate_body"])
	if err != nil {
		return err
	}
	words := strings.Fields(strings.ToLower(pattern))
	type hit struct {
		c     *Comment
		score int
	}
	var hits []hit
	for _, cm := range c.n.ch.social.comments {
		if author != "" && cm.Author != author {
			continue
		}
		text := strings.ToLower(cm.Title + " " + cm.Body)
		score := 0
		for _, wd := range words {
			score += strings.Count(text, wd)
		}
		if score > 0 {
			hits = append(hits, hit{cm, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if sort == "relevance" && a.score != b.score {
			return b.score - a.score
		}
		return int(b.c.ID - a.c.ID)
	})
	rows := make([]listedPost, len(hits))
	for i, h := range hits {
		rows[i] = listedPost{c: h.c}
	}
	w.arrBegin()
	for _, r := range afterStart(rows, start, int(limit)) {
		writeBridgePost(w, c.n.ch, r.c, bridgePostOpts{truncate: truncate})
	}
	w.arrEnd()
	return nil
}

func registerContentMethods(r registry) {
	for method := range discussionSorts {
		r.mind("condenser_api."+method, getDiscussions(method))
		r.mind("tags_api."+method, getDiscussions(method))
	}
	for _, sort := range []string{"blog", "feed", "comments"} {
		r.mind("condenser_api.get_discussions_by_"+sort, getDiscussionsByAccount(sort))
		if sort != "feed" {
			r.mind("tags_api.get_discussions_by_"+sort, getDiscussionsByAccount(sort))
		}
	}
	r.mind("condenser_api.get_content_replies", contentReplies(true))
	r.mind("tags_api.get_content_replies", contentReplies(false))
	r.mind("tags_api.get_discussion", func(c *callCtx, p any, w *jw) *rpcError {
		post, err := c.hmPostArgs(p)
		if err != nil {
			return err
		}
		writePost(w, c.n.ch, post, postOpts{postID: true})
		return nil
	})
	r.mind("condenser_api.get_active_votes", func(c *callCtx, p any, w *jw) *rpcError {
		post, err := c.hmPostArgs(p)
		if err != nil {
			return err
		}
		writeActiveVotes(w, c.n.ch, post)
		return nil
	})
	r.mind("condenser_api.get_follow_count", followCount)
	r.mind("follow_api.get_follow_count", followCount)
	r.mind("condenser_api.get_reblogged_by", rebloggedBy)
	r.mind("follow_api.get_reblogged_by", rebloggedBy)
	r.mind("search_api.find_text", findText)
	r.mind("follow_api.get_followers", getFollows(false))
	r.mind("follow_api.get_following", getFollows(true))
	r.mind("follow_api.get_blog", getBlog(false))
	r.mind("follow_api.get_blog_entries", getBlog(true))
	r.mind("hive.db_head_state", func(c *callCtx, p any, w *jw) *rpcError {
		w.objBegin()
		w.knum("db_head_block", int64(c.head))
		w.kstr("db_head_time", hmTime(c.now()))
		w.knum("db_head_age", 0)
		w.objEnd()
		return nil
	})
	r.mind("hive.get_info", func(c *callCtx, p any, w *jw) *rpcError {
		w.objBegin()
		w.knum("database_head_block", int64(c.head))
		w.kstr("database_patch_date", "2025-05-04 10:00:00.000000")
		w.kstr("database_patched_to_revision", "cab9e328bfd5")
		w.knum("database_schema_version", 2)
		w.kstr("hivemind_git_date", "2025-05-04 10:00:00 +0000")
		w.kstr("hivemind_git_rev", "cab9e328bfd5")
		w.kstr("hivemind_version", "1.28.6")
		w.objEnd()
		return nil
	})
}
