package hivesim

import (
	"encoding/json"
	"slices"
	"strings"
)

// condenser_api.get_state as hivemind's Python server answered it
// (hive/server/condenser_api/get_state.py, removed when hivemind moved to
// PostgREST, which refuses the method): the page state of a condenser URL.

// stateAccountTabs maps the account tabs of a "/@account/tab" path to the
// account member listing them and the accountPosts list behind them.
var stateAccountTabs = []struct{ tab, key, list string }{
	{"blog", "blog", "blog"},
	{"feed", "feed", "feed"},
	{"comments", "comments", "comments"},
	{"recent-replies", "recent_replies", "replies"},
}

// stateIgnoredTabs are condenser's account pages that need only the account.
var stateIgnoredTabs = []string{"followed", "followers", "permissions", "password", "settings"}

// stateNoopPages are condenser's static pages: the minimal state.
var stateNoopPages = []string{"create_account", "approval", "recover_account_step_1", "recover_account_step_2",
	"submit.html", "market", "change_password", "login.html", "welcome", "tos.html", "privacy.html",
	"support.html", "faq.html", "about.html", "pick_account", "waiting_list.html"}

// stateListSorts are the ranked paths hivemind routes; the last six it
// routes but refuses as sorts.
var stateListSorts = []string{"trending", "hot", "created", "payout", "payout_comments",
	"recent", "trending30", "active", "votes", "responses", "cashout"}

// statePageSize is how many posts a list path loads.
const statePageSize = 20

// getState is the state being built: hivemind's dict, members in its order.
type getState struct {
	accounts  []stateAccount
	content   []statePost
	idxTag    string // discussion_idx's one key
	idxSort   string // its one member ("" for {})
	tags      []*Tag
	trending  []string // tag_idx.trending
	errorText string
}

type stateAccount struct {
	a    *Account
	tabs map[string][]string // set for an account path: all four tab keys
}

type statePost struct {
	c       *Comment
	replies []string
}

func (st *getState) keys() []string {
	out := make([]string, 0, len(st.content))
	for _, p := range st.content {
		out = append(out, p.c.Author+"/"+p.c.Permlink)
	}
	return out
}

// normalizeStatePath is hivemind's _normalize_path: the path and its three parts.
func (c *callCtx) normalizeStatePath(path string) (string, []string, *rpcError) {
	path = strings.TrimPrefix(path, "/")
	path, _, _ = strings.Cut(path, "?")
	if path == "" {
		path = "trending"
	}
	if strings.Contains(path, "#") {
		return "", nil, c.hivemindError("path contains hash mark (#)")
	}
	parts := strings.Split(path, "/")
	if len(parts) == 4 && parts[3] == "" {
		parts = parts[:3]
	}
	if len(parts) >= 4 {
		return "", nil, c.hivemindError("too many parts in path: `" + path + "`")
	}
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return path, parts, nil
}

func getStateMethod(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "path")
	if err != nil {
		return err
	}
	pathV, err := c.hmRequired(m, "path")
	if err != nil {
		return err
	}
	raw, ok := pathV.(string)
	if !ok {
		return c.hivemindError("path must be a string")
	}
	path, part, err := c.normalizeStatePath(raw)
	if err != nil {
		return err
	}
	st := &getState{}
	ch := c.n.ch
	switch {
	case strings.HasPrefix(part[0], "@"):
		err = c.stateAccountPath(st, path, part)
	case strings.HasPrefix(part[1], "@"):
		err = c.stateDiscussionPath(st, part)
	case slices.Contains(stateListSorts, part[0]):
		if part[2] != "" {
			return c.hivemindError("unexpected discussion path part[2] " + path)
		}
		if !slices.Contains(stateListSorts[:5], part[0]) {
			return c.hivemindError("invalid sort `" + part[0] + "`")
		}
		tag := strings.ToLower(part[1])
		if tag != "" && !tagChars.MatchString(tag) {
			return c.hivemindError("invalid tag `" + tag + "`")
		}
		rows := ch.rankedPosts(part[0], tag, nil, statePageSize)
		for _, r := range rows {
			st.content = append(st.content, statePost{c: r})
		}
		st.idxTag, st.idxSort = tag, part[0]
		for _, t := range ch.social.tags[:min(50, len(ch.social.tags))] {
			st.trending = append(st.trending, t.Name)
		}
	case part[0] == "tags":
		if part[1] != "" || part[2] != "" {
			return c.hivemindError("invalid /tags request")
		}
		st.tags = ch.social.tags[:min(250, len(ch.social.tags))]
		for _, t := range st.tags {
			st.trending = append(st.trending, t.Name)
		}
	case slices.Contains(stateNoopPages, part[0]):
		if part[1] != "" || part[2] != "" {
			return c.hivemindError("")
		}
	default:
		return c.hivemindError("unhandled path: /" + path)
	}
	if err != nil {
		return err
	}
	st.write(w, ch)
	return nil
}

// stateAccountPath fills an "@account/tab" path.
func (c *callCtx) stateAccountPath(st *getState, path string, part []string) *rpcError {
	if part[1] == "transfers" {
		return c.hivemindError("transfers API not served here")
	}
	if part[2] != "" {
		return c.hivemindError("unexpected account path[2] " + path)
	}
	if part[1] == "" {
		part[1] = "blog"
	}
	name, err := c.hmAccount(part[0][1:], false)
	if err != nil {
		return err
	}
	a := c.n.ch.byName[name]
	if a == nil {
		return c.hivemindError("account not found: `" + name + "`")
	}
	acc := stateAccount{a: a, tabs: map[string][]string{}}
	for _, t := range stateAccountTabs {
		acc.tabs[t.key] = nil
	}
	tab := slices.IndexFunc(stateAccountTabs, func(t struct{ tab, key, list string }) bool { return t.tab == part[1] })
	switch {
	case tab >= 0:
		rows := c.n.ch.accountPosts(stateAccountTabs[tab].list, name)
		for _, r := range rows[:min(statePageSize, len(rows))] {
			st.content = append(st.content, statePost{c: r.c})
		}
		acc.tabs[stateAccountTabs[tab].key] = st.keys()
	case slices.Contains(stateIgnoredTabs, part[1]):
	default:
		st.errorText = "invalid get_state account path " + path
	}
	st.accounts = []stateAccount{acc}
	return nil
}

// stateDiscussionPath fills a "category/@author/permlink" path: the post,
// its whole reply tree, and the authors.
func (c *callCtx) stateDiscussionPath(st *getState, part []string) *rpcError {
	author, err := c.hmAccount(part[1][1:], false)
	if err != nil {
		return err
	}
	permlink, err := c.hmPermlink(part[2], false)
	if err != nil {
		return err
	}
	root, err := c.hmPost(author, permlink)
	if err != nil {
		return err
	}
	s := &c.n.ch.social
	thread := []*Comment{root}
	for i := 0; i < len(thread); i++ {
		thread = append(thread, s.byParent[int(thread[i].ID)]...)
	}
	seen := map[string]bool{}
	for _, cm := range thread {
		var replies []string
		for _, r := range s.byParent[int(cm.ID)] {
			replies = append(replies, r.Author+"/"+r.Permlink)
		}
		slices.Sort(replies)
		st.content = append(st.content, statePost{c: cm, replies: replies})
		if !seen[cm.Author] {
			seen[cm.Author] = true
			st.accounts = append(st.accounts, stateAccount{a: c.n.ch.byName[cm.Author]})
		}
	}
	return nil
}

// write writes the state in hivemind's member order.
func (st *getState) write(w *jw, ch *chain) {
	w.objBegin()
	w.key("feed_price")
	writeNotSupported(w)
	w.key("props")
	writeNotSupported(w)
	w.key("tags")
	w.objBegin()
	for _, t := range st.tags {
		w.key(t.Name)
		w.objBegin()
		w.kstr("name", t.Name)
		w.knum("comments", int64(t.Comments))
		w.knum("top_posts", int64(t.TopPosts))
		w.kasset("total_payouts", t.TotalPayouts, true)
		w.objEnd()
	}
	w.objEnd()
	w.key("accounts")
	w.objBegin()
	for _, a := range st.accounts {
		w.key(a.a.Name)
		writeStateAccount(w, a)
	}
	w.objEnd()
	w.key("content")
	w.objBegin()
	for _, p := range st.content {
		w.key(p.c.Author + "/" + p.c.Permlink)
		writePost(w, ch, p.c, postOpts{replies: p.replies})
	}
	w.objEnd()
	w.key("tag_idx")
	w.objBegin()
	w.kstrs("trending", st.trending)
	w.objEnd()
	w.key("discussion_idx")
	w.objBegin()
	w.key(st.idxTag)
	w.objBegin()
	if st.idxSort != "" {
		w.kstrs(st.idxSort, st.keys())
	}
	w.objEnd()
	w.objEnd()
	if st.errorText != "" {
		w.kstr("error", st.errorText)
	}
	w.objEnd()
}

func writeNotSupported(w *jw) {
	w.objBegin()
	w.kstr("message", "Not further supported")
	w.objEnd()
}

// stateProfileFields are the profile members of a get_state account's
// json_metadata, in hivemind's order.
var stateProfileFields = []string{"name", "about", "website", "location", "cover_image", "profile_image"}

// writeStateAccount writes hivemind's _condenser_account_object.
func writeStateAccount(w *jw, sa stateAccount) {
	a := sa.a
	w.objBegin()
	w.kstr("name", a.Name)
	w.kstr("created", a.Created.UTC().Format("2006-01-02 15:04:05"))
	w.knum("post_count", int64(a.PostCount))
	w.ki64("reputation", a.Reputation)
	w.knum("net_vesting_shares", 0)
	w.kemptyArr("transfer_history")
	w.kstr("json_metadata", stateProfileJSON(a))
	for _, t := range stateAccountTabs {
		if keys, ok := sa.tabs[t.key]; ok {
			w.kstrs(t.key, keys)
		}
	}
	w.objEnd()
}

// stateProfileJSON is the account's profile as hivemind dumped it with
// ujson: compact, "/" escaped, every field a string (posting metadata
// first, then json_metadata).
func stateProfileJSON(a *Account) string {
	var meta struct {
		Profile map[string]any `json:"profile"`
	}
	if json.Unmarshal([]byte(a.PostingJSONMetadata), &meta) != nil || meta.Profile == nil {
		_ = json.Unmarshal([]byte(a.JSONMetadata), &meta)
	}
	var b jw
	b.objBegin()
	b.key("profile")
	b.objBegin()
	for _, k := range stateProfileFields {
		v, _ := meta.Profile[k].(string)
		b.kstr(k, v)
	}
	b.objEnd()
	b.objEnd()
	return strings.ReplaceAll(string(b.b), "/", `\/`)
}

func registerGetStateMethods(r registry) {
	r.add("condenser_api.get_state", stylePython, getStateMethod)
}
