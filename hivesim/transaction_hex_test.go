package hivesim_test

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/hivetx"
)

// TestTransactionHexLegacySymbols checks condenser_api.get_transaction_hex
// against hivetx's serialization (itself checked against hive-tx and dhive
// in tests/hivetx): hived packs legacy assets by their pre-Hive names,
// "STEEM" and "SBD" (asset_symbol.hpp's OBSOLETE_SYMBOL_SER and
// OBD_SYMBOL_SER), so a transfer of HIVE or HBD must not carry "HIVE" or
// "HBD" in its bytes.
func TestTransactionHexLegacySymbols(t *testing.T) {
	t.Parallel()
	_, c, _ := testNode(t, 7)
	for _, amount := range []string{"1.000 HIVE", "2.500 HBD"} {
		trx := `{"ref_block_num":221,"ref_block_prefix":2990,"expiration":"2020-01-01T00:00:00",` +
			`"operations":[["transfer",{"from":"alice","to":"bob","amount":"` + amount + `","memo":"m"}],` +
			`["vote",{"voter":"alice","author":"bob","permlink":"p","weight":10000}]],` +
			`"extensions":[],"signatures":[]}`
		parsed, err := hivetx.ParseTransaction([]byte(trx))
		if err != nil {
			t.Fatal(err)
		}
		want := hex.EncodeToString(append(parsed.Serialize(), 0)) // no signatures
		var v any
		if err := json.Unmarshal([]byte(trx), &v); err != nil {
			t.Fatal(err)
		}
		if got := c.result(t, "condenser_api.get_transaction_hex", []any{v}); got != want {
			t.Errorf("%s: hex\n got %v\nwant %s", amount, got, want)
		}
	}
}
