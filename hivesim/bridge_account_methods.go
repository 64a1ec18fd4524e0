package hivesim

import (
	"encoding/json"
	"strconv"
	"time"
)

// hivemind's bridge methods about accounts: profiles, notifications,
// follow lists and relationships.

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// profileFields are the profile members hivemind extracts from metadata.
var profileFields = []string{"name", "about", "location", "website", "profile_image", "cover_image",
	"blacklist_description", "muted_list_description"}

func (ch *chain) follows(follower, following, what string) bool {
	for _, f := range ch.social.following[follower] {
		if f.Following == following && f.What == what {
			return true
		}
	}
	return false
}

func writeProfile(w *jw, ch *chain, a *Account, observer string) {
	s := &ch.social
	following := 0
	for _, f := range s.following[a.Name] {
		if f.What == "blog" {
			following++
		}
	}
	followers := 0
	for _, f := range s.followers[a.Name] {
		if f.What == "blog" {
			followers++
		}
	}
	active := a.LastPost
	if a.LastVoteTime.After(active) {
		active = a.LastVoteTime
	}
	if a.Created.After(active) {
		active = a.Created
	}
	var meta struct {
		Profile map[string]any `json:"profile"`
	}
	_ = json.Unmarshal([]byte(a.PostingJSONMetadata), &meta)
	w.objBegin()
	w.knum("id", a.ID)
	w.kstr("name", a.Name)
	w.ktime("created", a.Created)
	w.ktime("active", active)
	w.knum("post_count", int64(a.PostCount))
	w.kfloat("reputation", repLog10(a.Reputation))
	w.kemptyArr("blacklists")
	w.key("stats")
	w.objBegin()
	w.knum("rank", 0)
	w.knum("following", int64(following))
	w.knum("followers", int64(followers))
	w.objEnd()
	w.key("metadata")
	w.objBegin()
	w.key("profile")
	w.objBegin()
	for _, k := range profileFields {
		v, _ := meta.Profile[k].(string)
		w.kstr(k, v)
	}
	w.objEnd()
	w.objEnd()
	if observer != "" {
		w.key("context")
		w.objBegin()
		w.kbool("followed", ch.follows(observer, a.Name, "blog"))
		w.kbool("muted", ch.follows(observer, a.Name, "ignore"))
		w.objEnd()
	}
	w.objEnd()
}

// notificationsPage lists notifications with a score of at least minScore
// after last_id (exclusive; 0 = from the newest), newest first.
func notificationsPage(notes []*Notification, minScore, lastID, limit int64) []*Notification {
	var out []*Notification
	for _, n := range notes {
		if int64(len(out)) == limit {
			break
		}
		if int64(n.Score) >= minScore && (lastID == 0 || n.ID < lastID) {
			out = append(out, n)
		}
	}
	return out
}

func writeNotifications(w *jw, notes []*Notification) {
	w.arrBegin()
	for _, n := range notes {
		w.objBegin()
		w.kstr("id", strconv.FormatInt(n.ID, 10))
		w.kstr("type", n.Type)
		w.knum("score", int64(n.Score))
		w.ktime("date", n.Date)
		w.kstr("msg", n.Msg)
		w.kstr("url", n.URL)
		w.objEnd()
	}
	w.arrEnd()
}

// hmNotificationArgs reads min_score (default 25), last_id and limit.
func (c *callCtx) hmNotificationArgs(m map[string]any) (minScore, lastID, limit int64, err *rpcError) {
	if minScore, err = c.hmLimitNamed(m["min_score"], 25, 0, 100, "score"); err != nil {
		return
	}
	if lastID, err = c.hmLimitNamed(m["last_id"], 0, 0, 1<<62, "last_id"); err != nil {
		return
	}
	limit, err = c.hmLimitArg(m["limit"], 100, 100)
	return
}

// hmLimitNamed is hivemind's valid_number for a named argument.
func (c *callCtx) hmLimitNamed(v any, def, lo, hi int64, name string) (int64, *rpcError) {
	if v == nil {
		return def, nil
	}
	var n int64
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			return 0, c.hivemindError("invalid " + name + " type")
		}
		n = i
	case string:
		i, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return 0, c.hivemindError("invalid " + name + " type")
		}
		n = i
	default:
		return 0, c.hivemindError("invalid " + name + " type")
	}
	if n < lo || n > hi {
		return 0, c.hivemindError(name + " = " + strconv.FormatInt(n, 10) + " outside valid range [" +
			strconv.FormatInt(lo, 10) + ":" + strconv.FormatInt(hi, 10) + "]")
	}
	return n, nil
}

func registerBridgeAccountMethods(r registry) {
	r.mind("bridge.get_profile", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "account", "observer")
		if err != nil {
			return err
		}
		account, err := c.hmAccount(m["account"], false)
		if err != nil {
			return err
		}
		observer, err := c.hmAccount(m["observer"], true)
		if err != nil {
			return err
		}
		a := c.n.ch.byName[account]
		if a == nil {
			return c.hivemindError("Account '" + account + "' does not exist")
		}
		writeProfile(w, c.n.ch, a, observer)
		return nil
	})
	r.mind("bridge.get_profiles", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "accounts", "observer")
		if err != nil {
			return err
		}
		names, ok := m["accounts"].([]any)
		if !ok {
			return c.hivemindError("accounts must be an array")
		}
		observer, err := c.hmAccount(m["observer"], true)
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, v := range names {
			name, err := c.hmAccount(v, false)
			if err != nil {
				return err
			}
			a := c.n.ch.byName[name]
			if a == nil {
				return c.hivemindError("Account '" + name + "' does not exist")
			}
			writeProfile(w, c.n.ch, a, observer)
		}
		w.arrEnd()
		return nil
	})
	r.mind("bridge.account_notifications", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "account", "min_score", "last_id", "limit")
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
		minScore, lastID, limit, err := c.hmNotificationArgs(m)
		if err != nil {
			return err
		}
		writeNotifications(w, notificationsPage(c.n.ch.extra.notesByAccount[account], minScore, lastID, limit))
		return nil
	})
	r.mind("bridge.post_notifications", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "author", "permlink", "min_score", "last_id", "limit")
		if err != nil {
			return err
		}
		post, err := c.hmAuthorPermlink(m)
		if err != nil {
			return err
		}
		minScore, lastID, limit, err := c.hmNotificationArgs(m)
		if err != nil {
			return err
		}
		writeNotifications(w, notificationsPage(c.n.ch.extra.notesByComment[int(post.ID)], minScore, lastID, limit))
		return nil
	})
	r.mind("bridge.unread_notifications", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "account", "min_score")
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
		minScore, err := c.hmLimitNamed(m["min_score"], 25, 0, 100, "score")
		if err != nil {
			return err
		}
		lastRead := c.n.ch.headTime0.Add(-7 * 24 * time.Hour)
		unread := 0
		for _, n := range c.n.ch.extra.notesByAccount[account] {
			if n.Date.After(lastRead) && int64(n.Score) >= minScore {
				unread++
			}
		}
		w.objBegin()
		w.kstr("lastread", hmTime(lastRead))
		w.knum("unread", int64(unread))
		w.objEnd()
		return nil
	})
	r.mind("bridge.get_follow_list", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "observer", "follow_type")
		if err != nil {
			return err
		}
		observer, err := c.hmAccount(m["observer"], false)
		if err != nil {
			return err
		}
		if err := c.hmExisting(observer); err != nil {
			return err
		}
		kind, _ := m["follow_type"].(string)
		w.arrBegin()
		switch kind {
		case "muted":
			for _, f := range c.n.ch.social.following[observer] {
				if f.What == "ignore" {
					w.objBegin()
					w.kstr("name", f.Following)
					w.kstr("blacklist_description", "")
					w.kstr("muted_list_description", "")
					w.objEnd()
				}
			}
		case "blacklisted", "follow_blacklist", "follow_muted":
			// Nobody blacklists or follows lists on the simulated chain.
		default:
			return c.hivemindError("Unsupported follow_type, valid values: blacklisted, follow_blacklist, muted, follow_muted")
		}
		w.arrEnd()
		return nil
	})
	r.mind("bridge.does_user_follow_any_lists", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "observer")
		if err != nil {
			return err
		}
		observer, err := c.hmAccount(m["observer"], false)
		if err != nil {
			return err
		}
		if err := c.hmExisting(observer); err != nil {
			return err
		}
		w.boolean(false)
		return nil
	})
	r.mind("bridge.get_relationship_between_accounts", func(c *callCtx, p any, w *jw) *rpcError {
		m, err := c.hmParams(p, "account1", "account2", "observer")
		if err != nil {
			return err
		}
		var names [2]string
		for i, k := range []string{"account1", "account2"} {
			if names[i], err = c.hmAccount(m[k], false); err != nil {
				return err
			}
			if err := c.hmExisting(names[i]); err != nil {
				return err
			}
		}
		ch := c.n.ch
		w.objBegin()
		w.kbool("follows", ch.follows(names[0], names[1], "blog"))
		w.kbool("ignores", ch.follows(names[0], names[1], "ignore"))
		w.kbool("blacklists", false)
		w.kbool("follows_blacklists", false)
		w.kbool("follows_muted", false)
		w.objEnd()
		return nil
	})
}
