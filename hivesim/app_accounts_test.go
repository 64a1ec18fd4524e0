package hivesim_test

import (
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

// TestAppAccountsListed: an app account added at genesis is in every
// account list, and the lists agree with get_account_count (a client that
// pages list_accounts to the end sees every account the count names).
func TestAppAccountsListed(t *testing.T) {
	t.Parallel()
	n := hivesim.New(hivesim.Options{Seed: 3, AppAccounts: []hivesim.AppAccount{{Name: "demo.app", Broadcaster: "initminer"}}})
	c := serve(t, n)
	var count int
	if err := json.Unmarshal(c.call(t, "condenser_api.get_account_count", []any{}).Result, &count); err != nil {
		t.Fatal(err)
	}
	for _, order := range []struct{ order, start string }{
		{"by_name", `""`}, {"by_proxy", `["", ""]`}, {"by_next_vesting_withdrawal", `["1970-01-01T00:00:00", ""]`},
	} {
		var res struct {
			Accounts []struct {
				Name string `json:"name"`
			} `json:"accounts"`
		}
		params := json.RawMessage(`{"start":` + order.start + `,"limit":1000,"order":"` + order.order + `"}`)
		if err := json.Unmarshal(c.call(t, "database_api.list_accounts", params).Result, &res); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, a := range res.Accounts {
			found = found || a.Name == "demo.app"
		}
		if len(res.Accounts) != count || !found {
			t.Errorf("%s: %d accounts listed (demo.app listed: %v), get_account_count %d", order.order, len(res.Accounts), found, count)
		}
	}
}
