package hivesim

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// The social methods hivemind serves on API nodes (condenser_api, follow_api, tags_api).

// hmBlogArgs decodes [account, start_entry_id, limit] for blogs and feeds.
func (c *callCtx) hmBlogArgs(p any, maxLimit int64) (string, int64, int64, *rpcError) {
	m, err := c.hmParams(p, "account", "start_entry_id", "limit")
	if err != nil {
		return "", 0, 0, err
	}
	av, err := c.hmRequired(m, "account")
	if err != nil {
		return "", 0, 0, err
	}
	account, err := c.hmAccount(av, false)
	if err != nil {
		return "", 0, 0, err
	}
	start := int64(0)
	if v := m["start_entry_id"]; v != nil {
		n, ok := v.(json.Number)
		if !ok {
			return "", 0, 0, c.hivemindError("invalid literal for int() with base 10")
		}
		start, _ = n.Int64()
	}
	if start < -1 {
		return "", 0, 0, c.hivemindError("offset cannot be negative")
	}
	var limit int64
	if v, ok := m["limit"].(json.Number); ok && string(v) == "0" {
		limit = 1 // hivemind answers limit 0 with one entry
	} else if limit, err = c.hmLimit(m["limit"], maxLimit, maxLimit); err != nil {
		return "", 0, 0, err
	}
	if err := c.hmExisting(account); err != nil {
		return "", 0, 0, err
	}
	return account, start, limit, nil
}

// newestFirst returns up to limit entries ending at entry id start (0 or -1 = newest).
func newestFirst[T any](entries []T, start, limit int64) []T {
	last := int64(len(entries)) - 1
	if start > 0 && start < last {
		last = start
	}
	var out []T
	for i := last; i >= 0 && int64(len(out)) < limit; i-- {
		out = append(out, entries[i])
	}
	return out
}

func getBlog(entries bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		max := int64(20)
		if entries {
			max = 500
		}
		account, start, limit, err := c.hmBlogArgs(p, max)
		if err != nil {
			return err
		}
		ch := c.n.ch
		w.arrBegin()
		for _, e := range newestFirst(ch.social.blogs[account], start, limit) {
			w.objBegin()
			w.kstr("blog", e.Blog)
			w.knum("entry_id", int64(e.EntryID))
			if entries {
				w.kstr("author", e.Author)
				w.kstr("permlink", e.Permlink)
			} else {
				w.key("comment")
				writePost(w, ch, ch.social.comments[e.comment], postOpts{})
			}
			w.ktime("reblogged_on", e.RebloggedOn)
			w.objEnd()
		}
		w.arrEnd()
		return nil
	}
}

// feedEntry is a post in an account's feed (posts and reblogs of followed accounts).
type feedEntry struct {
	comment  int
	reblogBy []string
	on       time.Time
}

func (ch *chain) feed(account string) []*feedEntry {
	s := &ch.social
	byComment := map[int]*feedEntry{}
	var out []*feedEntry
	for _, f := range s.following[account] {
		if f.What != "blog" {
			continue
		}
		for _, e := range s.blogs[f.Following] {
			on := s.comments[e.comment].Created
			if e.Author != f.Following {
				on = e.RebloggedOn
			}
			fe := byComment[e.comment]
			if fe == nil {
				fe = &feedEntry{comment: e.comment, on: on}
				byComment[e.comment] = fe
				out = append(out, fe)
			} else if on.Before(fe.on) {
				fe.on = on
			}
			if e.Author != f.Following {
				fe.reblogBy = append(fe.reblogBy, f.Following)
			}
		}
	}
	slices.SortFunc(out, func(a, b *feedEntry) int { return cmp.Or(a.on.Compare(b.on), cmp.Compare(a.comment, b.comment)) })
	return out
}

func getFeed(entries bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		account, start, limit, err := c.hmBlogArgs(p, 500)
		if err != nil {
			return err
		}
		ch := c.n.ch
		feed := ch.feed(account)
		ids := make([]int64, len(feed))
		for i := range ids {
			ids[i] = int64(i)
		}
		w.arrBegin()
		for _, id := range newestFirst(ids, start, limit) {
			fe := feed[id]
			cm := ch.social.comments[fe.comment]
			w.objBegin()
			if entries {
				w.kstr("author", cm.Author)
				w.kstr("permlink", cm.Permlink)
			} else {
				w.key("comment")
				writePost(w, ch, cm, postOpts{})
			}
			w.kstrs("reblog_by", fe.reblogBy)
			if len(fe.reblogBy) > 0 {
				w.ktime("reblog_on", fe.on)
			} else {
				w.ktime("reblog_on", Epoch)
			}
			w.knum("entry_id", id)
			w.objEnd()
		}
		w.arrEnd()
		return nil
	}
}

func getFollows(following bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "account", "start", "follow_type", "limit")
		if err != nil {
			return err
		}
		av, err := c.hmRequired(m, "account")
		if err != nil {
			return err
		}
		account, err := c.hmAccount(av, false)
		if err != nil {
			return err
		}
		start, err := c.hmAccount(m["start"], true)
		if err != nil {
			return err
		}
		what := "blog"
		if v, ok := m["follow_type"]; ok && v != nil {
			what, _ = v.(string)
		} else if v, ok := m["type"]; ok && v != nil {
			what, _ = v.(string)
		}
		if what != "blog" && what != "ignore" {
			return c.hivemindError("Unsupported follow type, valid types: blog, ignore")
		}
		limit, err := c.hmLimit(m["limit"], 1000, 1000)
		if err != nil {
			return err
		}
		if err := c.hmExisting(account); err != nil {
			return err
		}
		if start != "" {
			if err := c.hmExisting(start); err != nil {
				return err
			}
		}
		s := &c.n.ch.social
		list, other := s.followers[account], func(f *Follow) string { return f.Follower }
		if following {
			list, other = s.following[account], func(f *Follow) string { return f.Following }
		}
		i := sort.Search(len(list), func(i int) bool { return other(list[i]) > start })
		rows := collect(list, i, uint32(limit), func(f *Follow) bool { return f.What == what })
		w.arrBegin()
		for _, f := range rows {
			w.objBegin()
			w.kstr("follower", f.Follower)
			w.kstr("following", f.Following)
			w.kstrs("what", []string{f.What})
			w.objEnd()
		}
		w.arrEnd()
		return nil
	}
}

// hmTruncate decodes truncate_body (an int in Python's sense).
func (c *callCtx) hmTruncate(v any) (int, *rpcError) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		n, err := x.Int64()
		if err == nil {
			return int(n), nil
		}
		return 0, c.hivemindError("invalid literal for int() with base 10: '" + string(x) + "'")
	case string:
		return 0, c.hivemindError("invalid literal for int() with base 10: '" + x + "'")
	}
	return 0, c.hivemindError("invalid truncate_body type")
}

func writePosts(w *jw, ch *chain, rows []*Comment, o postOpts) {
	w.arrBegin()
	for _, cm := range rows {
		writePost(w, ch, cm, o)
	}
	w.arrEnd()
}

// authorPage is what hivemind's lists that start at an author's post read
// first: the author, the start permlink (empty: from the first), the limit
// and truncate_body.
type authorPage struct {
	author, permlink string
	limit            int64
	truncate         int
}

// hmAuthorPage reads an authorPage from m in the order hivemind checks
// them (so the first bad parameter is the one reported): the required
// account under authorKey, start_permlink, limit (at most and by default
// 20), truncate_body.
func (c *callCtx) hmAuthorPage(m map[string]any, authorKey string) (authorPage, *rpcError) {
	var pg authorPage
	av, err := c.hmRequired(m, authorKey)
	if err != nil {
		return pg, err
	}
	if pg.author, err = c.hmAccount(av, false); err != nil {
		return pg, err
	}
	if pg.permlink, err = c.hmPermlink(m["start_permlink"], true); err != nil {
		return pg, err
	}
	if pg.limit, err = c.hmLimit(m["limit"], 20, 20); err != nil {
		return pg, err
	}
	pg.truncate, err = c.hmTruncate(m["truncate_body"])
	return pg, err
}

func getRepliesByLastUpdate(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "start_author", "start_permlink", "limit", "truncate_body", "observer")
	if err != nil {
		return err
	}
	pg, err := c.hmAuthorPage(m, "start_author")
	if err != nil {
		return err
	}
	author, permlink, limit, truncate := pg.author, pg.permlink, pg.limit, pg.truncate
	s := &c.n.ch.social
	var rows []*Comment
	if permlink == "" {
		if err := c.hmExisting(author); err != nil {
			return err
		}
		rows = collect(s.byParentAuthor[author], 0, uint32(limit), nil)
	} else {
		post, err := c.hmPost(author, permlink)
		if err != nil {
			return err
		}
		list := s.byParentAuthor[post.ParentAuthor]
		if i := slices.Index(list, post); i >= 0 && post.ParentAuthor != "" {
			rows = collect(list, i+1, uint32(limit), nil)
		}
	}
	writePosts(w, c.n.ch, rows, postOpts{truncate: truncate})
	return nil
}

func getDiscussionsByAuthorBeforeDate(tagsAPI bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "author", "start_permlink", "before_date", "limit", "truncate_body", "observer")
		if err != nil {
			return err
		}
		pg, err := c.hmAuthorPage(m, "author")
		if err != nil {
			return err
		}
		author, permlink, limit, truncate := pg.author, pg.permlink, pg.limit, pg.truncate
		if err := c.hmExisting(author); err != nil {
			return err
		}
		posts := c.n.ch.social.postsByAuthor[author]
		from := 0
		if permlink != "" {
			start, err := c.hmPost(author, permlink)
			if err != nil {
				return err
			}
			from = sort.Search(len(posts), func(i int) bool { return posts[i].ID < start.ID })
		}
		rows := collect(posts, from, uint32(limit), nil)
		writePosts(w, c.n.ch, rows, postOpts{truncate: truncate, postID: tagsAPI})
		return nil
	}
}

var tagChars = regexp.MustCompile(`^[a-z0-9\-_]+$`)

func getTrendingTags(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "start_tag", "limit")
	if err != nil {
		return err
	}
	start, _ := m["start_tag"].(string)
	s := &c.n.ch.social
	from := 0
	if start != "" {
		if !tagChars.MatchString(start) {
			return c.hivemindError("invalid tag `" + start + "`")
		}
	}
	limit, err := c.hmLimit(m["limit"], 250, 250)
	if err != nil {
		return err
	}
	if start != "" {
		t := s.tagByName[start]
		if t == nil {
			return c.hivemindError("Category " + start + " does not exist")
		}
		from = slices.Index(s.tags, t) + 1
	}
	w.arrBegin()
	for _, t := range collect(s.tags, from, uint32(limit), nil) {
		w.objBegin()
		w.kstr("name", t.Name)
		w.knum("comments", int64(t.Comments))
		w.knum("top_posts", int64(t.TopPosts))
		w.kasset("total_payouts", t.TotalPayouts, true)
		w.objEnd()
	}
	w.arrEnd()
	return nil
}

// getAccountReputations serves condenser_api ([{account, reputation}]) and follow_api
// ({reputations:[{name, reputation}]}).
func getAccountReputations(followAPI bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "account_lower_bound", "limit")
		if err != nil {
			return err
		}
		lower := ""
		if v := m["account_lower_bound"]; v != nil {
			s, ok := v.(string)
			if !ok {
				return c.hivemindError("invalid account_lower_bound type")
			}
			lower = s
		}
		limit, err := c.hmLimit(m["limit"], 1000, 1000)
		if err != nil {
			return err
		}
		rows := page(c.n.ch.acctByName, func(a *Account) int { return strings.Compare(a.Name, lower) }, uint32(limit))
		key := "account"
		if followAPI {
			key = "name"
			w.objBegin()
			w.key("reputations")
		}
		w.arrBegin()
		for _, a := range rows {
			w.objBegin()
			w.kstr(key, a.Name)
			w.ki64("reputation", a.Reputation)
			w.objEnd()
		}
		w.arrEnd()
		if followAPI {
			w.objEnd()
		}
		return nil
	}
}

func getContent(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "author", "permlink", "observer")
	if err != nil {
		return err
	}
	author, err := c.hmAccount(m["author"], false)
	if err != nil {
		return err
	}
	permlink, err := c.hmPermlink(m["permlink"], false)
	if err != nil {
		return err
	}
	post, err := c.hmPost(author, permlink)
	if err != nil {
		return err
	}
	writePost(w, c.n.ch, post, postOpts{content: true})
	return nil
}
