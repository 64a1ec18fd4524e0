package router_test

import (
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/jsonwire"
)

// listAccounts is database_api.list_accounts-like named params with the
// keys out of order, so the canonical form has to sort them.
var listAccounts = []byte(`{"start": "alice", "order": "by_name", "limit": 100, "delayed_votes_active": true, "filter": {"type": "account", "names": ["bob", "carol"]}}`)

// positional is condenser-style positional params.
var positional = []byte(`["alice", -1, 1000, 4294967295, "0x1"]`)

// BenchmarkParse measures turning a method and params into a Call with its
// canonical key.
func BenchmarkParse(b *testing.B) {
	r := loadRouter(b, "../config/testdata/drone.yaml")
	cases := []struct {
		name, method string
		params       json.RawMessage
	}{
		{"api.method positional", "condenser_api.get_block", json.RawMessage(`[1234567]`)},
		{"api.method object", "database_api.list_accounts", listAccounts},
		{"bare translated", "get_block", json.RawMessage(`[1234567]`)},
		{"call form", "call", json.RawMessage(`["condenser_api","get_block",[1234567]]`)},
		{"no params", "condenser_api.get_dynamic_global_properties", nil},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Parse(tc.method, tc.params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCanonicalKey measures the canonical JSON form alone (jsonwire's,
// measured here on the router's params as it was before it moved).
func BenchmarkCanonicalKey(b *testing.B) {
	cases := []struct {
		name   string
		params []byte
	}{
		{"object", listAccounts},
		{"array", positional},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.params)))
			buf := make([]byte, 0, 256)
			for b.Loop() {
				var err error
				if buf, err = jsonwire.AppendCanonical(buf[:0], tc.params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResolve measures route resolution under the Drone config: a
// plain method, a method whose node has params= entries (matched and not),
// and a namespace-level route.
func BenchmarkResolve(b *testing.B) {
	r := loadRouter(b, "../config/testdata/drone.yaml")
	cases := []struct {
		name, method, params string
	}{
		{"method", "condenser_api.get_block", `[1234567]`},
		{"params entry matched", "condenser_api.get_state", `["/trending"]`},
		{"params entry unmatched", "condenser_api.get_state", `["/market"]`},
		{"namespace", "bridge.get_discussion", `{"author":"alice","permlink":"post"}`},
	}
	for _, tc := range cases {
		c, err := r.Parse(tc.method, json.RawMessage(tc.params))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Resolve(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
