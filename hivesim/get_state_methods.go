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
	accounts  obj // name -> account
	content   []*Comment
	replies   map[*Comment][]string // a discussion's direct replies ("author/permlink")
	idxTag    string                // discussion_idx's one key
	idxSort   string                // its one member ("" for {})
	tags      []*Tag
	trending  []string // tag_idx.trending
	errorText string
}

// normalizeStatePath is hivemind's _normalize_path: the path and its three parts.
func (c *callCtx) normalizeStatePath(path string) (string, []string) {
	path = strings.TrimPrefix(path, "/")
	path, _, _ = strings.Cut(path, "?")
	if path == "" {
		path = "trending"
	}
	c.failIf(strings.Contains(path, "#"), "path contains hash mark (#)")
	parts := strings.Split(path, "/")
	if len(parts) == 4 && parts[3] == "" {
		parts = parts[:3]
	}
	c.failIf(len(parts) >= 4, "too many parts in path: `"+path+"`")
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return path, parts
}

func getStateMethod(c *callCtx, p any, w *jw) {
	raw, ok := c.args(p, "path").required("path").(string)
	c.failIf(!ok, "path must be a string")
	path, part := c.normalizeStatePath(raw)
	st, ch := &getState{accounts: obj{}}, c.n.ch
	switch {
	case strings.HasPrefix(part[0], "@"):
		c.stateAccountPath(st, path, part)
	case strings.HasPrefix(part[1], "@"):
		c.stateDiscussionPath(st, part)
	case slices.Contains(stateListSorts, part[0]):
		c.failIf(part[2] != "", "unexpected discussion path part[2] "+path)
		c.failIf(!slices.Contains(stateListSorts[:5], part[0]), "invalid sort `"+part[0]+"`")
		tag := strings.ToLower(part[1])
		c.failIf(tag != "" && !tagChars.MatchString(tag), "invalid tag `"+tag+"`")
		st.content, st.idxTag, st.idxSort = ch.rankedPosts(part[0], tag, nil, statePageSize), tag, part[0]
		st.trending = mapRows(firstN(ch.social.tags, 50), func(t *Tag) string { return t.Name })
	case part[0] == "tags":
		c.failIf(part[1] != "" || part[2] != "", "invalid /tags request")
		st.tags = firstN(ch.social.tags, 250)
		st.trending = mapRows(st.tags, func(t *Tag) string { return t.Name })
	case slices.Contains(stateNoopPages, part[0]):
		c.failIf(part[1] != "" || part[2] != "", "")
	default:
		c.fail("unhandled path: /" + path)
	}
	w.val(st.value(ch))
}

// stateAccountPath fills an "@account/tab" path.
func (c *callCtx) stateAccountPath(st *getState, path string, part []string) {
	c.failIf(part[1] == "transfers", "transfers API not served here")
	c.failIf(part[2] != "", "unexpected account path[2] "+path)
	if part[1] == "" {
		part[1] = "blog"
	}
	name := need(c.hmAccount(part[0][1:], false))
	a := c.n.ch.byName[name]
	c.failIf(a == nil, "account not found: `"+name+"`")
	tabs := map[string][]string{}
	tab := slices.IndexFunc(stateAccountTabs, func(t struct{ tab, key, list string }) bool { return t.tab == part[1] })
	switch {
	case tab >= 0:
		posts := firstN(c.n.ch.accountPosts(stateAccountTabs[tab].list, name), statePageSize)
		st.content = mapRows(posts, func(r listedPost) *Comment { return r.c })
		tabs[stateAccountTabs[tab].key] = mapKeys(st.content)
	case slices.Contains(stateIgnoredTabs, part[1]):
	default:
		st.errorText = "invalid get_state account path " + path
	}
	acc := stateAccount(a)
	for _, t := range stateAccountTabs {
		acc = append(acc, t.key, tabs[t.key])
	}
	st.accounts = obj{name, acc}
}

// stateDiscussionPath fills a "category/@author/permlink" path: the post,
// its whole reply tree, and the authors.
func (c *callCtx) stateDiscussionPath(st *getState, part []string) {
	s := &c.n.ch.social
	st.content, st.replies = []*Comment{c.post(part[1][1:], part[2])}, map[*Comment][]string{}
	seen := map[string]bool{}
	for i := 0; i < len(st.content); i++ {
		cm := st.content[i]
		st.content = append(st.content, s.byParent[int(cm.ID)]...)
		st.replies[cm] = mapKeys(s.byParent[int(cm.ID)])
		slices.Sort(st.replies[cm])
		if !seen[cm.Author] {
			seen[cm.Author] = true
			st.accounts = append(st.accounts, cm.Author, stateAccount(c.n.ch.byName[cm.Author]))
		}
	}
}

// value is the state in hivemind's member order.
func (st *getState) value(ch *chain) obj {
	notSupported := obj{"message", "Not further supported"}
	tags, content, idx := obj{}, obj{}, obj{}
	for _, t := range st.tags {
		tags = append(tags, t.Name, tagObj(t))
	}
	for _, p := range st.content {
		content = append(content, p.Author+"/"+p.Permlink, condenserPost(ch, p, postOpts{replies: st.replies[p]}))
	}
	if st.idxSort != "" {
		idx = obj{st.idxSort, mapKeys(st.content)}
	}
	o := obj{"feed_price", notSupported, "props", notSupported, "tags", tags, "accounts", st.accounts, "content", content,
		"tag_idx", obj{"trending", st.trending}, "discussion_idx", obj{st.idxTag, idx}}
	if st.errorText != "" {
		o = append(o, "error", st.errorText)
	}
	return o
}

// stateProfileFields are the profile members of a get_state account's
// json_metadata, in hivemind's order.
var stateProfileFields = []string{"name", "about", "website", "location", "cover_image", "profile_image"}

// stateAccount is hivemind's _condenser_account_object.
func stateAccount(a *Account) obj {
	return obj{"name", a.Name, "created", hmTime(a.Created), "post_count", a.PostCount, "reputation", a.Reputation,
		"net_vesting_shares", 0, "transfer_history", []any{}, "json_metadata", stateProfileJSON(a)}
}

// stateProfileJSON is the account's profile as hivemind dumped it with
// ujson: compact, "/" escaped, every field a string (posting metadata
// first, then json_metadata).
func stateProfileJSON(a *Account) string {
	js := a.PostingJSONMetadata
	var meta struct {
		Profile map[string]any `json:"profile"`
	}
	if json.Unmarshal([]byte(js), &meta) != nil || meta.Profile == nil {
		js = a.JSONMetadata
	}
	var b jw
	b.val(obj{"profile", profileObj(js, stateProfileFields)})
	return strings.ReplaceAll(string(b.b), "/", `\/`)
}

func registerGetStateMethods(r registry) {
	r.add("condenser_api.get_state", stylePython, raising(getStateMethod))
}
