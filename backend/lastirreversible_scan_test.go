package backend

import (
	"encoding/json"
	"strings"
	"testing"
)

// propsSeeds are results on which readProps must agree with json.Unmarshal.
var propsSeeds = []string{
	`{"id":0,"head_block_number":5000000,"head_block_id":"004c4b40","last_irreversible_block_num":4999980}`,
	`{"head_block_number":5000003,"current_supply":"1.000 HIVE","last_irreversible_block_num":4999983}`,
	` { "head_block_number" : 7 , "last_irreversible_block_num" : 6 } `,
	`{}`, ` {} `, `{} x`, `[1,2]`, `null`, ` null `, `"x"`, `1`, `true`, ``, `{`, `{"head_block_number":`,
	`{"head_block_number":"9","last_irreversible_block_num":"9"}`,
	`{"head_block_number":null,"last_irreversible_block_num":null}`,
	`{"head_block_number":5,"head_block_number":null}`,
	`{"head_block_number":5,"head_block_number":6}`,
	`{"head_block_number":-5}`, `{"head_block_number":5.0}`, `{"head_block_number":5e3}`,
	`{"head_block_number":18446744073709551615}`, `{"head_block_number":18446744073709551616}`,
	`{"head_block_number":0}`, `{"head_block_number":01}`, `{"head_block_number":true}`,
	`{"head_block_number":{}}`, `{"head_block_number":[]}`,
	`{"HEAD_BLOCK_NUMBER":8,"Last_Irreversible_Block_Num":7}`,
	`{"head_bloc\u212a_number":8}`, "{\"head_bloc\u212a_number\":8}", `{"head_block_numbe\u0072":8}`,
	`{"head_block_number":8,"x":[1,2,}`, `{"head_block_number":8,"x":"\q"}`, `{"head_block_number":8}}`,
	`{"head_block_number":8,}`, `{"a":{"head_block_number":9},"head_block_number":8}`,
	"{\"\xff\":1,\"head_block_number\":8}", `{"head_block_number":8 "x":1}`,
	`{"last_irreversible_block_num":3,"x":"y","head_block_number":4}`,
}

// unmarshalRef is the reference: what Observe did before readProps.
func unmarshalRef(b []byte) (dgpoProps, bool) {
	var p dgpoProps
	err := json.Unmarshal(b, &p)
	return p, err == nil
}

// nested returns a result with a member nested depth levels deep (the
// object itself included), around encoding/json's limit of 10000.
func nested(depth int) string {
	return `{"head_block_number":8,"x":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

func TestReadPropsAgreesWithUnmarshal(t *testing.T) {
	t.Parallel()
	for _, s := range append(propsSeeds, nested(10000), nested(10001)) {
		got, gotOK := readProps([]byte(s))
		want, wantOK := unmarshalRef([]byte(s))
		if gotOK != wantOK || (wantOK && got != want) {
			t.Errorf("readProps(%q) = %+v, %v; json.Unmarshal gives %+v, %v", s, got, gotOK, want, wantOK)
		}
	}
}

func TestScanPropsDecidesUsualResults(t *testing.T) {
	t.Parallel()
	// The fast path must decide hived's own answers, or it saves nothing.
	for _, s := range propsSeeds[:3] {
		if _, _, sure := scanProps([]byte(s)); !sure {
			t.Errorf("scanProps(%q) left a usual result to json.Unmarshal", s)
		}
	}
}

func FuzzReadProps(f *testing.F) {
	for _, s := range propsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotOK := readProps(b)
		want, wantOK := unmarshalRef(b)
		if gotOK != wantOK || (wantOK && got != want) {
			t.Errorf("readProps(%q) = %+v, %v; json.Unmarshal gives %+v, %v", b, got, gotOK, want, wantOK)
		}
	})
}

// BenchmarkReadProps compares the scan with the json.Unmarshal it replaced
// on a get_dynamic_global_properties result of hived's size.
func BenchmarkReadProps(b *testing.B) {
	result := []byte(`{"id":0,"head_block_number":95000000,"head_block_id":"05a995c0245ffb07380a393fb2b3d841b76cdaec","time":"2025-03-15T19:47:21","current_witness":"abit","total_pow":514415,"num_pow_witnesses":172,"virtual_supply":{"amount":"471342874","precision":3,"nai":"@@000000021"},"current_supply":{"amount":"471263200","precision":3,"nai":"@@000000021"},"init_hbd_supply":{"amount":"0","precision":3,"nai":"@@000000013"},"current_hbd_supply":{"amount":"33263200","precision":3,"nai":"@@000000013"},"total_vesting_fund_hive":{"amount":"171263200","precision":3,"nai":"@@000000021"},"total_vesting_shares":{"amount":"448144916705468383","precision":6,"nai":"@@000000037"},"total_reward_fund_hive":{"amount":"0","precision":3,"nai":"@@000000021"},"total_reward_shares2":"0","pending_rewarded_vesting_shares":{"amount":"0","precision":6,"nai":"@@000000037"},"pending_rewarded_vesting_hive":{"amount":"0","precision":3,"nai":"@@000000021"},"hbd_interest_rate":2000,"hbd_print_rate":10000,"maximum_block_size":65536,"required_actions_partition_percent":0,"current_aslot":95100000,"recent_slots_filled":"340282366920938463463374607431768211455","participation_count":128,"last_irreversible_block_num":94999980,"vote_power_reserve_rate":10,"delegation_return_period":432000,"reverse_auction_seconds":0,"available_account_subsidies":12345678,"hbd_stop_percent":1000,"hbd_start_percent":900,"next_maintenance_time":"2025-03-15T20:00:00","last_budget_time":"2025-03-15T19:00:00","next_daily_maintenance_time":"2025-03-16T00:00:00","content_reward_percent":6500,"vesting_reward_percent":1500,"proposal_fund_percent":1000,"dhf_interval_ledger":{"amount":"0","precision":3,"nai":"@@000000013"},"downvote_pool_percent":2500,"current_remove_threshold":200,"early_voting_seconds":86400,"mid_voting_seconds":172800,"max_consecutive_recurrent_transfer_failures":10,"max_recurrent_transfer_end_date":730,"min_recurrent_transfers_recurrence":24,"max_open_recurrent_transfers":255}`)
	for _, tc := range []struct {
		name string
		fn   func([]byte) (dgpoProps, bool)
	}{{"scan", readProps}, {"unmarshal", unmarshalRef}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(result)))
			for b.Loop() {
				if p, ok := tc.fn(result); !ok || p.LIB != 94999980 {
					b.Fatal(p, ok)
				}
			}
		})
	}
}
