package hivesim

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
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

func (a rankedKey) cmp(b rankedKey) int {
	return cmp.Or(-cmp.Compare(a.score, b.score), -cmp.Compare(a.id, b.id))
}

// rankedPosts lists the posts of a ranking in a tag ("" for all), after the
// start post (exclusive), at most limit; none for an unknown sort.
func (ch *chain) rankedPosts(sort, tag string, start *Comment, limit int) []*Comment {
	pending := func(c *Comment) bool { return c.parent < 0 && !paidOut(c) }
	key, keep := func(c *Comment) rankedKey { return rankedKey{float64(payoutHBD(c)), c.ID} }, pending
	switch sort {
	case "trending", "hot":
		key = func(c *Comment) rankedKey { return rankedKey{rankScore(c, sort == "hot"), c.ID} }
	case "created":
		key, keep = func(c *Comment) rankedKey { return rankedKey{0, c.ID} }, func(c *Comment) bool { return c.parent < 0 }
	case "payout":
	case "payout_comments":
		keep = func(c *Comment) bool { return c.parent >= 0 && !paidOut(c) }
	case "promoted": // condenser's, not bridge's (see promoted_methods.go)
		key = func(c *Comment) rankedKey { return rankedKey{float64(promotedAmount(c)), c.ID} }
	case "muted": // the simulated chain mutes (grays) the pending posts voted below zero
		keep = func(c *Comment) bool { return pending(c) && muted(c) }
	default:
		return nil
	}
	category := tag
	if cm := ch.extra.communityByName[tag]; cm != nil {
		category = cm.Category
	}
	rows := filterRows(ch.social.comments, func(c *Comment) bool {
		return keep(c) && (tag == "" || c.Category == category) && (start == nil || key(start).cmp(key(c)) < 0)
	})
	slices.SortFunc(rows, func(a, b *Comment) int { return key(a).cmp(key(b)) })
	return firstN(rows, limit)
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
	from := slices.IndexFunc(rows, func(r listedPost) bool { return r.c == start }) + 1
	return firstN(rows[from:], limit)
}

// accountPosts is bridge.get_account_posts' list for sort (newest first,
// except payout: soonest payout first); none for an unknown sort.
func (ch *chain) accountPosts(sort, account string) []listedPost {
	s := &ch.social
	var rows []listedPost
	switch sort {
	case "blog":
		for _, e := range s.blogs[account] {
			lp := listedPost{c: s.comments[e.comment]}
			if e.Author != account {
				lp.reblogBy = []string{account}
			}
			rows = append(rows, lp)
		}
	case "feed":
		for _, fe := range ch.feed(account) {
			rows = append(rows, listedPost{c: s.comments[fe.comment], reblogBy: fe.reblogBy})
		}
	default:
		keep := map[string]func(c *Comment) bool{
			"posts":    func(c *Comment) bool { return c.Author == account && c.parent < 0 },
			"comments": func(c *Comment) bool { return c.Author == account && c.parent >= 0 },
			"payout":   func(c *Comment) bool { return c.Author == account && !paidOut(c) },
			"replies":  func(c *Comment) bool { return c.parent >= 0 && s.comments[c.parent].Author == account },
		}[sort]
		if keep == nil {
			return nil
		}
		rows = mapRows(filterRows(s.comments, keep), func(c *Comment) listedPost { return listedPost{c: c} })
		if sort == "payout" {
			slices.SortFunc(rows, func(a, b listedPost) int {
				return cmp.Or(a.c.CashoutTime.Compare(b.c.CashoutTime), cmp.Compare(a.c.ID, b.c.ID))
			})
			return rows
		}
	}
	slices.Reverse(rows)
	return rows
}

// bridgePostOpts are the variants of hivemind's bridge post object.
type bridgePostOpts struct {
	reblogBy []string
	replies  []string // get_discussion: the direct replies' keys
	truncate int
}

// bridgePost is hivemind's bridge post object.
func bridgePost(ch *chain, c *Comment, o bridgePostOpts) obj {
	s := &ch.social
	root := s.comments[c.root]
	body, title, url := c.Body, c.Title, "/"+c.Category+"/@"+root.Author+"/"+root.Permlink
	if o.truncate > 0 && len([]rune(body)) > o.truncate {
		body = string([]rune(body)[:o.truncate])
	}
	if c.parent >= 0 {
		title, url = "RE: "+root.Title, url+"#@"+c.Author+"/"+c.Permlink
	}
	payoutAt, meta := c.CashoutTime, any(obj{})
	if paidOut(c) {
		payoutAt = c.LastPayout
	}
	if json.Valid([]byte(c.JSONMetadata)) && strings.HasPrefix(c.JSONMetadata, "{") {
		meta = rawJSON(c.JSONMetadata)
	}
	stats := obj{"hide", false, "gray", muted(c), "total_votes", len(s.votesByComment[c.ID]), "flag_weight", 0.0}
	if muted(c) {
		stats = append(stats, "muted_reasons", []any{3}) // MUTED_REPUTATION
	}
	out := obj{"author", c.Author, "permlink", c.Permlink, "category", c.Category, "title", title, "body", body,
		"created", c.Created, "updated", c.LastUpdate, "depth", c.Depth, "children", c.Children, "net_rshares", c.NetRshares,
		"is_paidout", paidOut(c), "payout_at", payoutAt, "replies", o.replies, "reblogs", len(s.reblogs[int(c.ID)]),
		"url", url, "beneficiaries", []any{}, "max_accepted_payout", legacyAsset(asset(1_000_000_000, HBD)),
		"percent_hbd", c.PercentHBD, "json_metadata", meta, "stats", stats, "payout", float64(payoutHBD(c)) / 1000,
		"author_reputation", repLog10(ch.byName[c.Author].Reputation),
		"active_votes", mapRows(s.votesByComment[c.ID], func(v *Vote) any { return obj{"rshares", v.Rshares, "voter", v.Voter} }),
		"blacklists", []any{}}
	if len(o.reblogBy) > 0 {
		out = append(out, "reblogged_by", o.reblogBy)
	}
	if cm := ch.communityOf(c); cm != nil {
		role, title := teamRole(cm, c.Author, "guest", "")
		out = append(out, "community", cm.Name, "community_title", cm.Title, "author_role", role, "author_title", title)
	}
	zero := legacyAsset(asset(0, HBD))
	if paidOut(c) {
		out = append(out, "curator_payout_value", legacyAsset(c.CuratorPayout), "author_payout_value", legacyAsset(c.TotalPayout), "pending_payout_value", zero)
	} else {
		out = append(out, "author_payout_value", zero, "curator_payout_value", zero, "pending_payout_value", legacyAsset(c.PendingPayout))
	}
	if c.parent >= 0 {
		out = append(out, "parent_author", c.ParentAuthor, "parent_permlink", c.ParentPermlink)
	}
	return append(out, "post_id", c.ID)
}
