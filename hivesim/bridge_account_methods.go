package hivesim

import (
	"encoding/json"
	"strconv"
	"time"
)

// hivemind's bridge methods about accounts: profiles, notifications,
// follow lists and relationships.

// profileFields are the profile members hivemind extracts from metadata.
var profileFields = []string{"name", "about", "location", "website", "profile_image", "cover_image",
	"blacklist_description", "muted_list_description"}

// follows reports whether follower follows (or, what "ignore", mutes) following.
func (ch *chain) follows(follower, following, what string) bool {
	same := func(f *Follow) bool { return f.Following == following && f.What == what }
	return find(ch.social.following[follower], same) != nil
}

// countWhat counts the follows of one kind.
func countWhat(fs []*Follow, what string) int {
	return len(filterRows(fs, func(f *Follow) bool { return f.What == what }))
}

// profileObj is a profile's fields (as strings) from account metadata.
func profileObj(js string, fields []string) obj {
	var meta struct {
		Profile map[string]any `json:"profile"`
	}
	_ = json.Unmarshal([]byte(js), &meta)
	o := obj{}
	for _, k := range fields {
		v, _ := meta.Profile[k].(string)
		o = append(o, k, v)
	}
	return o
}

func (c *callCtx) profile(name, observer string) obj {
	ch := c.n.ch
	a := ch.byName[name]
	c.failIf(a == nil, "Account '"+name+"' does not exist")
	active := a.LastPost
	for _, t := range []time.Time{a.LastVoteTime, a.Created} {
		if t.After(active) {
			active = t
		}
	}
	o := obj{"id", a.ID, "name", a.Name, "created", a.Created, "active", active, "post_count", a.PostCount,
		"reputation", repLog10(a.Reputation), "blacklists", []any{},
		"stats", obj{"rank", 0, "following", countWhat(ch.social.following[a.Name], "blog"), "followers", countWhat(ch.social.followers[a.Name], "blog")},
		"metadata", obj{"profile", profileObj(a.PostingJSONMetadata, profileFields)}}
	if observer != "" {
		o = append(o, "context", obj{"followed", ch.follows(observer, a.Name, "blog"), "muted", ch.follows(observer, a.Name, "ignore")})
	}
	return o
}

// notifications lists notes with a score of at least min_score (default
// 25) after last_id (exclusive; 0 = from the newest), newest first.
func (a hmArgs) notifications(notes []*Notification) []any {
	minScore, lastID := a.number("min_score", 25, 0, 100, "score"), a.number("last_id", 0, 0, 1<<62, "last_id")
	limit := a.limit("limit", 100, 100)
	notes = filterRows(notes, func(n *Notification) bool {
		return int64(n.Score) >= minScore && (lastID == 0 || n.ID < lastID)
	})
	return mapRows(firstN(notes, limit), func(n *Notification) any {
		return obj{"id", strconv.FormatInt(n.ID, 10), "type", n.Type, "score", n.Score, "date", n.Date, "msg", n.Msg,
			"url", n.URL}
	})
}

func registerBridgeAccountMethods(r registry) {
	r.mindR("bridge.get_profile", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "account", "observer")
		name := a.account("account", false)
		w.val(c.profile(name, a.account("observer", true)))
	})
	r.mindR("bridge.get_profiles", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "accounts", "observer")
		names, ok := a.m["accounts"].([]any)
		c.failIf(!ok, "accounts must be an array")
		observer := a.account("observer", true)
		w.val(mapRows(names, func(v any) any { return c.profile(need(c.hmAccount(v, false)), observer) }))
	})
	r.mindR("bridge.account_notifications", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "account", "min_score", "last_id", "limit")
		w.val(a.notifications(c.n.ch.extra.notesByAccount[a.existing("account")]))
	})
	r.mindR("bridge.post_notifications", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "author", "permlink", "min_score", "last_id", "limit")
		w.val(a.notifications(c.n.ch.extra.notesByComment[int(a.post("author", "permlink").ID)]))
	})
	r.mindR("bridge.unread_notifications", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "account", "min_score")
		account, minScore := a.existing("account"), a.number("min_score", 25, 0, 100, "score")
		lastRead, unread := c.n.ch.headTime0.Add(-7*24*time.Hour), 0
		for _, n := range c.n.ch.extra.notesByAccount[account] {
			if n.Date.After(lastRead) && int64(n.Score) >= minScore {
				unread++
			}
		}
		w.val(obj{"lastread", hmTime(lastRead), "unread", unread})
	})
	r.mindR("bridge.get_follow_list", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "observer", "follow_type")
		observer, rows := a.existing("observer"), []any{}
		switch a.str("follow_type") {
		case "muted":
			muted := filterRows(c.n.ch.social.following[observer], func(f *Follow) bool { return f.What == "ignore" })
			rows = mapRows(muted, func(f *Follow) any {
				return obj{"name", f.Following, "blacklist_description", "", "muted_list_description", ""}
			})
		case "blacklisted", "follow_blacklist", "follow_muted":
			// Nobody blacklists or follows lists on the simulated chain.
		default:
			c.fail("Unsupported follow_type, valid values: blacklisted, follow_blacklist, muted, follow_muted")
		}
		w.val(rows)
	})
	r.mindR("bridge.does_user_follow_any_lists", func(c *callCtx, p any, w *jw) {
		c.args(p, "observer").existing("observer")
		w.boolean(false)
	})
	r.mindR("bridge.get_relationship_between_accounts", func(c *callCtx, p any, w *jw) {
		a := c.args(p, "account1", "account2", "observer")
		one, two, ch := a.existing("account1"), a.existing("account2"), c.n.ch
		w.val(obj{"follows", ch.follows(one, two, "blog"), "ignores", ch.follows(one, two, "ignore"), "blacklists", false,
			"follows_blacklists", false, "follows_muted", false})
	})
}
