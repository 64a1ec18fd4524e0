package hivesim

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// hivemind's post lists (ranked, by account, by text) and its bridge post
// object.

// rankedSorts are bridge.get_ranked_posts' sorts, in hivemind's message order.
var rankedSorts = []string{"trending", "hot", "created", "payout", "payout_comments", "muted"}

// accountPostSorts are bridge.get_account_posts' sorts.
var accountPostSorts = []string{"blog", "feed", "posts", "comments", "replies", "payout"}

// repLog10 is hivemind's reputation score (25 for 0), rounded to 2 places.
func repLog10(rep int64) float64 {
	if rep == 0 {
		return 25
	}
	neg := rep < 0
	out := math.Max(math.Log10(math.Abs(float64(rep)))-9, 0)
	if neg {
		out = -out
	}
	return math.Round((out*9+25)*100) / 100
}

// rankScore is a post's trending or hot score (hivemind's sc_trend, sc_hot).
func rankScore(c *Comment, hot bool) float64 {
	mod := 480000.0
	if hot {
		mod = 10000
	}
	sign, r := 1.0, float64(c.NetRshares)
	if r < 0 {
		sign, r = -1, -r
	}
	return sign*math.Log10(math.Max(r/10_000_000, 1)) + float64(c.Created.Unix()-1134028003)/mod
}

func paidOut(c *Comment) bool { return c.CashoutTime.Equal(MaxTime) }

// muted reports a post the simulated chain grays: voted below zero.
func muted(c *Comment) bool { return c.NetRshares < 0 }

// payoutHBD is the post's payout (paid or pending) in HBD satoshis.
func payoutHBD(c *Comment) int64 {
	return c.TotalPayout.Amount + c.CuratorPayout.Amount + c.PendingPayout.Amount
}

// rankedKey orders a ranked list: descending by (score, id).
type rankedKey struct {
	score float64
	id    int64
}

func (a rankedKey) before(b rankedKey) bool {
	return a.score > b.score || (a.score == b.score && a.id > b.id)
}

// rankedPosts lists the posts of a ranking in a tag ("" for all), after the
// start post (exclusive), at most limit. ok is false for an unknown sort.
func (ch *chain) rankedPosts(sort, tag string, start *Comment, limit int) ([]*Comment, bool) {
	s := &ch.social
	var key func(*Comment) rankedKey
	var keep func(*Comment) bool
	roots := func(c *Comment) bool { return c.parent < 0 }
	pending := func(c *Comment) bool { return !paidOut(c) }
	switch sort {
	case "trending", "hot":
		hot := sort == "hot"
		key = func(c *Comment) rankedKey { return rankedKey{rankScore(c, hot), c.ID} }
		keep = func(c *Comment) bool { return roots(c) && pending(c) }
	case "created":
		key = func(c *Comment) rankedKey { return rankedKey{0, c.ID} }
		keep = roots
	case "payout":
		key = func(c *Comment) rankedKey { return rankedKey{float64(payoutHBD(c)), c.ID} }
		keep = func(c *Comment) bool { return roots(c) && pending(c) }
	case "payout_comments":
		key = func(c *Comment) rankedKey { return rankedKey{float64(payoutHBD(c)), c.ID} }
		keep = func(c *Comment) bool { return !roots(c) && pending(c) }
	case "muted":
		// The simulated chain mutes (grays) the pending posts voted below zero.
		key = func(c *Comment) rankedKey { return rankedKey{float64(payoutHBD(c)), c.ID} }
		keep = func(c *Comment) bool { return roots(c) && pending(c) && muted(c) }
	default:
		return nil, false
	}
	category := tag
	if cm := ch.extra.communityByName[tag]; cm != nil {
		category = cm.Category
	}
	var rows []*Comment
	for _, c := range s.comments {
		if keep(c) && (tag == "" || c.Category == category) && (start == nil || key(start).before(key(c))) {
			rows = append(rows, c)
		}
	}
	slices.SortFunc(rows, func(a, b *Comment) int {
		ka, kb := key(a), key(b)
		switch {
		case ka.before(kb):
			return -1
		case kb.before(ka):
			return 1
		}
		return 0
	})
	if len(rows) > limit {
		rows = rows[:limit]
	}
	return rows, true
}

// listedPost is a post in an account list, with the accounts whose reblog
// put it there.
type listedPost struct {
	c        *Comment
	reblogBy []string
}

// afterStart returns the entries after the one of the start post
// (exclusive); all of them when start is nil or not in the list.
func afterStart(rows []listedPost, start *Comment, limit int) []listedPost {
	from := 0
	if start != nil {
		for i, r := range rows {
			if r.c == start {
				from = i + 1
				break
			}
		}
	}
	rows = rows[from:]
	if len(rows) > limit {
		rows = rows[:limit]
	}
	return rows
}

// accountPosts is bridge.get_account_posts' list for sort (newest first,
// except payout: soonest payout first). ok is false for an unknown sort.
func (ch *chain) accountPosts(sort, account string) ([]listedPost, bool) {
	s := &ch.social
	var rows []listedPost
	switch sort {
	case "blog":
		bs := s.blogs[account]
		for i := len(bs) - 1; i >= 0; i-- {
			lp := listedPost{c: s.comments[bs[i].comment]}
			if bs[i].Author != account {
				lp.reblogBy = []string{account}
			}
			rows = append(rows, lp)
		}
	case "feed":
		feed := ch.feed(account)
		for i := len(feed) - 1; i >= 0; i-- {
			rows = append(rows, listedPost{c: s.comments[feed[i].comment], reblogBy: feed[i].reblogBy})
		}
	case "posts", "comments", "payout":
		var cs []*Comment
		for _, c := range s.comments {
			if c.Author != account {
				continue
			}
			if (sort == "posts" && c.parent < 0) || (sort == "comments" && c.parent >= 0) || (sort == "payout" && !paidOut(c)) {
				cs = append(cs, c)
			}
		}
		if sort == "payout" {
			slices.SortFunc(cs, func(a, b *Comment) int { return cmp.Or(a.CashoutTime.Compare(b.CashoutTime), cmp.Compare(a.ID, b.ID)) })
		} else {
			slices.Reverse(cs)
		}
		for _, c := range cs {
			rows = append(rows, listedPost{c: c})
		}
	case "replies":
		for _, c := range s.comments {
			if c.parent >= 0 && s.comments[c.parent].Author == account {
				rows = append(rows, listedPost{c: c})
			}
		}
		slices.Reverse(rows)
	default:
		return nil, false
	}
	return rows, true
}

// bridgePostOpts are the variants of hivemind's bridge post object.
type bridgePostOpts struct {
	reblogBy []string
	replies  []string // get_discussion: the direct replies' keys
	truncate int
}

func (w *jw) kfloat(k string, v float64) {
	w.key(k)
	w.sep()
	w.b = strconv.AppendFloat(w.b, v, 'f', -1, 64)
}

// writeBridgePost writes hivemind's bridge post object.
func writeBridgePost(w *jw, ch *chain, c *Comment, o bridgePostOpts) {
	s := &ch.social
	root := s.comments[c.root]
	body := c.Body
	if o.truncate > 0 && len([]rune(body)) > o.truncate {
		body = string([]rune(body)[:o.truncate])
	}
	title := c.Title
	if c.parent >= 0 {
		title = "RE: " + root.Title
	}
	w.objBegin()
	w.kstr("author", c.Author)
	w.kstr("permlink", c.Permlink)
	w.kstr("category", c.Category)
	w.kstr("title", title)
	w.kstr("body", body)
	w.ktime("created", c.Created)
	w.ktime("updated", c.LastUpdate)
	w.knum("depth", int64(c.Depth))
	w.knum("children", int64(c.Children))
	w.ki64("net_rshares", c.NetRshares)
	w.kbool("is_paidout", paidOut(c))
	if paidOut(c) {
		w.ktime("payout_at", c.LastPayout)
	} else {
		w.ktime("payout_at", c.CashoutTime)
	}
	w.kstrs("replies", o.replies)
	w.knum("reblogs", int64(len(s.reblogs[int(c.ID)])))
	url := "/" + c.Category + "/@" + root.Author + "/" + root.Permlink
	if c.parent >= 0 {
		url += "#@" + c.Author + "/" + c.Permlink
	}
	w.kstr("url", url)
	w.kemptyArr("beneficiaries")
	w.kasset("max_accepted_payout", asset(1_000_000_000, HBD), true)
	w.knum("percent_hbd", int64(c.PercentHBD))
	w.key("json_metadata")
	if json.Valid([]byte(c.JSONMetadata)) && strings.HasPrefix(c.JSONMetadata, "{") {
		w.raw([]byte(c.JSONMetadata))
	} else {
		w.objBegin()
		w.objEnd()
	}
	w.key("stats")
	w.objBegin()
	w.kbool("hide", false)
	w.kbool("gray", muted(c))
	w.knum("total_votes", int64(len(s.votesByComment[c.ID])))
	w.kfloat("flag_weight", 0)
	if muted(c) {
		w.key("muted_reasons")
		w.arrBegin()
		w.num(3) // MUTED_REPUTATION
		w.arrEnd()
	}
	w.objEnd()
	w.kfloat("payout", float64(payoutHBD(c))/1000)
	w.kfloat("author_reputation", repLog10(ch.byName[c.Author].Reputation))
	w.key("active_votes")
	w.arrBegin()
	for _, v := range s.votesByComment[c.ID] {
		w.objBegin()
		w.ki64("rshares", v.Rshares)
		w.kstr("voter", v.Voter)
		w.objEnd()
	}
	w.arrEnd()
	w.kemptyArr("blacklists")
	if len(o.reblogBy) > 0 {
		w.kstrs("reblogged_by", o.reblogBy)
	}
	if cm := ch.communityOf(c); cm != nil {
		w.kstr("community", cm.Name)
		w.kstr("community_title", cm.Title)
		role, title := "guest", ""
		for _, r := range cm.Team {
			if r.Account == c.Author {
				role, title = r.Role, r.Title
			}
		}
		w.kstr("author_role", role)
		w.kstr("author_title", title)
	}
	if paidOut(c) {
		w.kasset("curator_payout_value", c.CuratorPayout, true)
		w.kasset("author_payout_value", c.TotalPayout, true)
		w.kasset("pending_payout_value", asset(0, HBD), true)
	} else {
		w.kasset("author_payout_value", asset(0, HBD), true)
		w.kasset("curator_payout_value", asset(0, HBD), true)
		w.kasset("pending_payout_value", c.PendingPayout, true)
	}
	if c.parent >= 0 {
		w.kstr("parent_author", c.ParentAuthor)
		w.kstr("parent_permlink", c.ParentPermlink)
	}
	w.knum("post_id", c.ID)
	w.objEnd()
}

// communityOf is the community a post belongs to (by its category).
func (ch *chain) communityOf(c *Comment) *Community {
	for _, cm := range ch.extra.communities {
		if cm.Category == c.Category {
			return cm
		}
	}
	return nil
}

// hmTime is hivemind's "YYYY-MM-DD HH:MM:SS" time form.
func hmTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }
