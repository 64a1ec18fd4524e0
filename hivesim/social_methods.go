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

// blogArgs reads [account, start_entry_id, limit] for blogs and feeds.
func (c *callCtx) blogArgs(p any, maxLimit int64) (account string, start int64, limit int) {
	a := c.args(p, "account", "start_entry_id", "limit")
	account = need(c.hmAccount(a.required("account"), false))
	if v := a.m["start_entry_id"]; v != nil {
		n, ok := v.(json.Number)
		c.failIf(!ok, "invalid literal for int() with base 10")
		start, _ = n.Int64()
	}
	c.failIf(start < -1, "offset cannot be negative")
	if v, ok := a.m["limit"].(json.Number); ok && string(v) == "0" {
		limit = 1 // hivemind answers limit 0 with one entry
	} else {
		limit = a.limit("limit", maxLimit, maxLimit)
	}
	return c.existing(account), start, limit
}

// newestFirst returns the ids of up to limit of n entries, ending at entry
// id start (0 or -1 = newest).
func newestFirst(n int, start int64, limit int) []int {
	last := n - 1
	if start > 0 && start < int64(last) {
		last = int(start)
	}
	var out []int
	for i := last; i >= 0 && len(out) < limit; i-- {
		out = append(out, i)
	}
	return out
}

func getBlog(entries bool) methodFunc {
	return raising(func(c *callCtx, p any, w *jw) {
		account, start, limit := c.blogArgs(p, map[bool]int64{false: 20, true: 500}[entries])
		ch, blog := c.n.ch, c.n.ch.social.blogs[account]
		listOf(w, newestFirst(len(blog), start, limit), func(i int) any {
			e := blog[i]
			o := obj{"blog", e.Blog, "entry_id", e.EntryID, "author", e.Author, "permlink", e.Permlink}
			if !entries {
				o = append(o[:4], "comment", condenserPost(ch, ch.social.comments[e.comment], postOpts{}))
			}
			return append(o, "reblogged_on", e.RebloggedOn)
		})
	})
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
	return raising(func(c *callCtx, p any, w *jw) {
		account, start, limit := c.blogArgs(p, 500)
		ch := c.n.ch
		feed := ch.feed(account)
		listOf(w, newestFirst(len(feed), start, limit), func(id int) any {
			fe := feed[id]
			cm := ch.social.comments[fe.comment]
			o := obj{"comment", condenserPost(ch, cm, postOpts{})}
			if entries {
				o = obj{"author", cm.Author, "permlink", cm.Permlink}
			}
			on := Epoch
			if len(fe.reblogBy) > 0 {
				on = fe.on
			}
			return append(o, "reblog_by", fe.reblogBy, "reblog_on", on, "entry_id", id)
		})
	})
}

func getFollows(following bool) methodFunc {
	return raising(func(c *callCtx, p any, w *jw) {
		a := c.args(p, "account", "start", "follow_type", "limit")
		account := need(c.hmAccount(a.required("account"), false))
		start, what := a.account("start", true), "blog"
		if v, ok := a.m["follow_type"]; ok && v != nil {
			what, _ = v.(string)
		} else if v, ok := a.m["type"]; ok && v != nil {
			what, _ = v.(string)
		}
		c.failIf(what != "blog" && what != "ignore", "Unsupported follow type, valid types: blog, ignore")
		limit := a.limit("limit", 1000, 1000)
		c.existing(account)
		if start != "" {
			c.existing(start)
		}
		s := &c.n.ch.social
		rows, other := s.followers[account], func(f *Follow) string { return f.Follower }
		if following {
			rows, other = s.following[account], func(f *Follow) string { return f.Following }
		}
		i := sort.Search(len(rows), func(i int) bool { return other(rows[i]) > start })
		listOf(w, collect(rows, i, uint32(limit), func(f *Follow) bool { return f.What == what }), func(f *Follow) any {
			return obj{"follower", f.Follower, "following", f.Following, "what", []string{f.What}}
		})
	})
}

func writePosts(w *jw, ch *chain, rows []*Comment, o postOpts) {
	listOf(w, rows, func(cm *Comment) any { return condenserPost(ch, cm, o) })
}

// authorPage reads what hivemind's lists that start at an author's post
// check first, in its order: the required account under authorKey, the
// start permlink (empty: from the first), the limit (at most and by
// default 20) and truncate_body.
func (a hmArgs) authorPage(authorKey string) (author, permlink string, limit, truncate int) {
	author = need(a.c.hmAccount(a.required(authorKey), false))
	permlink = need(a.c.hmPermlink(a.m["start_permlink"], true))
	return author, permlink, a.limit("limit", 20, 20), a.truncate()
}

var getRepliesByLastUpdate = raising(func(c *callCtx, p any, w *jw) {
	a := c.args(p, "start_author", "start_permlink", "limit", "truncate_body", "observer")
	author, permlink, limit, truncate := a.authorPage("start_author")
	s := &c.n.ch.social
	var rows []*Comment
	if permlink == "" {
		rows = firstN(s.byParentAuthor[c.existing(author)], limit)
	} else {
		post := need(c.hmPost(author, permlink))
		list := s.byParentAuthor[post.ParentAuthor]
		if i := slices.Index(list, post); i >= 0 && post.ParentAuthor != "" {
			rows = firstN(list[i+1:], limit)
		}
	}
	writePosts(w, c.n.ch, rows, postOpts{truncate: truncate})
})

func getDiscussionsByAuthorBeforeDate(tagsAPI bool) methodFunc {
	return raising(func(c *callCtx, p any, w *jw) {
		a := c.args(p, "author", "start_permlink", "before_date", "limit", "truncate_body", "observer")
		author, permlink, limit, truncate := a.authorPage("author")
		posts := c.n.ch.social.postsByAuthor[c.existing(author)]
		from := 0
		if permlink != "" {
			start := need(c.hmPost(author, permlink))
			from = sort.Search(len(posts), func(i int) bool { return posts[i].ID < start.ID })
		}
		writePosts(w, c.n.ch, firstN(posts[from:], limit), postOpts{truncate: truncate, postID: tagsAPI})
	})
}

var tagChars = regexp.MustCompile(`^[a-z0-9\-_]+$`)

// tagObj is a tag's trending_tags object.
func tagObj(t *Tag) any {
	return obj{"name", t.Name, "comments", t.Comments, "top_posts", t.TopPosts, "total_payouts", legacyAsset(t.TotalPayouts)}
}

var getTrendingTags = raising(func(c *callCtx, p any, w *jw) {
	a := c.args(p, "start_tag", "limit")
	start, s, from := a.str("start_tag"), &c.n.ch.social, 0
	c.failIf(start != "" && !tagChars.MatchString(start), "invalid tag `"+start+"`")
	limit := a.limit("limit", 250, 250)
	if start != "" {
		t := s.tagByName[start]
		c.failIf(t == nil, "Category "+start+" does not exist")
		from = slices.Index(s.tags, t) + 1
	}
	listOf(w, firstN(s.tags[from:], limit), tagObj)
})

// getAccountReputations serves condenser_api ([{account, reputation}]) and follow_api
// ({reputations:[{name, reputation}]}).
func getAccountReputations(followAPI bool) methodFunc {
	return raising(func(c *callCtx, p any, w *jw) {
		a := c.args(p, "account_lower_bound", "limit")
		lower, ok := a.m["account_lower_bound"].(string)
		c.failIf(!ok && a.m["account_lower_bound"] != nil, "invalid account_lower_bound type")
		limit, key := a.limit("limit", 1000, 1000), "account"
		rows := page(c.n.ch.acctByName, func(a *Account) int { return strings.Compare(a.Name, lower) }, uint32(limit))
		if followAPI {
			key = "name"
		}
		out := mapRows(rows, func(a *Account) any { return obj{key, a.Name, "reputation", a.Reputation} })
		if followAPI {
			w.val(obj{"reputations", out})
		} else {
			w.val(out)
		}
	})
}

var getContent = raising(func(c *callCtx, p any, w *jw) {
	w.val(condenserPost(c.n.ch, c.postArg(p), postOpts{content: true}))
})
