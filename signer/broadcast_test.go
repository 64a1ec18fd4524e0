package signer

import (
	"net/http"
	"slices"
	"testing"

	"github.com/hivegate/hivegate/hivetx"
)

// TestCheckOperations: what a grant lets the signer broadcast, and the
// refusal (HTTP status, OAuth code) of what it does not.
func TestCheckOperations(t *testing.T) {
	t.Parallel()
	posting := Grant{User: "bob", App: "demo.app", Scopes: []string{"login", "posting"}}
	login := Grant{User: "bob", App: "demo.app", Scopes: []string{"login"}}
	for _, tc := range []struct {
		name   string
		g      Grant
		ops    string
		status int // 0: allowed
		code   string
	}{
		{"vote for the user", posting, `[["vote",{"voter":"bob","author":"alice","permlink":"p","weight":10000}]]`, 0, ""},
		{"comment by the user", posting, `[["comment",{"parent_author":"","parent_permlink":"hive","author":"bob","permlink":"p","title":"t","body":"b","json_metadata":"{}"}]]`, 0, ""},
		{"follow as custom_json", posting, `[["custom_json",{"required_auths":[],"required_posting_auths":["bob"],"id":"follow","json":"[]"}]]`, 0, ""},
		{"profile by account_update2", posting, `[["account_update2",{"account":"bob","json_metadata":"","posting_json_metadata":"{}","extensions":[]}]]`, 0, ""},
		{"no operations", posting, `[]`, http.StatusBadRequest, "invalid_request"},
		{"login scope broadcasts nothing", login, `[["vote",{"voter":"bob","author":"alice","permlink":"p","weight":1}]]`, http.StatusUnauthorized, "invalid_scope"},
		{"transfer is outside posting", posting, `[["transfer",{"from":"bob","to":"alice","amount":"1.000 HIVE","memo":""}]]`, http.StatusUnauthorized, "invalid_scope"},
		{"vote for another account", posting, `[["vote",{"voter":"alice","author":"bob","permlink":"p","weight":1}]]`, http.StatusUnauthorized, "unauthorized_client"},
		{"custom_json for two", posting, `[["custom_json",{"required_auths":[],"required_posting_auths":["bob","alice"],"id":"x","json":"[]"}]]`, http.StatusUnauthorized, "unauthorized_client"},
		{"custom_json with active auths", posting, `[["custom_json",{"required_auths":["bob"],"required_posting_auths":["bob"],"id":"x","json":"[]"}]]`, http.StatusUnauthorized, "unauthorized_client"},
		{"account_update2 keys", posting, `[["account_update2",{"account":"bob","memo_key":"STM6FATHLohxTN8RWWkU9ZZwVywXo6MEDjHHui1jEBYkG2tTdvMYo","json_metadata":"","posting_json_metadata":"","extensions":[]}]]`, http.StatusUnauthorized, "unauthorized_client"},
		{"second operation for another account", posting, `[["vote",{"voter":"bob","author":"alice","permlink":"p","weight":1}],["vote",{"voter":"carol","author":"alice","permlink":"p","weight":1}]]`, http.StatusUnauthorized, "unauthorized_client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ops, err := hivetx.ParseOperations([]byte(tc.ops))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			e := checkOperations(tc.g, ops)
			switch {
			case tc.status == 0 && e != nil:
				t.Errorf("refused: %v", e)
			case tc.status != 0 && (e == nil || e.Status != tc.status || e.Code != tc.code):
				t.Errorf("got %v, want HTTP %d %s", e, tc.status, tc.code)
			}
		})
	}
}

// TestOperationNames: posting lists HiveSigner's operations, login none.
func TestOperationNames(t *testing.T) {
	t.Parallel()
	if got := OperationNames([]string{"login"}); got != nil {
		t.Errorf("login: %v", got)
	}
	got := OperationNames([]string{"login", "posting"})
	for _, want := range []string{"vote", "comment", "custom_json", "account_update2"} {
		if !slices.Contains(got, want) {
			t.Errorf("posting: %v lacks %s", got, want)
		}
	}
	if slices.Contains(got, "transfer") {
		t.Errorf("posting lists transfer: %v", got)
	}
}
