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
	"get_discussions_by_promoted":       "promoted",
}

// discussionQuery reads hivemind's discussion query (named, or condenser's
// single positional object): the tag, the start post, limit and truncate_body.
func (c *callCtx) discussionQuery(p any) (tag string, start *Comment, limit, truncate int) {
	a := c.args(p, "start_author", "start_permlink", "limit", "tag", "truncate_body", "filter_tags", "observer")
	if arr, ok := p.([]any); ok && len(arr) == 1 {
		if o, ok := arr[0].(map[string]any); ok {
			a.m = o
		}
	}
	c.failIf(a.m["filter_tags"] != nil, "filter_tags not supported")
	limit, truncate = a.limit("limit", 20, 20), a.truncate()
	a.account("observer", true)
	if permlink := a.str("start_permlink"); permlink != "" {
		start = c.startPost(a.m["start_author"], permlink)
	} else {
		a.account("start_author", true)
	}
	return a.str("tag"), start, limit, truncate
}

// getDiscussionsByAccount serves get_discussions_by_blog / _feed /
// _comments: the account's list newest first, after the start post.
func getDiscussionsByAccount(sort string) func(c *callCtx, p any, w *jw) {
	return func(c *callCtx, p any, w *jw) {
		account, start, limit, truncate := c.discussionQuery(p)
		if sort == "comments" {
			m, _ := c.hmParams(p, "start_author")
			if arr, ok := p.([]any); ok && len(arr) == 1 {
				m, _ = arr[0].(map[string]any)
			}
			account = need(c.hmAccount(m["start_author"], false))
		}
		rows := c.n.ch.accountPosts(sort, c.existing(account))
		listOf(w, afterStart(rows, start, limit), func(r listedPost) any {
			return condenserPost(c.n.ch, r.c, postOpts{truncate: truncate, postID: true})
		})
	}
}

// postArg reads author and permlink (named or positional).
func (c *callCtx) postArg(p any) *Comment {
	return c.args(p, "author", "permlink", "observer").post("author", "permlink")
}

func followCount(c *callCtx, p any, w *jw) {
	account, s := c.args(p, "account").existing("account"), &c.n.ch.social
	w.val(obj{"account", account, "follower_count", countWhat(s.followers[account], "blog"), "following_count", countWhat(s.following[account], "blog")})
}

func rebloggedBy(c *callCtx, p any, w *jw) {
	post := c.postArg(p)
	names := append([]string{post.Author}, c.n.ch.social.reblogs[int(post.ID)]...)
	slices.Sort(names[1:])
	w.val(names)
}

func findText(c *callCtx, p any, w *jw) {
	a := c.args(p, "pattern", "sort", "author", "start_author", "start_permlink", "limit", "observer", "truncate_body")
	pattern := a.str("pattern")
	c.failIf(strings.TrimSpace(pattern) == "", "pattern cannot be blank")
	sort, author := a.oneOf("sort", "sort", []string{"relevance", "created"}), a.account("author", true)
	start, limit, truncate := a.startPost("start_author", "start_permlink"), a.limit("limit", 20, 20), a.truncate()
	words, scores, rows := strings.Fields(strings.ToLower(pattern)), map[*Comment]int{}, []listedPost{}
	for _, cm := range c.n.ch.social.comments {
		score := 0
		for _, wd := range words {
			score += strings.Count(cm.search, wd)
		}
		if score > 0 && (author == "" || cm.Author == author) {
			scores[cm], rows = score, append(rows, listedPost{c: cm})
		}
	}
	slices.SortStableFunc(rows, func(a, b listedPost) int {
		if sort == "relevance" && scores[a.c] != scores[b.c] {
			return scores[b.c] - scores[a.c]
		}
		return int(b.c.ID - a.c.ID)
	})
	listOf(w, afterStart(rows, start, limit), func(r listedPost) any { return bridgePost(c.n.ch, r.c, bridgePostOpts{truncate: truncate}) })
}

func registerContentMethods(r registry) {
	for method, sort := range discussionSorts {
		for _, api := range []string{"condenser_api.", "tags_api."} {
			r.mindR(api+method, func(c *callCtx, p any, w *jw) {
				tag, start, limit, truncate := c.discussionQuery(p)
				writePosts(w, c.n.ch, c.n.ch.rankedPosts(sort, tag, start, limit), postOpts{truncate: truncate, postID: true})
			})
		}
	}
	for _, sort := range []string{"blog", "feed", "comments"} {
		r.mindR("condenser_api.get_discussions_by_"+sort, getDiscussionsByAccount(sort))
		if sort != "feed" {
			r.mindR("tags_api.get_discussions_by_"+sort, getDiscussionsByAccount(sort))
		}
	}
	for _, api := range []string{"condenser_api.", "tags_api."} {
		content := api == "condenser_api."
		r.mindR(api+"get_content_replies", func(c *callCtx, p any, w *jw) {
			writePosts(w, c.n.ch, c.n.ch.social.byParent[int(c.postArg(p).ID)], postOpts{content: content, postID: !content})
		})
	}
	r.mindR("tags_api.get_discussion", func(c *callCtx, p any, w *jw) {
		w.val(condenserPost(c.n.ch, c.postArg(p), postOpts{postID: true}))
	})
	r.mindR("condenser_api.get_active_votes", func(c *callCtx, p any, w *jw) {
		ch := c.n.ch
		listOf(w, ch.social.votesByComment[c.postArg(p).ID], func(v *Vote) any {
			return obj{"percent", v.VotePercent, "reputation", ch.byName[v.Voter].Reputation, "rshares", v.Rshares, "time", v.LastUpdate,
				"voter", v.Voter, "weight", v.Weight}
		})
	})
	for _, api := range []string{"condenser_api.", "follow_api."} {
		r.mindR(api+"get_follow_count", followCount)
		r.mindR(api+"get_reblogged_by", rebloggedBy)
	}
	r.mindR("search_api.find_text", findText)
	r.mind("follow_api.get_followers", getFollows(false))
	r.mind("follow_api.get_following", getFollows(true))
	r.mind("follow_api.get_blog", getBlog(false))
	r.mind("follow_api.get_blog_entries", getBlog(true))
	r.mindR("hive.db_head_state", func(c *callCtx, p any, w *jw) {
		w.val(obj{"db_head_block", c.head, "db_head_time", hmTime(c.now()), "db_head_age", 0})
	})
	r.mindR("hive.get_info", func(c *callCtx, p any, w *jw) {
		w.val(obj{"database_head_block", c.head, "database_patch_date", "2025-05-04 10:00:00.000000",
			"database_patched_to_revision", "cab9e328bfd5", "database_schema_version", 2, "hivemind_git_date", "2025-05-04 10:00:00 +0000",
			"hivemind_git_rev", "cab9e328bfd5", "hivemind_version", "1.28.6"})
	})
}
