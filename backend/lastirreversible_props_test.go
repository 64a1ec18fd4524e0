package backend

import (
	"strings"
	"testing"
)

// TestReadProps pins readProps' contract: JSON numbers that fit a uint64,
// nothing else, in a valid JSON object.
func TestReadProps(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, result string
		want         dgpoProps
		ok           bool
	}{
		{"hived's answer", `{"id":0,"head_block_number":5000000,"head_block_id":"004c4b40","last_irreversible_block_num":4999980}`, dgpoProps{LIB: 4999980, Head: 5000000}, true},
		{"other members between", `{"last_irreversible_block_num":3,"x":"y","current_supply":{"amount":"1","precision":3},"head_block_number":4}`, dgpoProps{LIB: 3, Head: 4}, true},
		{"spaces", ` { "head_block_number" : 7 , "last_irreversible_block_num" : 6 } `, dgpoProps{LIB: 6, Head: 7}, true},
		{"empty object", `{}`, dgpoProps{}, true},
		{"null result", `null`, dgpoProps{}, true},
		{"null members", `{"head_block_number":null,"last_irreversible_block_num":null}`, dgpoProps{}, true},
		{"names in other case", `{"HEAD_BLOCK_NUMBER":8,"Last_Irreversible_Block_Num":7}`, dgpoProps{LIB: 7, Head: 8}, true},
		{"twice: the last counts", `{"head_block_number":5,"head_block_number":6}`, dgpoProps{Head: 6}, true},
		{"twice, then null", `{"head_block_number":5,"head_block_number":null}`, dgpoProps{Head: 5}, true},
		{"nested member ignored", `{"a":{"head_block_number":9},"head_block_number":8}`, dgpoProps{Head: 8}, true},
		{"largest uint64", `{"head_block_number":18446744073709551615}`, dgpoProps{Head: 18446744073709551615}, true},
		{"zero", `{"head_block_number":0}`, dgpoProps{}, true},
		{"escaped name", `{"head_block_numbe\u0072":8}`, dgpoProps{Head: 8}, true},

		{"numbers as strings", `{"head_block_number":"9","last_irreversible_block_num":"9"}`, dgpoProps{}, false},
		{"negative", `{"head_block_number":-5}`, dgpoProps{}, false},
		{"fraction", `{"head_block_number":5.0}`, dgpoProps{}, false},
		{"exponent", `{"head_block_number":5e3}`, dgpoProps{}, false},
		{"overflow", `{"head_block_number":18446744073709551616}`, dgpoProps{}, false},
		{"leading zero", `{"head_block_number":01}`, dgpoProps{}, false},
		{"boolean", `{"head_block_number":true}`, dgpoProps{}, false},
		{"object", `{"head_block_number":{}}`, dgpoProps{}, false},
		{"array result", `[1,2]`, dgpoProps{}, false},
		{"string result", `"x"`, dgpoProps{}, false},
		{"empty", ``, dgpoProps{}, false},
		{"truncated", `{"head_block_number":`, dgpoProps{}, false},
		{"trailing garbage", `{} x`, dgpoProps{}, false},
		{"trailing comma", `{"head_block_number":8,}`, dgpoProps{}, false},
		{"invalid elsewhere", `{"head_block_number":8,"x":[1,2,}`, dgpoProps{}, false},
		{"bad escape elsewhere", `{"head_block_number":8,"x":"\q"}`, dgpoProps{}, false},
		{"missing comma", `{"head_block_number":8 "x":1}`, dgpoProps{}, false},
		{"too deep", `{"head_block_number":8,"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, dgpoProps{}, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := readProps([]byte(tc.result))
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("readProps(%.80q) = %+v, %v; want %+v, %v", tc.result, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// BenchmarkReadProps is the cost of readProps on a
// get_dynamic_global_properties result of hived's size.
func BenchmarkReadProps(b *testing.B) {
	result := []byte(`{"id":0,"head_block_number":95000000,"head_block_id":"05a995c0245ffb07380a393fb2b3d841b76cdaec","time":"2025-03-15T19:47:21","current_witness":"abit","total_pow":514415,"num_pow_witnesses":172,"virtual_supply":{"amount":"471342874","precision":3,"nai":"@@000000021"},"current_supply":{"amount":"471263200","precision":3,"nai":"@@000000021"},"init_hbd_supply":{"amount":"0","precision":3,"nai":"@@000000013"},"current_hbd_supply":{"amount":"33263200","precision":3,"nai":"@@000000013"},"total_vesting_fund_hive":{"amount":"171263200","precision":3,"nai":"@@000000021"},"total_vesting_shares":{"amount":"448144916705468383","precision":6,"nai":"@@000000037"},"total_reward_fund_hive":{"amount":"0","precision":3,"nai":"@@000000021"},"total_reward_shares2":"0","pending_rewarded_vesting_shares":{"amount":"0","precision":6,"nai":"@@000000037"},"pending_rewarded_vesting_hive":{"amount":"0","precision":3,"nai":"@@000000021"},"hbd_interest_rate":2000,"hbd_print_rate":10000,"maximum_block_size":65536,"required_actions_partition_percent":0,"current_aslot":95100000,"recent_slots_filled":"340282366920938463463374607431768211455","participation_count":128,"last_irreversible_block_num":94999980,"vote_power_reserve_rate":10,"delegation_return_period":432000,"reverse_auction_seconds":0,"available_account_subsidies":12345678,"hbd_stop_percent":1000,"hbd_start_percent":900,"next_maintenance_time":"2025-03-15T20:00:00","last_budget_time":"2025-03-15T19:00:00","next_daily_maintenance_time":"2025-03-16T00:00:00","content_reward_percent":6500,"vesting_reward_percent":1500,"proposal_fund_percent":1000,"dhf_interval_ledger":{"amount":"0","precision":3,"nai":"@@000000013"},"downvote_pool_percent":2500,"current_remove_threshold":200,"early_voting_seconds":86400,"mid_voting_seconds":172800,"max_consecutive_recurrent_transfer_failures":10,"max_recurrent_transfer_end_date":730,"min_recurrent_transfers_recurrence":24,"max_open_recurrent_transfers":255}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		if p, ok := readProps(result); !ok || p.LIB != 94999980 || p.Head != 95000000 {
			b.Fatal(p, ok)
		}
	}
}
