package jsonwire_test

import (
	"testing"

	"github.com/hivegate/hivegate/jsonwire"
)

// request is a typical JSON-RPC request body.
var request = []byte(`{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start": "alice", "order": "by_name", "limit": 100, "delayed_votes_active": true, "filter": {"type": "account", "names": ["bob", "carol"]}}}`)

// BenchmarkValid measures the validator on a request body.
func BenchmarkValid(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(request)))
	for b.Loop() {
		if err := jsonwire.Valid(request, 64); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMember measures looking up one member of a request.
func BenchmarkMember(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(request)))
	for b.Loop() {
		if _, ok, err := jsonwire.Member(request, "params", 64); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkCanonical measures the canonical form of a request's params,
// whose members are out of order.
func BenchmarkCanonical(b *testing.B) {
	params := request[len(`{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":`) : len(request)-1]
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		var err error
		if buf, err = jsonwire.AppendCanonical(buf[:0], params); err != nil {
			b.Fatal(err)
		}
	}
}
