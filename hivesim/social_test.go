package hivesim_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

func asObjs(t *testing.T, v any) []obj {
	t.Helper()
	arr, ok := v.([]any)
	if !ok {
		t.Fatalf("not an array: %.200v", v)
	}
	out := make([]obj, len(arr))
	for i, e := range arr {
		out[i] = e.(obj)
	}
	return out
}

// most returns the account with the most elements by key.
func most[T any](rows []T, key func(T) string) string { return mostBy(rows, key) }

func TestFollows(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 41)
	follows := n.Follows()
	target := most(follows, func(f hivesim.Follow) string {
		if f.What != "blog" {
			return ""
		}
		return f.Following
	})
	var want []string
	for _, f := range follows {
		if f.Following == target && f.What == "blog" {
			want = append(want, f.Follower)
		}
	}
	slices.Sort(want)
	// Page with an exclusive start: re-send the last follower.
	var got []string
	start := ""
	for {
		rows := asObjs(t, c.result(t, "condenser_api.get_followers", []any{target, start, "blog", 3}))
		for _, r := range rows {
			if str(r, "following") != target || r["what"].([]any)[0] != "blog" {
				t.Fatalf("row %v", r)
			}
			got = append(got, str(r, "follower"))
		}
		if len(rows) < 3 {
			break
		}
		start = got[len(got)-1]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("followers %v, want %v", got, want)
	}
	following := asObjs(t, c.result(t, "condenser_api.get_following", obj{"account": want[0], "start": "", "follow_type": "blog", "limit": 100}))
	if !slices.ContainsFunc(following, func(r obj) bool { return str(r, "following") == target }) {
		t.Fatalf("%s does not follow %s: %v", want[0], target, following)
	}
	errs := []struct {
		params []any
		msg    string
	}{
		{[]any{target, nil, "blog", 1001}, "Assert Exception:limit = 1001 outside valid range [1:1000]"},
		{[]any{target, nil, "mute", 10}, "Assert Exception:Unsupported follow type, valid types: blog, ignore"},
		{[]any{"nobody-here", nil, "blog", 10}, "Assert Exception:Account nobody-here does not exist"},
		{[]any{"", nil, "blog", 10}, "Assert Exception:invalid account (not specified)"},
	}
	for _, e := range errs {
		c.expectError(t, "condenser_api.get_followers", e.params, -32602, e.msg)
	}
}

func TestBlogsAndFeeds(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 42)
	var blogger string
	for _, a := range n.Accounts() {
		if len(n.Blog(a.Name)) > len(n.Blog(blogger)) {
			blogger = a.Name
		}
	}
	blog := n.Blog(blogger)
	entries := asObjs(t, c.result(t, "condenser_api.get_blog_entries", []any{blogger, 0, 500}))
	if len(entries) != len(blog) {
		t.Fatalf("%d entries, want %d", len(entries), len(blog))
	}
	for i, e := range entries {
		want := blog[len(blog)-1-i]
		if num(e, "entry_id") != int64(want.EntryID) || str(e, "permlink") != want.Permlink {
			t.Fatalf("entry %d = %v, want %+v", i, e, want)
		}
	}
	mid := asObjs(t, c.result(t, "condenser_api.get_blog", obj{"account": blogger, "start_entry_id": 2, "limit": 2}))
	if len(mid) != 2 || num(mid[0], "entry_id") != 2 || num(mid[1], "entry_id") != 1 {
		t.Fatalf("get_blog from entry 2 = %v", mid)
	}
	if _, ok := mid[0]["comment"].(obj)["active_votes"]; !ok {
		t.Fatalf("blog comment lacks active_votes: %v", mid[0])
	}
	c.expectError(t, "condenser_api.get_blog", []any{blogger, 0, 21}, -32602, "Assert Exception:limit = 21 outside valid range [1:20]")
	c.expectError(t, "condenser_api.get_blog_entries", []any{blogger, -2, 10}, -32602, "Assert Exception:offset cannot be negative")
	feed := asObjs(t, c.result(t, "condenser_api.get_feed_entries", []any{"alice", 0, 50}))
	for i := 1; i < len(feed); i++ {
		if num(feed[i], "entry_id") >= num(feed[i-1], "entry_id") {
			t.Fatalf("feed not newest first: %v", feed)
		}
	}
	full := asObjs(t, c.result(t, "condenser_api.get_feed", []any{"alice", 0, 5}))
	if len(feed) > 0 && (len(full) == 0 || full[0]["comment"] == nil) {
		t.Fatalf("get_feed = %v", full)
	}
}

func TestDiscussions(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 43)
	comments := n.Comments()
	author := most(comments, func(x hivesim.Comment) string {
		if x.ParentAuthor != "" {
			return ""
		}
		return x.Author
	})
	var posts []hivesim.Comment
	for _, x := range comments {
		if x.Author == author && x.ParentAuthor == "" {
			posts = append(posts, x)
		}
	}
	slices.Reverse(posts) // newest first
	got := asObjs(t, c.result(t, "condenser_api.get_discussions_by_author_before_date", []any{author, "", "", 20}))
	if len(got) != min(20, len(posts)) || str(got[0], "permlink") != posts[0].Permlink {
		t.Fatalf("discussions %d rows (want %d), first %v", len(got), len(posts), got[0]["permlink"])
	}
	after := asObjs(t, c.result(t, "tags_api.get_discussions_by_author_before_date",
		obj{"author": author, "start_permlink": posts[0].Permlink, "limit": 20, "truncate_body": 5}))
	if len(after) != len(got)-1+boolInt(len(posts) > 20) || str(after[0], "permlink") != posts[1].Permlink {
		t.Fatalf("after the first post: %d rows", len(after))
	}
	if _, ok := after[0]["post_id"]; !ok || len([]rune(str(after[0], "body"))) > 5 {
		t.Fatalf("tags_api row %v", after[0])
	}
	c.expectError(t, "condenser_api.get_discussions_by_author_before_date", obj{"limit": 1}, -32602,
		"Assert Exception:missing a required argument: 'author'")
	replies := asObjs(t, c.result(t, "condenser_api.get_replies_by_last_update", []any{author, "", 20}))
	for i, r := range replies {
		if str(r, "parent_author") != author {
			t.Fatalf("reply %d is to %s", i, str(r, "parent_author"))
		}
		if i > 0 && str(r, "last_update") > str(replies[i-1], "last_update") {
			t.Fatal("replies not newest first")
		}
	}
	if len(replies) > 1 {
		next := asObjs(t, c.result(t, "condenser_api.get_replies_by_last_update", []any{str(replies[0], "author"), str(replies[0], "permlink"), 20}))
		if len(next) == 0 || str(next[0], "permlink") != str(replies[1], "permlink") {
			t.Fatalf("paging after %s: %v", str(replies[0], "permlink"), next)
		}
	}
	post := posts[0]
	content := c.result(t, "condenser_api.get_content", []any{post.Author, post.Permlink}).(obj)
	if num(content, "id") != post.ID || str(content, "root_author") != post.Author || content["reblogged_by"] == nil {
		t.Fatalf("get_content = %v", content)
	}
	c.expectError(t, "condenser_api.get_content", []any{post.Author, "no-such-post"}, -32602,
		"Assert Exception:Post "+post.Author+"/no-such-post does not exist")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestTagsAndReputations(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 44)
	tags := n.Tags()
	got := asObjs(t, c.result(t, "condenser_api.get_trending_tags", []any{"", 250}))
	if len(got) != len(tags) {
		t.Fatalf("%d tags, want %d", len(got), len(tags))
	}
	for i, tg := range tags {
		if str(got[i], "name") != tg.Name || str(got[i], "total_payouts") != tg.TotalPayouts.String() {
			t.Fatalf("tag %d = %v, want %+v", i, got[i], tg)
		}
	}
	after := asObjs(t, c.result(t, "condenser_api.get_trending_tags", obj{"start_tag": tags[0].Name, "limit": 2}))
	if str(after[0], "name") != tags[1].Name {
		t.Fatalf("start_tag is exclusive: got %v", after)
	}
	c.expectError(t, "condenser_api.get_trending_tags", obj{"start_tag": "no-such-tag"}, -32602, "Assert Exception:Category no-such-tag does not exist")
	c.expectError(t, "condenser_api.get_trending_tags", obj{"limit": 0}, -32602, "Assert Exception:limit = 0 outside valid range [1:250]")

	accts := n.Accounts()
	reps := asObjs(t, c.result(t, "condenser_api.get_account_reputations", []any{accts[3].Name, 2}))
	if len(reps) != 2 || str(reps[0], "account") != accts[3].Name || num(reps[0], "reputation") != accts[3].Reputation {
		t.Fatalf("condenser reputations %v", reps)
	}
	follow := items(t, c.result(t, "follow_api.get_account_reputations", obj{"account_lower_bound": accts[3].Name, "limit": 1}), "reputations")
	if str(follow[0], "name") != accts[3].Name {
		t.Fatalf("follow_api reputations %v", follow)
	}
	hived := items(t, c.result(t, "reputation_api.get_account_reputations", obj{"account_lower_bound": "", "limit": 1000}), "reputations")
	for _, r := range hived {
		if num(r, "reputation") == 0 {
			t.Fatalf("reputation_api lists %v", r)
		}
	}
	c.expectError(t, "reputation_api.get_account_reputations", obj{"limit": 1001}, -32003,
		"Assert Exception:args.limit <= 1000: limit of 1001 is greater than maxmimum allowed")
}

func TestCondenserAccounts(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 45)
	got := asObjs(t, c.result(t, "condenser_api.get_accounts", []any{[]any{"bob", "nobody-here", "alice"}}))
	if len(got) != 2 || str(got[0], "name") != "bob" || str(got[1], "name") != "alice" {
		t.Fatalf("get_accounts = %v", got)
	}
	bob, _ := n.Account("bob")
	if str(got[0], "balance") != bob.Balance.String() || !strings.HasSuffix(str(got[0], "vesting_shares"), " VESTS") {
		t.Fatalf("legacy assets: %v %v", got[0]["balance"], got[0]["vesting_shares"])
	}
	for _, k := range []string{"voting_power", "reputation", "witness_votes", "guest_bloggers"} {
		if _, ok := got[0][k]; !ok {
			t.Fatalf("condenser account lacks %s", k)
		}
	}
	found := items(t, c.result(t, "database_api.find_accounts", obj{"accounts": []any{"alice"}}), "accounts")
	if len(found) != 1 || found[0]["balance"].(obj)["nai"] != "@@000000021" {
		t.Fatalf("find_accounts = %v", found)
	}
	var delegator string
	for _, d := range n.VestingDelegations() {
		delegator = d.Delegator
		break
	}
	dels := asObjs(t, c.result(t, "condenser_api.get_vesting_delegations", []any{delegator, "", 100}))
	if len(dels) == 0 {
		t.Fatal("no delegations")
	}
	for _, d := range dels {
		if str(d, "delegator") != delegator || !strings.HasSuffix(str(d, "vesting_shares"), " VESTS") {
			t.Fatalf("delegation %v", d)
		}
	}
}
