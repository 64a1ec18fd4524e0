package hivesim

import (
	"cmp"
	"slices"
	"strings"
)

// hivemind's bridge API: posts and communities.

func communityContext(cm *Community, account string) obj {
	if account == "" {
		return obj{}
	}
	role, title, subscribed := "guest", "", false
	if s := find(cm.subscribers, func(s *Subscription) bool { return s.Account == account }); s != nil {
		role, title, subscribed = s.Role, s.Title, true
	}
	role, title = teamRole(cm, account, role, title)
	return obj{"role", role, "subscribed", subscribed, "title", title}
}

// teamRole is account's role and title in cm's team, or role and title
// when it is not in the team.
func teamRole(cm *Community, account, role, title string) (string, string) {
	for _, r := range cm.Team {
		if r.Account == account {
			role, title = r.Role, r.Title
		}
	}
	return role, title
}

// teamRow is a team member as bridge lists it: [account, role, title].
func teamRow(r CommunityRole) any { return []string{r.Account, r.Role, r.Title} }

// communityStats are a community's pending payout figures.
func (ch *chain) communityStats(cm *Community) (sum float64, posts, authors int) {
	seen := map[string]bool{}
	for _, c := range ch.social.comments {
		if c.Category == cm.Category && c.parent < 0 && !paidOut(c) {
			sum += float64(c.PendingPayout.Amount) / 1000
			posts++
			seen[c.Author] = true
		}
	}
	return sum, posts, len(seen)
}

func community(ch *chain, cm *Community, observer string, full bool) obj {
	sum, posts, authors := ch.communityStats(cm)
	o := obj{"id", cm.ID, "name", cm.Name, "title", cm.Title, "about", cm.About, "lang", cm.Lang, "type_id", cm.TypeID,
		"is_nsfw", false, "subscribers", len(cm.subscribers), "created_at", hmTime(cm.Created), "sum_pending", sum,
		"num_pending", posts, "num_authors", authors}
	if full {
		return append(o, "avatar_url", "", "description", "Welcome to "+cm.Title+".", "flag_text", "", "settings", obj{},
			"team", mapRows(cm.Team, teamRow), "context", communityContext(cm, observer))
	}
	o = append(o, "context", communityContext(cm, observer))
	admins := mapRows(filterRows(cm.Team, func(r CommunityRole) bool { return r.Role == "admin" }),
		func(r CommunityRole) string { return r.Account })
	if len(admins) > 0 {
		slices.Sort(admins)
		o = append(o, "admins", admins)
	}
	return o
}

// communitiesSorted lists communities by rank, newest first or by subscribers.
func (ch *chain) communitiesSorted(sort string) []*Community {
	out := slices.Clone(ch.extra.communities)
	switch sort {
	case "new":
		slices.SortFunc(out, func(a, b *Community) int { return -cmp.Compare(a.ID, b.ID) })
	case "subs":
		slices.SortStableFunc(out, func(a, b *Community) int {
			return cmp.Or(-cmp.Compare(len(a.subscribers), len(b.subscribers)), -cmp.Compare(a.ID, b.ID))
		})
	}
	return out
}

var roleRank = map[string]int{"owner": 8, "admin": 6, "mod": 4, "member": 2, "guest": 0}

func registerBridgeMethods(r registry) {
	r.mindR("bridge.get_ranked_posts", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "sort", "start_author", "start_permlink", "limit", "tag", "observer")
		sort := a.oneOf("sort", "sort", rankedSorts)
		start, limit := a.startPost("start_author", "start_permlink"), a.limit("limit", 20, 20)
		a.account("observer", true)
		rows := c.n.ch.rankedPosts(sort, a.str("tag"), start, limit)
		listOf(w, rows, func(r *Comment) any { return bridgePost(c.n.ch, r, bridgePostOpts{}) })
	})
	r.mindR("bridge.get_account_posts", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "sort", "account", "start_author", "start_permlink", "limit", "observer")
		sort, account := a.oneOf("sort", "sort", accountPostSorts), a.existing("account")
		start, limit := a.startPost("start_author", "start_permlink"), a.limit("limit", 20, 20)
		rows := c.n.ch.accountPosts(sort, account)
		listOf(w, afterStart(rows, start, limit), func(r listedPost) any {
			return bridgePost(c.n.ch, r.c, bridgePostOpts{reblogBy: r.reblogBy})
		})
	})
	r.mindR("bridge.get_discussion", func(c *callCtx, p any, w *jw) {
		s := &c.n.ch.social
		thread := []*Comment{c.args(p, "author", "permlink", "observer").post("author", "permlink")}
		o := obj{}
		for i := 0; i < len(thread); i++ {
			cm := thread[i]
			thread = append(thread, s.byParent[int(cm.ID)]...)
			replies := mapKeys(s.byParent[int(cm.ID)])
			o = append(o, cm.Author+"/"+cm.Permlink, bridgePost(c.n.ch, cm, bridgePostOpts{replies: replies}))
		}
		w.val(o)
	})
	r.mindR("bridge.list_communities", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "last", "limit", "query", "sort", "observer")
		limit, query, sort := a.limit("limit", 100, 100), strings.ToLower(a.str("query")), "rank"
		if s, ok := a.m["sort"].(string); ok {
			sort = s
		}
		observer := a.account("observer", true)
		c.failIf(!slices.Contains([]string{"rank", "new", "subs"}, sort), "Unsupported sort, valid sorts: rank, new, subs")
		all, from := c.n.ch.communitiesSorted(sort), 0
		if a.str("last") != "" {
			from = slices.Index(all, a.community("last")) + 1
		}
		rows := filterRows(all[from:], func(cm *Community) bool {
			return query == "" || strings.Contains(strings.ToLower(cm.Title+" "+cm.About), query)
		})
		listOf(w, firstN(rows, limit), func(cm *Community) any { return community(c.n.ch, cm, observer, false) })
	})
	for _, name := range []string{"bridge.get_post", "bridge.normalize_post", "bridge.get_post_header"} {
		r.mindR(name, func(c *callCtx, p any, w *jw) {
			a := c.args(p, "author", "permlink", "observer")
			if name == "bridge.normalize_post" {
				a.m, _ = a.m["post"].(map[string]any)
			}
			cm := a.post("author", "permlink")
			if name == "bridge.get_post_header" {
				w.val(obj{"author", cm.Author, "permlink", cm.Permlink, "category", cm.Category, "depth", cm.Depth})
			} else {
				w.val(bridgePost(c.n.ch, cm, bridgePostOpts{}))
			}
		})
	}
	r.mindR("bridge.get_community", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "name", "observer")
		cm := a.community("name")
		w.val(community(c.n.ch, cm, a.account("observer", true), true))
	})
	r.mindR("bridge.get_community_context", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "name", "account")
		cm := a.community("name")
		w.val(communityContext(cm, a.existing("account")))
	})
	r.mindR("bridge.list_subscribers", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "community", "last", "limit")
		cm := a.community("community")
		last, limit := a.account("last", true), a.limit("limit", 100, 100)
		rows := filterRows(cm.subscribers, func(s *Subscription) bool { return last == "" || s.Account > last })
		listOf(w, firstN(rows, limit), func(s *Subscription) any {
			return []any{s.Account, s.Role, strOrNull(s.Title), s.Created}
		})
	})
	r.mindR("bridge.list_community_roles", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "community", "last", "limit")
		cm := a.community("community")
		last, limit := a.str("last"), a.limit("limit", 50, 1000)
		team := slices.Clone(cm.Team)
		slices.SortStableFunc(team, func(a, b CommunityRole) int {
			return cmp.Or(-cmp.Compare(roleRank[a.Role], roleRank[b.Role]), strings.Compare(a.Account, b.Account))
		})
		if last != "" {
			i := slices.IndexFunc(team, func(r CommunityRole) bool { return r.Account == last })
			c.failIf(i < 0, "invalid last: "+last)
			team = team[i+1:]
		}
		listOf(w, firstN(team, limit), teamRow)
	})
	r.mindR("bridge.list_all_subscriptions", func(c *callCtx, p any, w *jw) {
		listOf(w, c.n.ch.extra.subsByAccount[c.args(p, "account").existing("account")], func(s *Subscription) any {
			return []string{s.Community.Name, s.Community.Title, s.Role, s.Title}
		})
	})
	pairs := func(name string, rows func(ch *chain) [][]string) {
		r.mindR(name, func(c *callCtx, p any, w *jw) {
			w.val(firstN(rows(c.n.ch), c.args(p, "limit", "observer").limit("limit", 25, 25)))
		})
	}
	communityPair := func(cm *Community) []string { return []string{cm.Name, cm.Title} }
	pairs("bridge.list_pop_communities", func(ch *chain) [][]string {
		return mapRows(ch.communitiesSorted("subs"), communityPair)
	})
	pairs("bridge.get_trending_topics", func(ch *chain) [][]string {
		tags := filterRows(ch.social.tags, func(t *Tag) bool { return ch.communityOfTag(t.Name) == nil })
		topics := mapRows(ch.extra.communities, communityPair)
		return append(topics, mapRows(tags, func(t *Tag) []string { return []string{t.Name, t.Name} })...)
	})
	r.mindR("bridge.list_muted_reasons_enum", func(c *callCtx, p any, w *jw) {
		w.val(obj{"MUTED_COMMUNITY_MODERATION", 0, "MUTED_COMMUNITY_TYPE", 1, "MUTED_PARENT", 2, "MUTED_REPUTATION", 3, "MUTED_ROLE_COMMUNITY", 4})
	})
	r.mindR("bridge.get_payout_stats", bridgePayoutStats)
	registerBridgeAccountMethods(r)
}

// mapKeys are the posts' "author/permlink" keys.
func mapKeys(cs []*Comment) []string {
	return mapRows(cs, func(c *Comment) string { return c.Author + "/" + c.Permlink })
}

// communityOfTag is the community whose posts carry the tag, or nil.
func (ch *chain) communityOfTag(tag string) *Community {
	return find(ch.extra.communities, func(cm *Community) bool { return cm.Category == tag })
}

// communityOf is the community a post belongs to (by its category).
func (ch *chain) communityOf(c *Comment) *Community { return ch.communityOfTag(c.Category) }

func bridgePayoutStats(c *callCtx, p any, w *jw) {
	limit, ch := c.args(p, "limit").limit("limit", 250, 250), c.n.ch
	type item struct {
		name, title string
		payout      float64
		posts       int
		authors     any // null for a blog
	}
	var items []*item
	total, blogs := 0.0, 0.0
	for _, cm := range ch.extra.communities {
		sum, posts, authors := ch.communityStats(cm)
		items = append(items, &item{cm.Name, cm.Title, sum, posts, authors})
		total += sum
	}
	byAuthor := map[string]*item{}
	for _, cm := range ch.social.comments {
		if cm.parent >= 0 || paidOut(cm) || ch.communityOf(cm) != nil {
			continue
		}
		it := byAuthor[cm.Author]
		if it == nil {
			it = &item{name: "@" + cm.Author, title: "@" + cm.Author}
			byAuthor[cm.Author] = it
			items = append(items, it)
		}
		it.payout += float64(cm.PendingPayout.Amount) / 1000
		it.posts++
		blogs += float64(cm.PendingPayout.Amount) / 1000
	}
	slices.SortFunc(items, func(a, b *item) int {
		return cmp.Or(-cmp.Compare(a.payout, b.payout), strings.Compare(a.name, b.name))
	})
	rows := mapRows(firstN(items, limit), func(it *item) any {
		return []any{it.name, it.title, it.payout, it.posts, it.authors}
	})
	w.val(obj{"items", rows, "total", total + blogs, "blogs", blogs})
}
