package cache_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
)

func TestBlockNum(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		method string
		params string
		want   uint64
		ok     bool
	}{
		// Single block, positional.
		{"condenser_api.get_block", `[1092]`, 1092, true},
		{"condenser_api.get_block", `["1092"]`, 1092, true},
		{"condenser_api.get_block", ` [ 7 ] `, 7, true},
		{"condenser_api.get_block_header", `[1000000]`, 1000000, true},
		{"condenser_api.get_ops_in_block", `[4502370,false]`, 4502370, true},
		{"condenser_api.get_ops_in_block", `[2797050, true]`, 2797050, true},
		{"database_api.get_block", `[5]`, 5, true},
		{"database_api.get_block_header", `[5]`, 5, true},
		{"database_api.get_ops_in_block", `[5, false]`, 5, true},
		{"wallet_bridge_api.get_block", `[6]`, 6, true},
		{"wallet_bridge_api.get_ops_in_block", `[6, true]`, 6, true},
		// Single block, named.
		{"block_api.get_block", `{"block_num":1000000}`, 1000000, true},
		{"block_api.get_block", `{"block_num":"1000000"}`, 1000000, true},
		{"block_api.get_block_header", `{"block_num":1}`, 1, true},
		{"account_history_api.get_ops_in_block", `{"block_num":4502370,"only_virtual":false}`, 4502370, true},
		{"condenser_api.get_block", `{"block_num":9}`, 9, true},
		// With a namespace in front.
		{"hived.database_api.get_block", `[12]`, 12, true},
		{"appbase.condenser_api.get_block", `[13]`, 13, true},
		// Ranges.
		{"block_api.get_block_range", `{"starting_block_num":1000000,"count":1000}`, 1000999, true},
		{"block_api.get_block_range", `{"starting_block_num":"10","count":"1"}`, 10, true},
		{"block_api.get_block_range", `[10, 5]`, 14, true},
		{"block_api.get_block_range", `{"starting_block_num":4999000,"count":0}`, 0, false},
		{"block_api.get_block_range", `{"starting_block_num":10}`, 0, false},
		{"block_api.get_block_range", `{"starting_block_num":18446744073709551615,"count":2}`, 0, false},
		{"account_history_api.enum_virtual_ops", `{"block_range_begin":2889019,"block_range_end":2889021}`, 2889020, true},
		{"account_history_api.enum_virtual_ops", `{"block_range_begin":"1","block_range_end":"2","limit":5}`, 1, true},
		{"account_history_api.enum_virtual_ops", `[4, 5]`, 4, true},
		{"account_history_api.enum_virtual_ops", `{"block_range_begin":0,"block_range_end":0}`, 0, false},
		{"account_history_api.enum_virtual_ops", `{"block_range_end":3}`, 0, false},
		// Unreadable params.
		{"condenser_api.get_block", `["zzzz"]`, 0, false},
		{"condenser_api.get_block", `[-1]`, 0, false},
		{"condenser_api.get_block", `[1.5]`, 0, false},
		{"condenser_api.get_block", `[1e3]`, 0, false},
		{"condenser_api.get_block", `[]`, 0, false},
		{"condenser_api.get_block", `[null]`, 0, false},
		{"condenser_api.get_block", `[[1]]`, 0, false},
		{"condenser_api.get_block", `null`, 0, false},
		{"condenser_api.get_block", ``, 0, false},
		{"condenser_api.get_block", `[1`, 0, false},
		{"block_api.get_block", `{"block_num":"5x5"}`, 0, false},
		{"block_api.get_block", `{"block_num":"-1"}`, 0, false},
		{"block_api.get_block", `{"num":1}`, 0, false},
		{"block_api.get_block", `{}`, 0, false},
		{"block_api.get_block", `"1"`, 0, false},
		// Methods EXPIRE_IF_REVERSIBLE knows nothing about.
		{"condenser_api.get_accounts", `[["a"]]`, 0, false},
		{"condenser_api.enum_virtual_ops", `[1, 2]`, 0, false},
		{"get_block", `[1]`, 0, false},
		{"a.b.c.get_block", `[1]`, 0, false},
	}
	for _, tc := range testCases {
		t.Run(tc.method+" "+tc.params, func(t *testing.T) {
			t.Parallel()
			got, ok := cache.BlockNum(tc.method, json.RawMessage(tc.params))
			if got != tc.want || ok != tc.ok {
				t.Errorf("BlockNum(%q, %s) = %d, %v; want %d, %v", tc.method, tc.params, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// blockID returns a plausible block id for block n.
func blockID(n uint64) string {
	return fmt.Sprintf("%08x%s", n, strings.Repeat("ab", 16))
}

// condenserBlock returns a condenser_api.get_block result for block n with
// block_id id, in hived's member order (block_id after the transactions),
// whose transaction carries the id other three times: in a
// witness_block_approve operation (a real block_id member, four levels down)
// and in two custom_json payloads (one with escaped backslashes before a
// quote).
func condenserBlock(n uint64, id, other string) string {
	return `{"previous":"` + blockID(n-1) + `","timestamp":"2016-03-24T16:05:00","witness":"initminer",` +
		`"transaction_merkle_root":"0000000000000000000000000000000000000000","extensions":[],` +
		`"witness_signature":"1f",` +
		`"transactions":[{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2016-03-24T16:05:30","operations":[` +
		`["witness_block_approve",{"witness":"w","block_id":"` + other + `"}],` +
		`["custom_json",{"required_auths":[],"required_posting_auths":["a"],"id":"x","json":"{\"block_id\":\"` + other + `\"}"}],` +
		`["custom_json",{"required_auths":[],"required_posting_auths":["a"],"id":"y","json":"\"block_id\":\"` + other + `\",\\\\\"}` + `"}]` +
		`],"extensions":[],"signatures":[],"transaction_id":"00","block_num":` + fmt.Sprint(n) + `,"transaction_num":0}],` +
		`"block_id":"` + id + `","signing_key":"STM1","transaction_ids":["00"]}`
}

func TestReversibleTTL(t *testing.T) {
	t.Parallel()
	const n = 5000
	other := blockID(n + 1000)
	block := condenserBlock(n, blockID(n), other)
	testCases := []struct {
		name      string
		blockNum  uint64
		lib       uint64
		result    string
		wantTTL   time.Duration
		wantStore bool
	}{
		{"below LIB", n, n + 10, block, cache.NoExpiry, true},
		{"at LIB", n, n, block, cache.NoExpiry, true},
		{"above LIB", n, n - 1, block, cache.ReversibleTTLDuration, true},
		{"LIB unknown", n, 0, block, cache.ReversibleTTLDuration, true},
		{"block_id of another block", n + 1, n + 10, block, 0, false},
		{"block_id of the transactions' block", n + 1000, n + 2000, block, 0, false},
		{"no block_id of its own, another one inside transactions", n, n + 10,
			strings.Replace(block, `"block_id":"`+blockID(n)+`",`, "", 1), cache.NoExpiry, true},
		{"wrong block_id while transactions hold the right one", n, n + 10,
			condenserBlock(n, blockID(n+1), blockID(n)), 0, false},
		{"uppercase block_id", n, n + 10, condenserBlock(n, strings.ToUpper(blockID(n)), other), cache.NoExpiry, true},
		{"short block_id", n, n + 10, condenserBlock(n, "1388", other), 0, false},
		{"block_api block", n, n, `{"block":` + block + `}`, cache.NoExpiry, true},
		{"block_api block of another block", n - 1, n, `{"block":` + block + `}`, 0, false},
		{"block_api block with id before transactions", 1000000, 1000000,
			`{"block":{"block_id":"000f4240e8f91385f7bff8f5aeebddc9b14e4281","extensions":[],"previous":"000f423f974857674873d93d1909e0eeb7e4916e","transactions":[]}}`,
			cache.NoExpiry, true},
		{"block_api header", 1000000, 999999,
			`{"header":{"extensions":[],"previous":"000f423f974857674873d93d1909e0eeb7e4916e","timestamp":"2016-04-29T04:12:00"}}`,
			cache.ReversibleTTLDuration, true},
		{"block_api header of another block", 1000001, 2000000,
			`{"header":{"extensions":[],"previous":"000f423f974857674873d93d1909e0eeb7e4916e","timestamp":"2016-04-29T04:12:00"}}`,
			0, false},
		{"condenser header", 1, 10,
			`{"extensions":[],"previous":"0000000000000000000000000000000000000000","timestamp":"2016-03-24T16:05:00"}`,
			cache.NoExpiry, true},
		{"block range ending at the block", n, n,
			`{"blocks":[` + condenserBlock(n-1, blockID(n-1), other) + `,` + block + `]}`, cache.NoExpiry, true},
		{"block range clipped at the head", n + 1, n + 10,
			`{"blocks":[` + condenserBlock(n-1, blockID(n-1), other) + `,` + block + `]}`, 0, false},
		{"condenser ops", n, n, `[{"block":5000,"op":["producer_reward",{"producer":"a"}]}]`, cache.NoExpiry, true},
		{"account_history ops", n, n - 1, `{"ops":[{"block":5000}]}`, cache.ReversibleTTLDuration, true},
		{"enum_virtual_ops without ops", n, n,
			`{"ops":[],"ops_by_block":[],"next_block_range_begin":5001,"next_operation_begin":0}`, cache.NoExpiry, true},
		{"null", n, n + 10, `null`, 0, false},
		{"null with spaces", n, n + 10, " null\n", 0, false},
		{"empty object", n, n + 10, `{}`, 0, false},
		{"empty object with spaces", n, n + 10, `{ }`, 0, false},
		{"empty array", n, n + 10, `[]`, 0, false},
		{"empty result", n, n + 10, ``, 0, false},
		{"whitespace result", n, n + 10, " \t", 0, false},
		{"empty block range", n, n + 10, `{"blocks":[]}`, 0, false},
		{"empty ops", n, n + 10, `{"ops":[ ]}`, 0, false},
		{"malformed", n, n + 10, `{"block_id":"00001388`, 0, false},
		{"trailing garbage", n, n + 10, block + `}`, 0, false},
		{"unterminated string", n, n + 10, `["abc\"]`, 0, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ttl, store := cache.ReversibleTTL(tc.blockNum, tc.lib, []byte(tc.result))
			if ttl != tc.wantTTL || store != tc.wantStore {
				t.Errorf("ReversibleTTL(%d, %d, …) = %v, %v; want %v, %v", tc.blockNum, tc.lib, ttl, store, tc.wantTTL, tc.wantStore)
			}
		})
	}
}

// TestReversibleTTLTestBlockIsValidJSON guards the hand-built block above:
// a scanner test is worthless if its input is not what hived could send.
func TestReversibleTTLTestBlockIsValidJSON(t *testing.T) {
	t.Parallel()
	b := condenserBlock(5000, blockID(5000), blockID(6000))
	if !json.Valid([]byte(b)) {
		t.Fatalf("test block is not valid JSON: %s", b)
	}
	var v struct {
		BlockID      string `json:"block_id"`
		Transactions []struct {
			Operations [][2]json.RawMessage `json:"operations"`
		} `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(b), &v); err != nil {
		t.Fatal(err)
	}
	if v.BlockID != blockID(5000) || len(v.Transactions) != 1 || len(v.Transactions[0].Operations) != 3 {
		t.Errorf("test block decodes to %+v", v)
	}
	// The custom_json payloads really hold another block's id.
	if n := strings.Count(b, blockID(6000)); n != 3 {
		t.Errorf("other block id appears %d times, want 3", n)
	}
}

func TestIsEmptyResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want bool
	}{
		{``, true}, {`null`, true}, {`{}`, true}, {`[]`, true}, {" { \n } ", true}, {"[\t]", true},
		{`0`, false}, {`""`, false}, {`false`, false}, {`{"a":1}`, false}, {`[null]`, false}, {`{"blocks":[]}`, false},
	}
	for _, tc := range cases {
		if got := cache.IsEmptyResult([]byte(tc.in)); got != tc.want {
			t.Errorf("IsEmptyResult(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
