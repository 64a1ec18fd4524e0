package transcode_test

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	databaseapiv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/server/transcode"
)

// A typed request becomes the JSON-RPC params hived expects: enum names,
// the start cursor written bare, unset optional fields left out.
func ExampleMarshalParams() {
	req := &databaseapiv1.ListAccountsRequest{
		Limit: proto.Uint32(10),
		Order: databaseapiv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME,
		Start: &databaseapiv1.ListAccountsStart{
			Start: &databaseapiv1.ListAccountsStart_ByName_{
				ByName: &databaseapiv1.ListAccountsStart_ByName{Account: "alice"},
			},
		},
	}
	params, err := transcode.MarshalParams(req)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(params))
	// Output: {"limit":10,"order":"by_name","start":"alice"}
}

// hived's result decodes into the typed response; keys the schema does not
// know are reported, not rejected; hived's never-time
// (next_vesting_withdrawal "1969-12-31T23:59:59": no power-down) is an
// unset Timestamp.
func ExampleUnmarshal() {
	result := `{"accounts":[{"name":"alice","created":"2016-03-24T16:05:00",` +
		`"voting_manabar":{"current_mana":"9007199254740993","last_update_time":1700000000},` +
		`"next_vesting_withdrawal":"1969-12-31T23:59:59","future_field":true}]}`
	resp := &databaseapiv1.ListAccountsResponse{}
	unknown, err := transcode.Unmarshal([]byte(result), resp)
	if err != nil {
		panic(err)
	}
	a := resp.GetAccounts()[0]
	fmt.Println(a.GetName(), a.GetCreated().AsTime().Format("2006-01-02 15:04:05"))
	fmt.Println(a.GetVotingManabar().GetCurrentMana(), a.GetNextVestingWithdrawal() != nil)
	fmt.Println(unknown)
	// Output:
	// alice 2016-03-24 16:05:00
	// 9007199254740993 false
	// [accounts[0].future_field]
}
