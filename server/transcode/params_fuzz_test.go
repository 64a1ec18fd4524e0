package transcode_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hivegate/hivegate/config"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/jsonwire"
	"github.com/hivegate/hivegate/router"
	"github.com/hivegate/hivegate/server/transcode"
)

// FuzzMarshalParams fuzzes the Connect → JSON-RPC encoder: any typed request
// a client can send (any protobuf bytes, for any typed RPC) either fails with
// an error or becomes params that are valid JSON, have a canonical form, and
// route as a call of the RPC's JSON-RPC method. It never panics.
func FuzzMarshalParams(f *testing.F) {
	reg, err := transcode.NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		f.Fatal(err)
	}
	methods := reg.Methods()
	if len(methods) == 0 {
		f.Fatal("no typed methods registered")
	}
	seeds := []proto.Message{
		&dbv1.ListAccountsRequest{Limit: proto.Uint32(10), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME,
			Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByName_{ByName: &dbv1.ListAccountsStart_ByName{Account: "alice\"<>&\u2028"}}}},
		&dbv1.ListAccountsRequest{Limit: proto.Uint32(1000), Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByNextVestingWithdrawal_{
			ByNextVestingWithdrawal: &dbv1.ListAccountsStart_ByNextVestingWithdrawal{NextVestingWithdrawal: timestamppb.New(timestamppb.Now().AsTime())}}}},
		&dbv1.ListWitnessesRequest{Limit: proto.Uint32(3)},
	}
	for i, m := range seeds {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(i))
	}
	f.Add([]byte{0x08, 0xff, 0xff, 0xff, 0xff, 0x0f}, uint16(7))
	r, err := router.New(routerConfig(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, pick uint16) {
		m := methods[int(pick)%len(methods)]
		req := m.Request.New().Interface()
		if err := proto.Unmarshal(data, req); err != nil {
			return // not a request a client could send
		}
		params, err := transcode.MarshalParams(req)
		if err != nil {
			return // refused with an error, as it should be for odd values
		}
		if !json.Valid(params) {
			t.Fatalf("%s: params are not valid JSON: %s", m.JSONRPC, params)
		}
		canon, err := jsonwire.AppendCanonical(nil, params)
		if err != nil {
			t.Fatalf("%s: params %s have no canonical form: %v", m.JSONRPC, params, err)
		}
		again, err := jsonwire.AppendCanonical(nil, canon)
		if err != nil || string(again) != string(canon) {
			t.Fatalf("%s: canonical form is not stable: %s then %s (%v)", m.JSONRPC, canon, again, err)
		}
		call, err := r.Parse(m.JSONRPC, params)
		if err != nil {
			t.Fatalf("%s: params %s do not parse as a call: %v", m.JSONRPC, params, err)
		}
		got := call.APIMethod()
		if call.API == "" { // a two-part method: bridge.get_post
			got = call.Namespace + "." + call.Method
		}
		if got != m.JSONRPC {
			t.Fatalf("typed %s became a call of %s", m.JSONRPC, got)
		}
	})
}

// routerConfig is a minimal config: every call routes to one backend.
func routerConfig(tb testing.TB) *config.Config {
	tb.Helper()
	cfg, err := config.Parse("fuzz.yaml", []byte("backends:\n  hived: http://127.0.0.1:1\nurls:\n  appbase: hived\n"))
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}
