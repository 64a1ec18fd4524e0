package hivesim_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// stateRefs are the "author/permlink" keys of a list of posts.
func stateRefs(posts []obj) []string {
	out := []string{}
	for _, p := range posts {
		out = append(out, str(p, "author")+"/"+str(p, "permlink"))
	}
	return out
}

// stateStrings reads a JSON array of strings (nil when v is not one).
func stateStrings(t *testing.T, v any) []string {
	t.Helper()
	arr, ok := v.([]any)
	if !ok {
		t.Fatalf("%v is not an array", v)
	}
	out := []string{}
	for _, x := range arr {
		out = append(out, x.(string))
	}
	return out
}

// TestGetStatePaths checks each kind of path against the methods hivemind
// built it from: the ranked lists, the account tabs, bridge's discussion
// and the trending tags.
func TestGetStatePaths(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 1)
	state := func(path string) obj {
		t.Helper()
		return c.result(t, "condenser_api.get_state", []any{path}).(obj)
	}
	trending := asObjs(t, c.result(t, "condenser_api.get_discussions_by_trending", []any{obj{"tag": "", "limit": 20}}))
	if len(trending) == 0 {
		t.Fatal("no trending posts")
	}
	tags := asObjs(t, c.result(t, "condenser_api.get_trending_tags", []any{"", 250}))
	tagNames := []string{}
	for _, tg := range tags {
		tagNames = append(tagNames, str(tg, "name"))
	}

	t.Run("ranked", func(t *testing.T) {
		for _, path := range []string{"", "/", "trending", "/trending/?x=1"} {
			st := state(path)
			idx := field(t, field(t, st, "discussion_idx"), "").(obj)
			if got, want := stateStrings(t, idx["trending"]), stateRefs(trending); !slices.Equal(got, want) {
				t.Fatalf("%q: discussion_idx trending %v, want %v", path, got, want)
			}
			if got := stateStrings(t, field(t, field(t, st, "tag_idx"), "trending")); !slices.Equal(got, tagNames[:min(50, len(tagNames))]) {
				t.Fatalf("%q: tag_idx %v, want the first 50 of %v", path, got, tagNames)
			}
			if content := field(t, st, "content").(obj); len(content) != len(trending) {
				t.Fatalf("%q: %d posts, want %d", path, len(content), len(trending))
			}
		}
		tag := tagNames[0]
		hot := asObjs(t, c.result(t, "condenser_api.get_discussions_by_hot", []any{obj{"tag": tag, "limit": 20}}))
		st := state("/hot/" + strings.ToUpper(tag))
		if got, want := stateStrings(t, field(t, field(t, field(t, st, "discussion_idx"), tag), "hot")), stateRefs(hot); !slices.Equal(got, want) {
			t.Fatalf("hot/%s: %v, want %v", tag, got, want)
		}
	})

	t.Run("account", func(t *testing.T) {
		author := str(trending[0], "author")
		blog := asObjs(t, c.result(t, "condenser_api.get_discussions_by_blog", []any{obj{"tag": author, "limit": 20}}))
		comments := asObjs(t, c.result(t, "condenser_api.get_discussions_by_comments", []any{obj{"start_author": author, "limit": 20}}))
		for _, tc := range []struct {
			path, key string
			want      []string
		}{
			{"/@" + author, "blog", stateRefs(blog)},
			{"@" + author + "/blog", "blog", stateRefs(blog)},
			{"/@" + author + "/comments", "comments", stateRefs(comments)},
			{"/@" + author + "/followers", "", nil},
		} {
			st := state(tc.path)
			acc := field(t, field(t, st, "accounts"), author).(obj)
			for _, k := range []string{"blog", "feed", "comments", "recent_replies"} {
				got := stateStrings(t, acc[k])
				if k != tc.key && len(got) != 0 {
					t.Fatalf("%s: %s = %v, want []", tc.path, k, got)
				}
				if k == tc.key && !slices.Equal(got, tc.want) {
					t.Fatalf("%s: %s = %v, want %v", tc.path, k, got, tc.want)
				}
			}
			if content := field(t, st, "content").(obj); len(content) != len(tc.want) {
				t.Fatalf("%s: %d posts, want %d", tc.path, len(content), len(tc.want))
			}
			if _, ok := st["error"]; ok {
				t.Fatalf("%s: error member %v", tc.path, st["error"])
			}
			var meta struct {
				Profile map[string]string `json:"profile"`
			}
			if err := json.Unmarshal([]byte(str(acc, "json_metadata")), &meta); err != nil || len(meta.Profile) != 6 {
				t.Fatalf("%s: json_metadata %q: %v", tc.path, str(acc, "json_metadata"), err)
			}
		}
		st := state("/@" + author + "/no-such-tab")
		if got := str(st, "error"); got != "invalid get_state account path @"+author+"/no-such-tab" {
			t.Fatalf("unknown tab: error %q", got)
		}
		if _, ok := field(t, st, "accounts").(obj)[author]; !ok {
			t.Fatal("unknown tab: the account is still answered")
		}
	})

	t.Run("discussion", func(t *testing.T) {
		var root obj
		for _, p := range trending {
			if num(p, "children") > 1 {
				root = p
				break
			}
		}
		if root == nil {
			t.Fatal("no trending post with replies")
		}
		author, permlink := str(root, "author"), str(root, "permlink")
		thread := c.result(t, "bridge.get_discussion", []any{author, permlink}).(obj)
		st := state("/" + str(root, "category") + "/@" + author + "/" + permlink)
		content := field(t, st, "content").(obj)
		if len(content) != len(thread) || int64(len(content)) != num(root, "children")+1 {
			t.Fatalf("%d posts, bridge has %d, children %d", len(content), len(thread), num(root, "children"))
		}
		authors := map[string]bool{}
		for ref, b := range thread {
			p, ok := content[ref].(obj)
			if !ok {
				t.Fatalf("%s missing from content", ref)
			}
			want := stateStrings(t, field(t, b, "replies"))
			slices.Sort(want)
			if got := stateStrings(t, p["replies"]); !slices.Equal(got, want) {
				t.Fatalf("%s: replies %v, want %v", ref, got, want)
			}
			authors[str(p, "author")] = true
		}
		accounts := field(t, st, "accounts").(obj)
		if len(accounts) != len(authors) {
			t.Fatalf("accounts %d, want the %d authors", len(accounts), len(authors))
		}
		for name := range authors {
			acc := field(t, accounts, name).(obj)
			if _, ok := acc["blog"]; ok {
				t.Fatalf("%s: an author of a discussion has no tabs: %v", name, acc)
			}
		}
	})

	t.Run("tags and static pages", func(t *testing.T) {
		st := state("/tags")
		if got := stateStrings(t, field(t, field(t, st, "tag_idx"), "trending")); !slices.Equal(got, tagNames) {
			t.Fatalf("tag_idx %v, want %v", got, tagNames)
		}
		byName := field(t, st, "tags").(obj)
		for _, tg := range tags {
			if got := field(t, byName, str(tg, "name")).(obj); str(got, "total_payouts") != str(tg, "total_payouts") {
				t.Fatalf("tags[%s] = %v, want %v", str(tg, "name"), got, tg)
			}
		}
		st = state("market")
		for k, want := range map[string]int{"accounts": 0, "content": 0, "tags": 0} {
			if got := len(field(t, st, k).(obj)); got != want {
				t.Fatalf("market: %s has %d members", k, got)
			}
		}
		if str(field(t, st, "props").(obj), "message") != "Not further supported" {
			t.Fatalf("market: props %v", st["props"])
		}
		if idx := field(t, st, "discussion_idx").(obj); len(idx) != 1 || len(field(t, idx, "").(obj)) != 0 {
			t.Fatalf(`market: discussion_idx %v, want {"": {}}`, idx)
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct{ path, data string }{
			{"/trending#x", "path contains hash mark (#)"},
			{"a/b/c/d", "too many parts in path: `a/b/c/d`"},
			{"/nowhere", "unhandled path: /nowhere"},
			{"/recent", "invalid sort `recent`"},
			{"/trending/a/b", "unexpected discussion path part[2] trending/a/b"},
			{"/@alice/transfers", "transfers API not served here"},
			{"/tags/x", "invalid /tags request"},
		} {
			r := c.expectError(t, "condenser_api.get_state", []any{tc.path}, -32602, "Invalid parameters")
			var data string
			if err := json.Unmarshal(r.Error.Data, &data); err != nil || data != tc.data {
				t.Fatalf("%q: data %s, want %q", tc.path, r.Error.Data, tc.data)
			}
		}
	})
}
