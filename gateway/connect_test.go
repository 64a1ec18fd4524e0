package gateway_test

// End-to-end tests of the typed API in front of the simulated node: one
// upstream call shared between typed and JSON-RPC clients, the four wire
// protocols, the cache header, JsonRpcService and validation before any
// upstream call.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hivegate/hivegate/gateway"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/gen/hive/database_api/v1/database_apiv1connect"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/server/transcode"
)

// simGateway serves a gateway in front of a fresh simulated node.
func simGateway(t testing.TB, opts gateway.Options) *typedGateway {
	t.Helper()
	return startTypedGateway(t, hivesim.New(hivesim.Options{Seed: 1}), opts)
}

// TestTypedSharesUpstreamCallWithJSONRPC checks the design's central claim:
// a typed ListAccounts and the JSON-RPC database_api.list_accounts with the
// same arguments have one canonical key, so between them (and across all
// four typed protocols) the backend sees one call. It also checks the
// x-hivegate-cache header and that the typed answer holds the same data as
// the JSON-RPC result.
func TestTypedSharesUpstreamCallWithJSONRPC(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		typedFirst  bool
		req         *dbv1.ListAccountsRequest
		jsonrpcBody string
	}{
		{"typed first, by_name", true,
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(10), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME},
			`{"jsonrpc":"2.0","id":7,"method":"database_api.list_accounts","params":{"start":"","limit":10,"order":"by_name"}}`},
		{"JSON-RPC first, by_proxy", false,
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(5), Start: &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByProxy_{ByProxy: &dbv1.ListAccountsStart_ByProxy{}}}},
			`{"jsonrpc":"2.0","id":"x","method":"call","params":["database_api","list_accounts",{"order":"by_proxy","limit":5,"start":["",""]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := simGateway(t, gateway.Options{})
			md := dbv1.File_hive_database_api_v1_database_api_proto.Services().Get(0).Methods().ByName("ListAccounts")
			var rpcResult json.RawMessage
			postRPC := func(wantCache string) {
				h, body := g.postJSONRPC(tt.jsonrpcBody)
				var out struct {
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if err := json.Unmarshal(body, &out); err != nil || out.Error != nil {
					t.Fatalf("JSON-RPC answer %s (%v)", body, err)
				}
				if got := h.Get("X-Hivegate-Cache"); got != wantCache {
					t.Errorf("JSON-RPC x-hivegate-cache = %q, want %q", got, wantCache)
				}
				rpcResult = out.Result
			}
			if !tt.typedFirst {
				postRPC("miss")
			}
			var typed []*dbv1.ListAccountsResponse
			for i, p := range protocols() {
				resp := &dbv1.ListAccountsResponse{}
				h, err := g.call(context.Background(), p, md, proto.Clone(tt.req), resp)
				if err != nil {
					t.Fatalf("%s: %v", p.name, err)
				}
				want := "hit"
				if i == 0 && tt.typedFirst {
					want = "miss"
				}
				if got := h.Get("X-Hivegate-Cache"); got != want {
					t.Errorf("%s: x-hivegate-cache = %q, want %q", p.name, got, want)
				}
				typed = append(typed, resp)
			}
			if tt.typedFirst {
				postRPC("hit")
			}
			// The "call" form is forwarded as the client wrote it, so count
			// every upstream call.
			if n := g.backend.total(); n != 1 {
				t.Errorf("backend received %d calls, want 1", n)
			}
			for i, resp := range typed[1:] {
				if !proto.Equal(resp, typed[0]) {
					t.Errorf("%s answered differently from %s", protocols()[i+1].name, protocols()[0].name)
				}
			}
			if len(typed[0].GetAccounts()) != int(tt.req.GetLimit()) || typed[0].GetNextStart() == nil {
				t.Fatalf("typed answer has %d accounts, next_start %v", len(typed[0].GetAccounts()), typed[0].GetNextStart())
			}
			noCursor := proto.Clone(typed[0]).(*dbv1.ListAccountsResponse)
			noCursor.NextStart = nil
			got, err := transcode.Marshal(noCursor)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, got, rpcResult) {
				t.Errorf("typed accounts differ from the JSON-RPC result")
			}
		})
	}
}

// TestTypedGeneratedClient calls through the generated Connect client, as a
// user would, over gRPC.
func TestTypedGeneratedClient(t *testing.T) {
	t.Parallel()
	g := simGateway(t, gateway.Options{})
	c := database_apiv1connect.NewDatabaseApiServiceClient(g.h2c, g.srv.URL, connect.WithGRPC())
	ctx, cancel := context.WithTimeout(context.Background(), typedHangGuard)
	defer cancel()
	resp, err := c.ListWitnesses(ctx, connect.NewRequest(&dbv1.ListWitnessesRequest{Limit: proto.Uint32(3), Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_VOTE_NAME}))
	if err != nil {
		t.Fatal(err)
	}
	ws := resp.Msg.GetWitnesses()
	if len(ws) != 3 {
		t.Fatalf("got %d witnesses", len(ws))
	}
	for i := 1; i < len(ws); i++ {
		if ws[i].GetVotes() > ws[i-1].GetVotes() {
			t.Errorf("by_vote_name not descending: %d after %d", ws[i].GetVotes(), ws[i-1].GetVotes())
		}
	}
	bv := resp.Msg.GetNextStart().GetByVoteName()
	if bv.GetOwner() != ws[2].GetOwner() || bv.GetVotes() != ws[2].GetVotes() {
		t.Errorf("next_start %v is not the last witness (%s, %d)", bv, ws[2].GetOwner(), ws[2].GetVotes())
	}

	// Typed RPCs have no side effects: Connect clients may use HTTP GET.
	get := database_apiv1connect.NewDatabaseApiServiceClient(g.h1, g.srv.URL, connect.WithHTTPGet(), connect.WithProtoJSON())
	again, err := get.ListWitnesses(ctx, connect.NewRequest(&dbv1.ListWitnessesRequest{Limit: proto.Uint32(3), Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_VOTE_NAME}))
	if err != nil {
		t.Fatalf("GET: %v", err)
	}
	if again.Header().Get("X-Hivegate-Cache") != "hit" || !proto.Equal(again.Msg, resp.Msg) {
		t.Errorf("GET: x-hivegate-cache %q, same answer %v", again.Header().Get("X-Hivegate-Cache"), proto.Equal(again.Msg, resp.Msg))
	}
}

// TestJSONRPCServiceCall checks hivegate.v1.JsonRpcService/Call: any method,
// params and result as google.protobuf.Value, the same cache as the typed
// and JSON-RPC front ends, and backend errors with a JsonRpcError detail.
func TestJSONRPCServiceCall(t *testing.T) {
	t.Parallel()
	g := simGateway(t, gateway.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), typedHangGuard)
	defer cancel()
	for _, p := range protocols() {
		c := hivegatev1connect.NewJsonRpcServiceClient(g.client(p), g.srv.URL, p.opts...)
		params, err := structpb.NewValue(map[string]any{"start": "", "limit": 4, "order": "by_name"})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Call(ctx, connect.NewRequest(&hivegatev1.CallRequest{Method: "database_api.list_accounts", Params: params}))
		if err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		accounts := resp.Msg.GetResult().GetStructValue().GetFields()["accounts"].GetListValue().GetValues()
		if len(accounts) != 4 {
			t.Errorf("%s: result has %d accounts", p.name, len(accounts))
		}
		_, err = c.Call(ctx, connect.NewRequest(&hivegatev1.CallRequest{Method: "nosuch_api.nosuch_method"}))
		if connect.CodeOf(err) != connect.CodeUnimplemented {
			t.Errorf("%s: unknown method: %v, want unimplemented", p.name, err)
		}
		if d := jsonRPCDetail(t, err); d == nil || d.GetCode() == 0 {
			t.Errorf("%s: unknown method error has no JsonRpcError detail", p.name)
		}
	}
	// The typed call with the same arguments is a hit on the same entry.
	md := dbv1.File_hive_database_api_v1_database_api_proto.Services().Get(0).Methods().ByName("ListAccounts")
	h, err := g.call(ctx, protocols()[1], md, &dbv1.ListAccountsRequest{Limit: proto.Uint32(4), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, &dbv1.ListAccountsResponse{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Get("X-Hivegate-Cache") != "hit" {
		t.Errorf("typed call after Call: x-hivegate-cache %q, want hit", h.Get("X-Hivegate-Cache"))
	}
	if n := g.backend.count("database_api.list_accounts"); n != 1 {
		t.Errorf("backend received %d list_accounts calls, want 1", n)
	}
}

// jsonRPCDetail returns the JsonRpcError detail of a Connect error, or nil.
func jsonRPCDetail(t testing.TB, err error) *hivegatev1.JsonRpcError {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return nil
	}
	for _, d := range ce.Details() {
		v, derr := d.Value()
		if derr != nil {
			t.Errorf("detail %s: %v", d.Type(), derr)
			continue
		}
		if je, ok := v.(*hivegatev1.JsonRpcError); ok {
			return je
		}
	}
	return nil
}

// sameJSON compares two JSON texts as values, a number and a string holding
// the same integer counting as equal (hived writes large 64-bit integers as
// strings, the codec writes them as numbers up to 2^53-1).
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	x, err := decodeJSON(a)
	if err != nil {
		t.Fatalf("%.200s: %v", a, err)
	}
	y, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("%.200s: %v", b, err)
	}
	if d := jsonDiff(x, y, ""); d != "" {
		t.Logf("first difference: %s", d)
		return false
	}
	return true
}

// decodeJSON parses JSON keeping numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}
