package hivetx_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivetx"
)

const voteTx = `{"ref_block_num":16960,"ref_block_prefix":3367392412,"expiration":"2024-01-01T00:01:00",
 "operations":[["vote",{"voter":"alice","author":"bob","permlink":"hello-world","weight":-2500}]],"extensions":[],"signatures":[]}`

// TestShapesAndSpellingsAgree reads one transaction in the spellings
// clients and the two APIs use: they are the same transaction.
func TestShapesAndSpellingsAgree(t *testing.T) {
	t.Parallel()
	base, err := hivetx.ParseTransaction([]byte(voteTx))
	if err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string]string{
		"string weight": strings.Replace(voteTx, `-2500`, `"-2500"`, 1),
		"database_api shape": `{"ref_block_num":16960,"ref_block_prefix":"3367392412","expiration":"2024-01-01T00:01:00",
 "operations":[{"type":"vote_operation","value":{"voter":"alice","author":"bob","permlink":"hello-world","weight":-2500}}]}`,
		"HiveSigner client members": strings.Replace(voteTx, `"weight":-2500`, `"weight":-2500,"__config":{"x":1},"__rshares":5`, 1),
	} {
		tx, err := hivetx.ParseTransaction([]byte(raw))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if tx.ID() != base.ID() {
			t.Errorf("%s: id %s, want %s", name, tx.ID(), base.ID())
		}
	}
}

func TestAssetsAndAuthoritiesNormalize(t *testing.T) {
	t.Parallel()
	legacy := `{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2024-01-01T00:00:00","operations":[["claim_reward_balance",
 {"account":"alice","reward_hive":"1.000 HIVE","reward_hbd":"0.500 HBD","reward_vests":"1.000000 VESTS"}]]}`
	nai := `{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2024-01-01T00:00:00","operations":[{"type":"claim_reward_balance_operation","value":
 {"account":"alice","reward_hive":{"amount":"1000","precision":3,"nai":"@@000000021"},"reward_hbd":{"amount":"500","precision":3,"nai":"@@000000013"},
  "reward_vests":{"amount":"1000000","precision":6,"nai":"@@000000037"}}}]}`
	steem := strings.NewReplacer("HIVE", "STEEM", "HBD", "SBD", "reward_hive", "reward_steem", "reward_hbd", "reward_sbd").Replace(legacy)
	var ids []string
	for _, raw := range []string{legacy, nai, steem} {
		tx, err := hivetx.ParseTransaction([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tx.ID())
		if got := string(tx.Operations[0].AppendJSON(nil)); !strings.Contains(got, `"reward_hbd":"0.500 HBD"`) {
			t.Errorf("condenser JSON: %s", got)
		}
	}
	if ids[0] != ids[1] || ids[0] != ids[2] {
		t.Errorf("ids differ: %v", ids)
	}

	// hived keeps an authority's auths in flat_maps: sorted. Unsorted input
	// is the same transaction.
	k1 := hivetx.PrivateKeyFromLogin("alice", "pw", "posting").PublicKey().String()
	k2 := hivetx.PrivateKeyFromLogin("bob", "pw", "posting").PublicKey().String()
	mk := func(accts, keys string) string {
		return `{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2024-01-01T00:00:00","operations":[["account_update2",
 {"account":"alice","posting":{"weight_threshold":1,"account_auths":` + accts + `,"key_auths":` + keys + `},"json_metadata":"","posting_json_metadata":""}]]}`
	}
	a, err := hivetx.ParseTransaction([]byte(mk(`[["trent",1],["hivegate",1]]`, `[["`+k1+`",1],["`+k2+`",1]]`)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hivetx.ParseTransaction([]byte(mk(`[["hivegate",1],["trent",1]]`, `[["`+k2+`",1],["`+k1+`",1]]`)))
	if err != nil {
		t.Fatal(err)
	}
	if a.ID() != b.ID() {
		t.Error("auth order changes the transaction")
	}
	if r := a.Required(); len(r.Active) != 1 || len(r.Posting) != 0 {
		t.Errorf("account_update2 with a posting authority needs active: %+v", r)
	}
}

func TestParseRefusals(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ raw, want string }{
		"unknown operation":   {`{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2024-01-01T00:00:00","operations":[["fly",{}]]}`, "unsupported operation: fly"},
		"unknown field":       {strings.Replace(voteTx, `"weight"`, `"wieght":1,"weight"`, 1), "wieght: unknown field"},
		"missing field":       {strings.Replace(voteTx, `"permlink":"hello-world",`, ``, 1), "permlink: missing"},
		"weight out of range": {strings.Replace(voteTx, `-2500`, `40000`, 1), "weight: want an integer of 16 bits"},
		"bad asset decimals":  {`{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2024-01-01T00:00:00","operations":[["transfer",{"from":"a","to":"b","amount":"1.0 HIVE","memo":""}]]}`, "HIVE takes 3 decimals"},
		"bad time":            {strings.Replace(voteTx, `2024-01-01T00:01:00`, `yesterday`, 1), "expiration: want a time"},
		"tx extensions":       {strings.Replace(voteTx, `"extensions":[]`, `"extensions":[[1,{}]]`, 1), "extensions are not supported"},
		"unknown tx member":   {strings.Replace(voteTx, `"extensions":[]`, `"extensions":[],"memo":"x"`, 1), "memo: unknown field"},
		"bad signature":       {strings.Replace(voteTx, `"signatures":[]`, `"signatures":["abcd"]`, 1), "signatures[0]"},
		"operation shape":     {strings.Replace(voteTx, `["vote",{`, `["vote",{},{`, 1), "operations[0]"},
	} {
		_, err := hivetx.ParseTransaction([]byte(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", name, err, c.want)
		}
	}
	if _, err := hivetx.ParseOperations([]byte(`[["fly",{}]]`)); !errors.Is(err, hivetx.ErrUnsupportedOperation) {
		t.Errorf("ParseOperations: %v", err)
	}
}

func TestSignAndRefBlock(t *testing.T) {
	t.Parallel()
	num, prefix, err := hivetx.RefBlock("000f424b4e3f3a6069ef7ff86e39ca43628208ad")
	if err != nil || num != 0x424b || prefix != 0x603a3f4e {
		t.Errorf("RefBlock: %d %d %v", num, prefix, err)
	}
	if _, _, err := hivetx.RefBlock("00"); err == nil {
		t.Error("RefBlock accepted a short id")
	}
	op, err := hivetx.NewOperation("custom_json", map[string]any{
		"required_posting_auths": []any{"alice"}, "id": "follow", "json": `["follow",{}]`})
	if err != nil {
		t.Fatal(err)
	}
	if r := op.Required(); len(r.Posting) != 1 || r.Posting[0] != "alice" || len(r.Active) != 0 {
		t.Errorf("required: %+v", r)
	}
	tx := &hivetx.Transaction{RefBlockNum: num, RefBlockPrefix: prefix,
		Expiration: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Operations: []hivetx.Operation{op}}
	key := hivetx.PrivateKeyFromLogin("trent", "pw", hivetx.RolePosting)
	if err := tx.Sign(key, hivetx.MainnetChainID); err != nil {
		t.Fatal(err)
	}
	if keys, err := tx.SignerKeys(hivetx.MainnetChainID); err != nil || keys[0] != key.PublicKey() {
		t.Errorf("signer %v (%v)", keys, err)
	}
	if keys, _ := tx.SignerKeys(hivetx.SteemChainID); len(keys) == 1 && keys[0] == key.PublicKey() {
		t.Error("the chain id is not part of the digest")
	}
	out, _ := json.Marshal(tx)
	var back hivetx.Transaction
	if err := json.Unmarshal(out, &back); err != nil || back.ID() != tx.ID() || len(back.Signatures) != 1 {
		t.Errorf("JSON round trip: %s (%v)", out, err)
	}
	if !strings.Contains(string(out), `"required_auths":[]`) {
		t.Errorf("custom_json's absent required_auths is not written as []: %s", out)
	}
}
