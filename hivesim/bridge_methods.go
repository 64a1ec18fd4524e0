package hivesim

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// hivemind's bridge API.

// hmLimitArg is valid_number(limit, def, 1, max, 'limit') with hivemind's message.
func (c *callCtx) hmLimitArg(v any, def, max int64) (int64, *rpcError) {
	return c.hmLimit(v, max, def)
}

// hmSort checks a sort argument against the supported list.
func (c *callCtx) hmSort(v any, sorts []string) (string, *rpcError) {
	s, _ := v.(string)
	if !slices.Contains(sorts, s) {
		return "", c.hivemindError("Unsupported sort, valid sorts: " + strings.Join(sorts, ", "))
	}
	return s, nil
}

// hmCommunity finds a community or fails as hivemind does.
func (c *callCtx) hmCommunity(v any) (*Community, *rpcError) {
	name, _ := v.(string)
	if !strings.HasPrefix(name, "hive-") {
		return nil, c.hivemindError("given community name is not valid")
	}
	cm := c.n.ch.extra.communityByName[name]
	if cm == nil {
		return nil, c.hivemindError("Given community name " + name + " does not exist")
	}
	return cm, nil
}

func bridgeRankedPosts(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "sort", "start_author", "start_permlink", "limit", "tag", "observer")
	if err != nil {
		return err
	}
	sort, err := c.hmSort(m["sort"], rankedSorts)
	if err != nil {
		return err
	}
	start, err := c.hmStartPost(m["start_author"], m["start_permlink"])
	if err != nil {
		return err
	}
	limit, err := c.hmLimitArg(m["limit"], 20, 20)
	if err != nil {
		return err
	}
	tag, _ := m["tag"].(string)
	if _, err := c.hmAccount(m["observer"], true); err != nil {
		return err
	}
	rows, _ := c.n.ch.rankedPosts(sort, tag, start, int(limit))
	w.arrBegin()
	for _, r := range rows {
		writeBridgePost(w, c.n.ch, r, bridgePostOpts{})
	}
	w.arrEnd()
	return nil
}

func bridgeAccountPosts(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "sort", "account", "start_author", "start_permlink", "limit", "observer")
	if err != nil {
		return err
	}
	sort, _ := m["sort"].(string)
	if !slices.Contains(accountPostSorts, sort) {
		return c.hivemindError("Unsupported sort, valid sorts: blog, feed, posts, comments, replies, payout")
	}
	account, err := c.hmAccount(m["account"], false)
	if err != nil {
		return err
	}
	if err := c.hmExisting(account); err != nil {
		return err
	}
	start, err := c.hmStartPost(m["start_author"], m["start_permlink"])
	if err != nil {
		return err
	}
	limit, err := c.hmLimitArg(m["limit"], 20, 20)
	if err != nil {
		return err
	}
	rows, _ := c.n.ch.accountPosts(sort, account)
	w.arrBegin()
	for _, r := range afterStart(rows, start, int(limit)) {
		writeBridgePost(w, c.n.ch, r.c, bridgePostOpts{reblogBy: r.reblogBy})
	}
	w.arrEnd()
	return nil
}

// hmAuthorPermlink reads the post named by author and permlink.
func (c *callCtx) hmAuthorPermlink(m map[string]any) (*Comment, *rpcError) {
	author, err := c.hmAccount(m["author"], false)
	if err != nil {
		return nil, err
	}
	permlink, err := c.hmPermlink(m["permlink"], false)
	if err != nil {
		return nil, err
	}
	return c.hmPost(author, permlink)
}

func bridgeGetDiscussion(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "author", "permlink", "observer")
	if err != nil {
		return err
	}
	root, err := c.hmAuthorPermlink(m)
	if err != nil {
		return err
	}
	s := &c.n.ch.social
	thread := []*Comment{root}
	for i := 0; i < len(thread); i++ {
		thread = append(thread, s.byParent[int(thread[i].ID)]...)
	}
	w.objBegin()
	for _, cm := range thread {
		var replies []string
		for _, r := range s.byParent[int(cm.ID)] {
			replies = append(replies, r.Author+"/"+r.Permlink)
		}
		w.key(cm.Author + "/" + cm.Permlink)
		writeBridgePost(w, c.n.ch, cm, bridgePostOpts{replies: replies})
	}
	w.objEnd()
	return nil
}

func writeCommunityContext(w *jw, cm *Community, account string) {
	w.objBegin()
	if account != "" {
		role, title, subscribed := "guest", "", false
		for _, s := range cm.subscribers {
			if s.Account == account {
				role, title, subscribed = s.Role, s.Title, true
			}
		}
		for _, r := range cm.Team {
			if r.Account == account {
				role, title = r.Role, r.Title
			}
		}
		w.kstr("role", role)
		w.kbool("subscribed", subscribed)
		w.kstr("title", title)
	}
	w.objEnd()
}

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

func writeCommunity(w *jw, ch *chain, cm *Community, observer string, full bool) {
	sum, posts, authors := ch.communityStats(cm)
	w.objBegin()
	w.knum("id", cm.ID)
	w.kstr("name", cm.Name)
	w.kstr("title", cm.Title)
	w.kstr("about", cm.About)
	w.kstr("lang", cm.Lang)
	w.knum("type_id", int64(cm.TypeID))
	w.kbool("is_nsfw", false)
	w.knum("subscribers", int64(len(cm.subscribers)))
	w.kstr("created_at", hmTime(cm.Created))
	w.kfloat("sum_pending", sum)
	w.knum("num_pending", int64(posts))
	w.knum("num_authors", int64(authors))
	if full {
		w.kstr("avatar_url", "")
		w.kstr("description", "Welcome to "+cm.Title+".")
		w.kstr("flag_text", "")
		w.key("settings")
		w.objBegin()
		w.objEnd()
		w.key("team")
		w.arrBegin()
		for _, r := range cm.Team {
			w.arrBegin()
			w.str(r.Account)
			w.str(r.Role)
			w.str(r.Title)
			w.arrEnd()
		}
		w.arrEnd()
	}
	w.key("context")
	writeCommunityContext(w, cm, observer)
	if !full {
		var admins []string
		for _, r := range cm.Team {
			if r.Role == "admin" {
				admins = append(admins, r.Account)
			}
		}
		if len(admins) > 0 {
			slices.Sort(admins)
			w.kstrs("admins", admins)
		}
	}
	w.objEnd()
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

func bridgeListCommunities(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "last", "limit", "query", "sort", "observer")
	if err != nil {
		return err
	}
	limit, err := c.hmLimitArg(m["limit"], 100, 100)
	if err != nil {
		return err
	}
	query, _ := m["query"].(string)
	sort := "rank"
	if s, ok := m["sort"].(string); ok {
		sort = s
	}
	observer, err := c.hmAccount(m["observer"], true)
	if err != nil {
		return err
	}
	if !slices.Contains([]string{"rank", "new", "subs"}, sort) {
		return c.hivemindError("Unsupported sort, valid sorts: rank, new, subs")
	}
	last, _ := m["last"].(string)
	list := c.n.ch.communitiesSorted(sort)
	from := 0
	if last != "" {
		cm, err := c.hmCommunity(last)
		if err != nil {
			return err
		}
		from = slices.Index(list, cm) + 1
	}
	w.arrBegin()
	n := 0
	for _, cm := range list[from:] {
		if n == int(limit) {
			break
		}
		if query != "" && !strings.Contains(strings.ToLower(cm.Title+" "+cm.About), strings.ToLower(query)) {
			continue
		}
		writeCommunity(w, c.n.ch, cm, observer, false)
		n++
	}
	w.arrEnd()
	return nil
}

// memberPage lists members by name after last (exclusive).
func memberPage[T any](rows []T, name func(T) string, last string, limit int) []T {
	var out []T
	for _, r := range rows {
		if len(out) == limit {
			break
		}
		if last == "" || name(r) > last {
			out = append(out, r)
		}
	}
	return out
}

var roleRank = map[string]int{"owner": 8, "admin": 6, "mod": 4, "member": 2, "guest": 0}

func registerBridgeMethods(r registry) {
	r.mind("bridge.get_ranked_posts", bridgeRankedPosts)
	r.mind("bridge.get_account_posts", bridgeAccountPosts)
	r.mind("bridge.get_discussion", bridgeGetDiscussion)
	r.mind("bridge.list_communities", bridgeListCommunities)
	post := func(name string, fn func(c *callCtx, m map[string]any, post *Comment, w *jw)) {
		r.mind(name, func(c *callCtx, p any, w *jw) *rpcError {
			m, err := c.hmParams(p, "author", "permlink", "observer")
			if err != nil {
				return err
			}
			if name == "bridge.normalize_post" {
				pm, _ := m["post"].(map[string]any)
				m = pm
			}
			cm, err := c.hmAuthorPermlink(m)
			if err != nil {
				return err
			}
			fn(c, m, cm, w)
			return nil
		})
	}
	post("bridge.get_post", func(c *callCtx, _ map[string]any, cm *Comment, w *jw) {
		writeBridgePost(w, c.n.ch, cm, bridgePostOpts{})
	})
	post("bridge.normalize_post", func(c *callCtx, _ map[string]any, cm *Comment, w *jw) {
		writeBridgePost(w, c.n.ch, cm, bridgePostOpts{})
	})
	post("bridge.get_post_header", func(c *callCtx, _ map[string]any, cm *Comment, w *jw) {
		w.objBegin()
		w.kstr("author", cm.Author)
		w.kstr("permlink", cm.Permlink)
		w.kstr("category", cm.Category)
		w.knum("depth", int64(cm.Depth))
		w.objEnd()
	})
	r.mind("bridge.get_community", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "name", "observer")
		if err != nil {
			return err
		}
		cm, err := c.hmCommunity(m["name"])
		if err != nil {
			return err
		}
		observer, err := c.hmAccount(m["observer"], true)
		if err != nil {
			return err
		}
		writeCommunity(w, c.n.ch, cm, observer, true)
		return nil
	})
	r.mind("bridge.get_community_context", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "name", "account")
		if err != nil {
			return err
		}
		cm, err := c.hmCommunity(m["name"])
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
		writeCommunityContext(w, cm, account)
		return nil
	})
	r.mind("bridge.list_subscribers", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "community", "last", "limit")
		if err != nil {
			return err
		}
		cm, err := c.hmCommunity(m["community"])
		if err != nil {
			return err
		}
		last, err := c.hmAccount(m["last"], true)
		if err != nil {
			return err
		}
		limit, err := c.hmLimitArg(m["limit"], 100, 100)
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, s := range memberPage(cm.subscribers, func(s *Subscription) string { return s.Account }, last, int(limit)) {
			w.arrBegin()
			w.str(s.Account)
			w.str(s.Role)
			if s.Title == "" {
				w.null()
			} else {
				w.str(s.Title)
			}
			w.time(s.Created)
			w.arrEnd()
		}
		w.arrEnd()
		return nil
	})
	r.mind("bridge.list_community_roles", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "community", "last", "limit")
		if err != nil {
			return err
		}
		cm, err := c.hmCommunity(m["community"])
		if err != nil {
			return err
		}
		last, _ := m["last"].(string)
		limit, err := c.hmLimitArg(m["limit"], 50, 1000)
		if err != nil {
			return err
		}
		team := slices.Clone(cm.Team)
		slices.SortStableFunc(team, func(a, b CommunityRole) int {
			return cmp.Or(-cmp.Compare(roleRank[a.Role], roleRank[b.Role]), strings.Compare(a.Account, b.Account))
		})
		from := 0
		if last != "" {
			i := slices.IndexFunc(team, func(r CommunityRole) bool { return r.Account == last })
			if i < 0 {
				return c.hivemindError("invalid last: " + last)
			}
			from = i + 1
		}
		team = team[from:]
		if len(team) > int(limit) {
			team = team[:limit]
		}
		w.arrBegin()
		for _, r := range team {
			w.arrBegin()
			w.str(r.Account)
			w.str(r.Role)
			w.str(r.Title)
			w.arrEnd()
		}
		w.arrEnd()
		return nil
	})
	r.mind("bridge.list_all_subscriptions", func(c *callCtx, p any, w *jw) *rpcError {
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
		w.arrBegin()
		for _, s := range c.n.ch.extra.subsByAccount[account] {
			w.arrBegin()
			w.str(s.Community.Name)
			w.str(s.Community.Title)
			w.str(s.Role)
			w.str(s.Title)
			w.arrEnd()
		}
		w.arrEnd()
		return nil
	})
	pairs := func(name string, max int64, rows func(ch *chain, limit int) [][2]string) {
		r.mind(name, func(c *callCtx, p any, w *jw) *rpcError {
			m, err := c.hmParams(p, "limit", "observer")
			if err != nil {
				return err
			}
			limit, err := c.hmLimitArg(m["limit"], max, max)
			if err != nil {
				return err
			}
			w.arrBegin()
			for _, r := range rows(c.n.ch, int(limit)) {
				w.arrBegin()
				w.str(r[0])
				w.str(r[1])
				w.arrEnd()
			}
			w.arrEnd()
			return nil
		})
	}
	pairs("bridge.list_pop_communities", 25, func(ch *chain, limit int) [][2]string {
		var out [][2]string
		for _, cm := range ch.communitiesSorted("subs") {
			if len(out) < limit {
				out = append(out, [2]string{cm.Name, cm.Title})
			}
		}
		return out
	})
	pairs("bridge.get_trending_topics", 25, func(ch *chain, limit int) [][2]string {
		var out [][2]string
		for _, cm := range ch.extra.communities {
			if len(out) < limit {
				out = append(out, [2]string{cm.Name, cm.Title})
			}
		}
		for _, t := range ch.social.tags {
			if len(out) < limit && ch.communityOfTag(t.Name) == nil {
				out = append(out, [2]string{t.Name, t.Name})
			}
		}
		return out
	})
	r.mind("bridge.list_muted_reasons_enum", func(c *callCtx, p any, w *jw) *rpcError {
		w.objBegin()
		for i, k := range []string{"MUTED_COMMUNITY_MODERATION", "MUTED_COMMUNITY_TYPE", "MUTED_PARENT", "MUTED_REPUTATION", "MUTED_ROLE_COMMUNITY"} {
			w.knum(k, int64(i))
		}
		w.objEnd()
		return nil
	})
	r.mind("bridge.get_payout_stats", bridgePayoutStats)
	registerBridgeAccountMethods(r)
}

func (ch *chain) communityOfTag(tag string) *Community {
	for _, cm := range ch.extra.communities {
		if cm.Category == tag {
			return cm
		}
	}
	return nil
}

func bridgePayoutStats(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "limit")
	if err != nil {
		return err
	}
	limit, err := c.hmLimitArg(m["limit"], 250, 250)
	if err != nil {
		return err
	}
	ch := c.n.ch
	type item struct {
		name, title    string
		payout         float64
		posts, authors int
		community      bool
	}
	var items []item
	total, blogs := 0.0, 0.0
	for _, cm := range ch.extra.communities {
		sum, posts, authors := ch.communityStats(cm)
		items = append(items, item{cm.Name, cm.Title, sum, posts, authors, true})
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
		}
		it.payout += float64(cm.PendingPayout.Amount) / 1000
		it.posts++
		blogs += float64(cm.PendingPayout.Amount) / 1000
	}
	for _, it := range byAuthor {
		items = append(items, *it)
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Or(-cmp.Compare(a.payout, b.payout), strings.Compare(a.name, b.name)) })
	if len(items) > int(limit) {
		items = items[:limit]
	}
	w.objBegin()
	w.key("items")
	w.arrBegin()
	for _, it := range items {
		w.arrBegin()
		w.str(it.name)
		w.str(it.title)
		w.raw([]byte(json.Number(formatFloat(it.payout))))
		w.num(int64(it.posts))
		if it.community {
			w.num(int64(it.authors))
		} else {
			w.null()
		}
		w.arrEnd()
	}
	w.arrEnd()
	w.kfloat("total", total+blogs)
	w.kfloat("blogs", blogs)
	w.objEnd()
	return nil
}
