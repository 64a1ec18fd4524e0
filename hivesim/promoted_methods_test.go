package hivesim_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

// TestPromotedDiscussions checks condenser_api and tags_api
// get_discussions_by_promoted: the pending top-level posts (each promoted
// by 0 on the simulated chain), newest first, paged by the start post and
// filtered by tag, the same in both APIs.
func TestPromotedDiscussions(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 1)
	var all []hivesim.Comment
	for _, cm := range n.Comments() {
		if cm.ParentAuthor == "" && !cm.CashoutTime.Equal(hivesim.MaxTime) {
			all = append(all, cm)
		}
	}
	slices.SortFunc(all, func(a, b hivesim.Comment) int { return int(b.ID - a.ID) })
	if len(all) < 3 {
		t.Fatalf("%d pending posts: too few", len(all))
	}
	refs := func(cs []hivesim.Comment) []string {
		out := make([]string, len(cs))
		for i, cm := range cs {
			out[i] = cm.Author + "/" + cm.Permlink
		}
		return out
	}
	got := func(t *testing.T, method string, params any) []string {
		t.Helper()
		var out []string
		for _, p := range asObjs(t, c.result(t, method, params)) {
			out = append(out, str(p, "author")+"/"+str(p, "permlink"))
		}
		return out
	}
	tag := all[0].Category
	var inTag []hivesim.Comment
	for _, cm := range all {
		if cm.Category == tag {
			inTag = append(inTag, cm)
		}
	}
	tests := []struct {
		name  string
		query obj
		want  []string
	}{
		{"first page", obj{"limit": 20}, refs(all[:min(20, len(all))])},
		{"after a start post", obj{"limit": 2, "start_author": all[1].Author, "start_permlink": all[1].Permlink}, refs(all[2:min(4, len(all))])},
		{"in a tag", obj{"tag": tag, "limit": 20}, refs(inTag[:min(20, len(inTag))])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cond := got(t, "condenser_api.get_discussions_by_promoted", []any{tt.query})
			if !slices.Equal(cond, tt.want) {
				t.Errorf("condenser_api: %v, want %v", cond, tt.want)
			}
			if tags := got(t, "tags_api.get_discussions_by_promoted", tt.query); !slices.Equal(tags, tt.want) {
				t.Errorf("tags_api: %v, want %v", tags, tt.want)
			}
		})
	}
	// hivemind's query checks apply as to the other lists.
	trending := c.call(t, "condenser_api.get_discussions_by_trending", []any{obj{"limit": 21}})
	if trending.Error == nil {
		t.Fatal("limit 21: no error from get_discussions_by_trending")
	}
	c.expectError(t, "condenser_api.get_discussions_by_promoted", []any{obj{"limit": 21}}, trending.Error.Code, trending.Error.Message)
}

// TestCondenserEnumVirtualOps checks HAfAH's positional
// condenser_api.enum_virtual_ops against account_history_api's named form:
// the same answer for the same arguments, null meaning the default.
func TestCondenserEnumVirtualOps(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 1)
	head := int64(n.Head())
	tests := []struct {
		name       string
		positional []any
		named      obj
	}{
		{"range", []any{head - 30, head - 20}, obj{"block_range_begin": head - 30, "block_range_end": head - 20}},
		{"a page after an operation", []any{head - 30, head - 20, (head - 25) * 64, 3}, obj{"block_range_begin": head - 30, "block_range_end": head - 20, "operation_begin": (head - 25) * 64, "limit": 3}},
		{"nulls are defaults, grouped", []any{head - 30, head - 20, nil, nil, nil, nil, true}, obj{"block_range_begin": head - 30, "block_range_end": head - 20, "group_by_block": true}},
		{"filter without the reward", []any{head - 30, head - 20, 0, 100, 1}, obj{"block_range_begin": head - 30, "block_range_end": head - 20, "limit": 100, "filter": 1}},
		{"reversible blocks", []any{head - 5, head + 1, 0, 100, nil, true}, obj{"block_range_begin": head - 5, "block_range_end": head + 1, "limit": 100, "include_reversible": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cond := c.call(t, "condenser_api.enum_virtual_ops", tt.positional)
			ah := c.call(t, "account_history_api.enum_virtual_ops", tt.named)
			if cond.Error != nil || ah.Error != nil {
				t.Fatalf("errors: condenser %v, account_history %v", cond.Error, ah.Error)
			}
			if string(cond.Result) != string(ah.Result) {
				t.Errorf("condenser_api %s\naccount_history_api %s", cond.Result, ah.Result)
			}
			var r struct {
				Ops        []json.RawMessage `json:"ops"`
				OpsByBlock []json.RawMessage `json:"ops_by_block"`
			}
			if err := json.Unmarshal(cond.Result, &r); err != nil || len(r.Ops)+len(r.OpsByBlock) == 0 && tt.name != "filter without the reward" {
				t.Errorf("no operations in %s (%v)", cond.Result, err)
			}
		})
	}
	// HAfAH's checks apply to the positional form too.
	ah := c.call(t, "account_history_api.enum_virtual_ops", obj{"block_range_begin": 10, "block_range_end": 10})
	cond := c.call(t, "condenser_api.enum_virtual_ops", []any{10, 10})
	if ah.Error == nil || cond.Error == nil || cond.Error.Code != ah.Error.Code || cond.Error.Message != ah.Error.Message {
		t.Errorf("an empty range: condenser %v, account_history %v", cond.Error, ah.Error)
	}
}
