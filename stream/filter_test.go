package stream

import (
	"encoding/json"
	"testing"
)

// TestFilterMatch: each list selects; all that are set must pass.
func TestFilterMatch(t *testing.T) {
	t.Parallel()
	vote := Op{Type: "vote_operation", Value: json.RawMessage(`{"voter":"alice","author":"bob","permlink":"p","weight":100}`)}
	follow := Op{Type: "custom_json_operation", Value: json.RawMessage(`{"required_auths":[],"required_posting_auths":["carol"],"id":"follow","json":"[]"}`)}
	other := Op{Type: "custom_json_operation", Value: json.RawMessage(`{"required_auths":[],"required_posting_auths":["carol"],"id":"sm_market","json":"[]"}`)}
	for _, tc := range []struct {
		name                 string
		types, accounts, ids []string
		want                 [3]bool // vote, follow, other
	}{
		{"empty", nil, nil, nil, [3]bool{true, true, true}},
		{"short type", []string{"vote"}, nil, nil, [3]bool{true, false, false}},
		{"long type", []string{"custom_json_operation"}, nil, nil, [3]bool{false, true, true}},
		{"account as author", nil, []string{"bob"}, nil, [3]bool{true, false, false}},
		{"account as signer", nil, []string{"carol"}, nil, [3]bool{false, true, true}},
		{"account nobody", nil, []string{"dave"}, nil, [3]bool{false, false, false}},
		{"custom_json id", nil, nil, []string{"follow"}, [3]bool{false, true, false}},
		{"all set", []string{"custom_json"}, []string{"carol"}, []string{"sm_market"}, [3]bool{false, false, true}},
	} {
		f, ok := NewFilter(tc.types, tc.accounts, tc.ids, false)
		if !ok {
			t.Fatal(tc.name)
		}
		for i, op := range []Op{vote, follow, other} {
			if got := f.Match(op); got != tc.want[i] {
				t.Errorf("%s: op %d matches %v, want %v", tc.name, i, got, tc.want[i])
			}
		}
	}
	if _, ok := NewFilter(make([]string, 101), nil, nil, false); ok {
		t.Error("a filter of 101 types accepted")
	}
}
