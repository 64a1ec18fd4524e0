package transcode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	databaseapiv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/internal/fixtures"
	"github.com/hivegate/hivegate/server/transcode"
)

// syntheticAccount is a made-up api_account_object in hived 1.27's shape
// (hive-api.md §3), used when no recorded fixture is available.
const syntheticAccount = `{"id":1370484,"name":"bench-account","owner":{"weight_threshold":1,"account_auths":[],` +
	`"key_auths":[["STM6yYJH4dB5xtvBCvSB3xLZAJP4UXVn8W7nXpMWqRtYknXWYMy9t",1]]},` +
	`"active":{"weight_threshold":1,"account_auths":[],"key_auths":[["STM7ULDxqzAd3RNLhvsJdWWUwJFCRBqc7pZQ1cSK8n3hDpBRqcE5G",1]]},` +
	`"posting":{"weight_threshold":1,"account_auths":[["some.app",1],["other.app",1]],` +
	`"key_auths":[["STM5c2Fu5MZh3Z7oNZbZvNNrnLLGBWGj7Xj8hXDkGcr8JMd3BNWbd",1]]},` +
	`"memo_key":"STM8Ah1mzTqr1Qs7ZsWvM9b4NhLCKz3dhzq5TkFV5QTeZA5Y5zuEA",` +
	`"json_metadata":"{\"profile\":{\"name\":\"Bench\",\"about\":\"<b>benchmarks</b> & tests\"}}",` +
	`"posting_json_metadata":"{\"profile\":{\"name\":\"Bench\",\"version\":2}}","proxy":"",` +
	`"previous_owner_update":"1970-01-01T00:00:00","last_owner_update":"1970-01-01T00:00:00",` +
	`"last_account_update":"2023-05-01T12:00:03","created":"2020-03-20T14:00:00","mined":false,` +
	`"recovery_account":"hive.recovery","last_account_recovery":"1970-01-01T00:00:00","reset_account":"null",` +
	`"comment_count":0,"lifetime_vote_count":0,"post_count":1234,"can_vote":true,` +
	`"voting_manabar":{"current_mana":"98765432109876543","last_update_time":1700000000},` +
	`"downvote_manabar":{"current_mana":123456789012,"last_update_time":1700000000},` +
	`"balance":{"amount":"123456","precision":3,"nai":"@@000000021"},` +
	`"savings_balance":{"amount":"0","precision":3,"nai":"@@000000021"},` +
	`"hbd_balance":{"amount":"4200","precision":3,"nai":"@@000000013"},"hbd_seconds":"123456789",` +
	`"hbd_seconds_last_update":"2023-05-01T12:00:03","hbd_last_interest_payment":"2023-04-20T08:00:00",` +
	`"savings_hbd_balance":{"amount":"10000","precision":3,"nai":"@@000000013"},"savings_hbd_seconds":"0",` +
	`"savings_hbd_seconds_last_update":"2023-05-01T12:00:03","savings_hbd_last_interest_payment":"2023-04-20T08:00:00",` +
	`"savings_withdraw_requests":0,"reward_hbd_balance":{"amount":"0","precision":3,"nai":"@@000000013"},` +
	`"reward_hive_balance":{"amount":"0","precision":3,"nai":"@@000000021"},` +
	`"reward_vesting_balance":{"amount":"0","precision":6,"nai":"@@000000037"},` +
	`"reward_vesting_hive":{"amount":"0","precision":3,"nai":"@@000000021"},` +
	`"vesting_shares":{"amount":"123456789012345","precision":6,"nai":"@@000000037"},` +
	`"delegated_vesting_shares":{"amount":"0","precision":6,"nai":"@@000000037"},` +
	`"received_vesting_shares":{"amount":"5000000000","precision":6,"nai":"@@000000037"},` +
	`"vesting_withdraw_rate":{"amount":"0","precision":6,"nai":"@@000000037"},` +
	`"post_voting_power":{"amount":"123461789012345","precision":6,"nai":"@@000000037"},` +
	`"next_vesting_withdrawal":"1969-12-31T23:59:59","withdrawn":0,"to_withdraw":0,"withdraw_routes":0,` +
	`"pending_transfers":0,"curation_rewards":98765,"posting_rewards":43210,"proxied_vsf_votes":[0,0,0,0],` +
	`"witnesses_voted_for":30,"last_post":"2023-05-01T11:00:00","last_root_post":"2023-04-30T10:00:00",` +
	`"last_post_edit":"2023-05-01T11:00:00","last_vote_time":"2023-05-01T12:00:03","post_bandwidth":0,` +
	`"pending_claimed_accounts":0,"open_recurrent_transfers":0,"is_smt":false,` +
	`"delayed_votes":[{"time":"2023-04-15T00:00:00","val":"12345678901"}],` +
	`"governance_vote_expiration_ts":"2024-04-30T10:00:00"}`

// benchListAccounts returns a list_accounts result with 1000 accounts: the
// first recorded account replicated when HIVEGATE_FIXTURES is set, the
// synthetic one otherwise.
func benchListAccounts(b *testing.B) []byte {
	b.Helper()
	account := syntheticAccount
	if os.Getenv(fixtures.Env) != "" {
		account = recordedAccount(b)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"accounts":[`)
	for i := range 1000 {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(account)
	}
	buf.WriteString(`]}`)
	return buf.Bytes()
}

// recordedAccount returns the first account of the first recorded
// list_accounts result.
func recordedAccount(b *testing.B) string {
	b.Helper()
	first := fixtures.Method(b, "database_api.list_accounts")[0]
	var result struct {
		Accounts []json.RawMessage `json:"accounts"`
	}
	if err := json.Unmarshal(first.Result, &result); err != nil || len(result.Accounts) == 0 {
		b.Fatalf("%s:%d: no accounts in the first case (%v)", first.File, first.Line, err)
	}
	return strings.TrimSpace(string(result.Accounts[0]))
}

func BenchmarkUnmarshalListAccounts(b *testing.B) {
	doc := benchListAccounts(b)
	msg := &databaseapiv1.ListAccountsResponse{}
	if unknown, err := transcode.Unmarshal(doc, msg); err != nil || len(unknown) > 0 {
		b.Fatalf("Unmarshal: %v, unknown %q", err, unknown)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := transcode.Unmarshal(doc, msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalListAccounts(b *testing.B) {
	doc := benchListAccounts(b)
	msg := &databaseapiv1.ListAccountsResponse{}
	if _, err := transcode.Unmarshal(doc, msg); err != nil {
		b.Fatal(err)
	}
	out, err := transcode.Marshal(msg)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := transcode.Marshal(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONAnyListAccounts is a baseline: encoding/json decoding
// the same document into map[string]any.
func BenchmarkEncodingJSONAnyListAccounts(b *testing.B) {
	doc := benchListAccounts(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(doc, &v); err != nil {
			b.Fatal(err)
		}
	}
}
