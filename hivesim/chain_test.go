package hivesim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
)

// keyOrder returns the member names of the JSON object raw, in document order.
func keyOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %.100s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// dgpoFields is api_dynamic_global_property_object in FC_REFLECT order (hive-api.md §3.1).
var dgpoFields = strings.Fields(`id head_block_number head_block_id time current_witness total_pow
num_pow_witnesses virtual_supply current_supply init_hbd_supply current_hbd_supply
total_vesting_fund_hive total_vesting_shares total_reward_fund_hive total_reward_shares2
pending_rewarded_vesting_shares pending_rewarded_vesting_hive hbd_interest_rate hbd_print_rate
maximum_block_size current_aslot recent_slots_filled participation_count last_irreversible_block_num
vote_power_reserve_rate delegation_return_period reverse_auction_seconds available_account_subsidies
hbd_stop_percent hbd_start_percent next_maintenance_time last_budget_time next_daily_maintenance_time
content_reward_percent vesting_reward_percent proposal_fund_percent dhf_interval_ledger
downvote_pool_percent current_remove_threshold early_voting_seconds mid_voting_seconds
max_consecutive_recurrent_transfer_failures max_recurrent_transfer_end_date
min_recurrent_transfers_recurrence max_open_recurrent_transfers`)

// accountFields is api_account_object in FC_REFLECT order (hive-api.md §3).
var accountFields = strings.Fields(`id name owner active posting memo_key json_metadata
posting_json_metadata proxy previous_owner_update last_owner_update last_account_update created mined
recovery_account last_account_recovery reset_account comment_count lifetime_vote_count post_count
can_vote voting_manabar downvote_manabar balance savings_balance hbd_balance hbd_seconds
hbd_seconds_last_update hbd_last_interest_payment savings_hbd_balance savings_hbd_seconds
savings_hbd_seconds_last_update savings_hbd_last_interest_payment savings_withdraw_requests
reward_hbd_balance reward_hive_balance reward_vesting_balance reward_vesting_hive vesting_shares
delegated_vesting_shares received_vesting_shares vesting_withdraw_rate post_voting_power
next_vesting_withdrawal withdrawn to_withdraw withdraw_routes pending_transfers curation_rewards
posting_rewards proxied_vsf_votes witnesses_voted_for last_post last_root_post last_post_edit
last_vote_time post_bandwidth pending_claimed_accounts open_recurrent_transfers is_smt delayed_votes
governance_vote_expiration_ts`)

func TestFieldOrder(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 21)
	dgpo := c.call(t, "database_api.get_dynamic_global_properties", obj{})
	if got := keyOrder(t, dgpo.Result); !slices.Equal(got, dgpoFields) {
		t.Fatalf("dgpo keys:\n got  %v\n want %v", got, dgpoFields)
	}
	cond := c.call(t, "condenser_api.get_dynamic_global_properties", []any{})
	if got := keyOrder(t, cond.Result); !slices.Equal(got, dgpoFields[1:]) {
		t.Fatalf("condenser dgpo keys:\n got  %v\n want %v", got, dgpoFields[1:])
	}
	if v := field(t, decode(t, cond.Result), "current_supply"); !strings.HasSuffix(v.(string), " HIVE") {
		t.Fatalf("condenser current_supply = %v, want a legacy asset string", v)
	}
	accts := c.call(t, "database_api.list_accounts", obj{"start": "", "limit": 1, "order": "by_name"})
	var wrapper struct{ Accounts []json.RawMessage }
	if err := json.Unmarshal(accts.Result, &wrapper); err != nil || len(wrapper.Accounts) != 1 {
		t.Fatalf("list_accounts: %v %s", err, accts.Result)
	}
	if got := keyOrder(t, wrapper.Accounts[0]); !slices.Equal(got, accountFields) {
		t.Fatalf("account keys:\n got  %v\n want %v", got, accountFields)
	}
}

func TestHeadAdvancesWithClock(t *testing.T) {
	t.Parallel()
	n, c, clk := testNode(t, 22)
	if n.Head() != hivesim.DefaultInitialHead || n.LastIrreversible() != hivesim.DefaultInitialHead-hivesim.DefaultIrreversibleLag {
		t.Fatalf("head %d lib %d", n.Head(), n.LastIrreversible())
	}
	next := n.Head() + 1
	if r := c.result(t, "condenser_api.get_block", []any{next}); r != nil {
		t.Fatalf("block %d exists before the clock moved: %v", next, r)
	}
	clk.Advance(9*time.Second + time.Second/2)
	if n.Head() != next+2 {
		t.Fatalf("head after 9.5s = %d, want %d", n.Head(), next+2)
	}
	dgpo := c.result(t, "database_api.get_dynamic_global_properties", obj{})
	if num(dgpo.(obj), "head_block_number") != int64(next+2) || num(dgpo.(obj), "last_irreversible_block_num") != int64(n.LastIrreversible()) {
		t.Fatalf("dgpo = %v", dgpo)
	}
	block := c.result(t, "block_api.get_block", obj{"block_num": next + 2})
	if got := str(field(t, block, "block").(obj), "block_id"); got != str(dgpo.(obj), "head_block_id") {
		t.Fatalf("head block id %s, dgpo head_block_id %s", got, str(dgpo.(obj), "head_block_id"))
	}
	if want := fmt.Sprintf("%08x", next+2); !strings.HasPrefix(str(dgpo.(obj), "head_block_id"), want) {
		t.Fatalf("head_block_id %s does not start with %s", str(dgpo.(obj), "head_block_id"), want)
	}
}

func TestGetBlock(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 23)
	withTx := n.BlocksWithTransactions()[0]
	head := n.Head()
	cases := []struct {
		name   string
		num    uint32
		exists bool
	}{
		{"with transactions", withTx, true},
		{"first", 1, true},
		{"head", head, true},
		{"zero", 0, false},
		{"after head", head + 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := c.result(t, "block_api.get_block", obj{"block_num": tc.num}).(obj)
			h := c.result(t, "block_api.get_block_header", obj{"block_num": tc.num}).(obj)
			legacy := c.result(t, "condenser_api.get_block", []any{tc.num})
			legacyHeader := c.result(t, "condenser_api.get_block_header", []any{tc.num})
			if !tc.exists {
				if len(b) != 0 || len(h) != 0 || legacy != nil || legacyHeader != nil {
					t.Fatalf("missing block: block_api %v %v, condenser %v %v", b, h, legacy, legacyHeader)
				}
				return
			}
			block := b["block"].(obj)
			id := str(block, "block_id")
			if !strings.HasPrefix(id, fmt.Sprintf("%08x", tc.num)) || len(id) != 40 {
				t.Fatalf("block_id %s", id)
			}
			prev := c.result(t, "block_api.get_block", obj{"block_num": tc.num - 1}).(obj)
			if tc.num > 1 && str(block, "previous") != str(prev["block"].(obj), "block_id") {
				t.Fatalf("previous %s != block_id of %d", str(block, "previous"), tc.num-1)
			}
			if str(h["header"].(obj), "previous") != str(block, "previous") || str(legacyHeader.(obj), "witness") != str(block, "witness") {
				t.Fatalf("headers disagree: %v %v", h, legacyHeader)
			}
			txs := block["transactions"].([]any)
			txIDs := block["transaction_ids"].([]any)
			legacyTxs := legacy.(obj)["transactions"].([]any)
			if len(txs) != len(txIDs) || len(txs) != len(legacyTxs) || (tc.num == withTx && len(txs) == 0) {
				t.Fatalf("transactions %d, ids %d, legacy %d", len(txs), len(txIDs), len(legacyTxs))
			}
			for i := range txs {
				op := txs[i].(obj)["operations"].([]any)[0].(obj)
				lop := legacyTxs[i].(obj)["operations"].([]any)[0].([]any)
				if str(op, "type") != lop[0].(string)+"_operation" || str(legacyTxs[i].(obj), "transaction_id") != txIDs[i] {
					t.Fatalf("tx %d: %v vs %v", i, op, legacyTxs[i])
				}
			}
		})
	}
}

func TestBlockErrors(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 24)
	parse := "Parse Error:Couldn't parse uint64_t"
	r := c.expectError(t, "block_api.get_block", obj{"block_num": "zzzz"}, -32000, parse)
	if r.Error.Data != nil {
		t.Fatalf("block_api errors have no data (HAfAH): %s", r.Error.Data)
	}
	c.expectError(t, "condenser_api.get_block", []any{"zzzz"}, -32000, parse)
	c.expectError(t, "condenser_api.get_block", []any{1, 2}, -32003, "Assert Exception:args.size() == 1: Expected #s argument(s), was 2")
	c.expectError(t, "block_api.get_block_range", obj{"starting_block_num": 10, "count": -1}, -32003,
		`Assert Exception:count <= 1000 && "fetch_block_range": You can only ask for 1000 blocks at a timerethrow`)
	c.expectError(t, "block_api.get_block_range", obj{"starting_block_num": 0, "count": 10}, -32003,
		`Assert Exception:starting_block_num > 0 && "fetch_block_range": Invalid starting block numberrethrow`)
	if got := items(t, c.result(t, "block_api.get_block_range", obj{"starting_block_num": 10, "count": 0}), "blocks"); len(got) != 0 {
		t.Fatalf("count 0 gave %d blocks", len(got))
	}
	head := n.Head()
	got := items(t, c.result(t, "block_api.get_block_range", obj{"starting_block_num": head - 2, "count": 10}), "blocks")
	if len(got) != 3 {
		t.Fatalf("range clipped at head: %d blocks, want 3", len(got))
	}
}

func TestOpsInBlock(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 25)
	num := n.BlocksWithTransactions()[3]
	block := c.result(t, "block_api.get_block", obj{"block_num": num}).(obj)["block"].(obj)
	nOps := 0
	for _, tx := range block["transactions"].([]any) {
		nOps += len(tx.(obj)["operations"].([]any))
	}
	ops := items(t, c.result(t, "account_history_api.get_ops_in_block", obj{"block_num": num}), "ops")
	if len(ops) != nOps+1 || ops[len(ops)-1]["virtual_op"] != true {
		t.Fatalf("%d ops for %d transaction ops (+1 virtual)", len(ops), nOps)
	}
	virtual := items(t, c.result(t, "account_history_api.get_ops_in_block", obj{"block_num": num, "only_virtual": true}), "ops")
	if len(virtual) != 1 || str(virtual[0]["op"].(obj), "type") != "producer_reward_operation" || str(virtual[0], "trx_id") != strings.Repeat("0", 40) {
		t.Fatalf("virtual ops = %v", virtual)
	}
	legacy := c.result(t, "condenser_api.get_ops_in_block", []any{num, false}).([]any)
	if len(legacy) != len(ops) {
		t.Fatalf("condenser %d ops, account_history_api %d", len(legacy), len(ops))
	}
	if _, has := legacy[0].(obj)["operation_id"]; has {
		t.Fatal("condenser ops carry operation_id")
	}
}

func TestAccountHistory(t *testing.T) {
	t.Parallel()
	n, c, _ := testNode(t, 26)
	const acct = "alice"
	total := n.HistoryLen(acct)
	if total < 10 {
		t.Fatalf("alice has %d history entries", total)
	}
	seqs := func(rows []any) []int64 {
		out := make([]int64, len(rows))
		for i, r := range rows {
			n, _ := r.([]any)[0].(json.Number).Int64()
			out[i] = n
		}
		return out
	}
	span := func(from, to int64) []int64 {
		var out []int64
		for i := from; i <= to; i++ {
			out = append(out, i)
		}
		return out
	}
	last := int64(total - 1)
	cases := []struct {
		name   string
		params obj
		want   []int64
		err    string
	}{
		{"defaults", obj{"account": acct}, span(max(0, last-999), last), ""},
		{"window", obj{"account": acct, "start": 5, "limit": 3}, span(3, 5), ""},
		{"start beyond end", obj{"account": acct, "start": 1 << 40, "limit": 2}, span(last-1, last), ""},
		{"newest", obj{"account": acct, "start": -1, "limit": 1}, span(last, last), ""},
		{"unknown account", obj{"account": "nobody-here", "limit": 10}, nil, ""},
		{"limit too big", obj{"account": acct, "limit": 5000}, nil,
			"Assert Exception:args.limit <= 1000: limit of 5000 is greater than maxmimum allowed"},
		{"negative limit", obj{"account": acct, "limit": -1}, nil,
			"Assert Exception:args.limit <= 1000: limit of 4294967295 is greater than maxmimum allowed"},
		{"start below limit-1", obj{"account": acct, "start": 3, "limit": 10}, nil,
			"Assert Exception:args.start >= args.limit-1: start must be greater than or equal to limit-1 (start is 0-based index)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.err != "" {
				c.expectError(t, "account_history_api.get_account_history", tc.params, -32003, tc.err)
				return
			}
			h := c.result(t, "account_history_api.get_account_history", tc.params)
			if got := seqs(field(t, h, "history").([]any)); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("seqs %v, want %v", got, tc.want)
			}
		})
	}
	// Filters: operation_filter_low bit 0 is vote_operation.
	votes := field(t, c.result(t, "account_history_api.get_account_history", obj{"account": acct, "operation_filter_low": 1}), "history").([]any)
	for _, e := range votes {
		if op := e.([]any)[1].(obj)["op"].(obj); str(op, "type") != "vote_operation" {
			t.Fatalf("filtered history holds %s", str(op, "type"))
		}
	}
	// condenser_api form: same entries, legacy operations, no operation_id.
	legacy := c.result(t, "condenser_api.get_account_history", []any{acct, 5, 3}).([]any)
	if got := seqs(legacy); !slices.Equal(got, span(3, 5)) {
		t.Fatalf("condenser seqs %v", got)
	}
	entry := legacy[0].([]any)[1].(obj)
	if _, isArr := entry["op"].([]any); !isArr || entry["operation_id"] != nil {
		t.Fatalf("condenser entry %v", entry)
	}
	c.expectError(t, "condenser_api.get_account_history", []any{acct, 5}, -32003,
		"Assert Exception:args.size() >= 3 && args.size() <= 5: Expected 3, 4, or 5 argument(s), was 2")
}

// TestDeterminism checks that equal seeds give byte-identical responses.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	_, a, _ := testNode(t, 42)
	_, b, _ := testNode(t, 42)
	_, other, _ := testNode(t, 43)
	reqs := [][]byte{
		request("database_api.list_accounts", obj{"start": "", "limit": 50, "order": "by_name"}),
		request("database_api.list_witnesses", obj{"start": []any{"9223372036854775807", ""}, "limit": 50, "order": "by_vote_name"}),
		request("database_api.list_comments", obj{"start": []any{"", ""}, "limit": 50, "order": "by_permlink"}),
		request("block_api.get_block_range", obj{"starting_block_num": 1, "count": 200}),
		request("database_api.get_dynamic_global_properties", obj{}),
		request("condenser_api.get_trending_tags", []any{"", 20}),
	}
	for i, req := range reqs {
		ra, rb := a.post(t, req), b.post(t, req)
		if !bytes.Equal(ra, rb) {
			t.Fatalf("request %d differs between nodes with the same seed", i)
		}
		if i == 0 && bytes.Equal(ra, other.post(t, req)) {
			t.Fatal("different seeds gave the same accounts")
		}
	}
}
