package hivesim_test

import (
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

// BenchmarkNew measures chain generation for the default 200 accounts.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		hivesim.New(hivesim.Options{Seed: 7})
	}
}

// BenchmarkListAccounts measures one list_accounts call of 100 rows through Handle.
func BenchmarkListAccounts(b *testing.B) {
	n := hivesim.New(hivesim.Options{Seed: 7})
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start":"","limit":100,"order":"by_name"}}`)
	b.ReportAllocs()
	for b.Loop() {
		n.Handle(req)
	}
}

// BenchmarkGetBlock measures condenser_api.get_block of a block with transactions.
func BenchmarkGetBlock(b *testing.B) {
	n := hivesim.New(hivesim.Options{Seed: 7})
	num := n.BlocksWithTransactions()[10]
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[` + itoa(num) + `]}`)
	b.ReportAllocs()
	for b.Loop() {
		n.Handle(req)
	}
}

func itoa(v uint32) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}
