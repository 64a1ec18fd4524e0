package jsonrpc_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonrpc"
)

// benchRequest is a typical single request.
const benchRequest = `{"jsonrpc":"2.0","id":8675309,"method":"condenser_api.get_accounts","params":[["hiveio","alice","bob"]]}`

func BenchmarkParseBody(b *testing.B) {
	calls := make([]string, 50)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"block_api.get_block","params":{"block_num":%d}}`, i, 1000+i)
	}
	cases := []struct {
		name, body string
	}{
		{"single", benchRequest},
		{"batch50", "[" + strings.Join(calls, ",") + "]"},
	}
	for _, tc := range cases {
		body := []byte(tc.body)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := jsonrpc.ParseBody(body, 50, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAppendResult measures building a response around cached result
// bytes with the caller's id (the id rewrite every cache hit does).
func BenchmarkAppendResult(b *testing.B) {
	result := json.RawMessage(`{"previous":"0003ffff7c5d1b2f2f79d2bd1d7b5a3d8a1c2e55","timestamp":"2016-03-24T16:05:00","witness":"initminer","transaction_merkle_root":"0000000000000000000000000000000000000000","extensions":[],"witness_signature":"1f","transactions":[],"block_id":"00040000a3ba8f0e7b7a30d7e6f3b1a9d6c8e3a1","signing_key":"STM8GC13uCZbP44HzMLV6zPZGwVQ8Nt4Kji8PapsPiNq1BK153XTX","transaction_ids":[]}`)
	ids := []struct {
		name string
		id   json.RawMessage
	}{
		{"integer", json.RawMessage(`8675309`)},
		{"string", json.RawMessage(`"request-\u00e9-42"`)},
	}
	for _, tc := range ids {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(result)))
			buf := make([]byte, 0, 1024)
			for b.Loop() {
				buf = jsonrpc.AppendResult(buf[:0], tc.id, result)
			}
		})
	}
}
