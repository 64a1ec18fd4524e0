package hivetx_test

import (
	"slices"
	"testing"

	"github.com/hivegate/hivegate/hivetx"
)

// TestAccountFieldNamesTheField shows the extractor behind
// limits.blacklist_accounts reporting the field each account sits under,
// in both operation shapes and inside name lists.
func TestAccountFieldNamesTheField(t *testing.T) {
	t.Parallel()
	params := `[["vote",{"voter":"alice","author":"bob","permlink":"p","weight":1}],
 {"type":"custom_json_operation","value":{"required_auths":[],"required_posting_auths":["carol","dave"],"id":"x","json":"{\"author\":\"eve\"}"}},
 ["account_update",{"account":"frank","posting":{"weight_threshold":1,"account_auths":[["grace",1]],"key_auths":[]}}]]`
	var got []string
	_, _, found := hivetx.AccountField([]byte(params), func(field, name string) bool {
		got = append(got, field+"="+name)
		return false
	})
	want := []string{"voter=alice", "author=bob", "required_posting_auths=carol", "required_posting_auths=dave", "account=frank", "account_auths=grace"}
	if found || !slices.Equal(got, want) {
		t.Errorf("visited %v (found %v), want %v", got, found, want)
	}
	field, name, found := hivetx.AccountField([]byte(params), func(field, name string) bool { return name == "dave" })
	if !found || field != "required_posting_auths" || name != "dave" {
		t.Errorf("stop at dave: %q %q %v", field, name, found)
	}
}
