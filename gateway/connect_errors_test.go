package gateway_test

// Errors of the typed API: invalid requests are invalid_argument, name the
// field and make no upstream call; backend and gateway errors map to the
// closest Connect code with the JSON-RPC error attached as a JsonRpcError
// detail; no answer reveals a backend address.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hivegate/hivegate/gateway"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
)

// dbMethod returns a DatabaseApiService RPC's descriptor.
func dbMethod(name string) protoreflect.MethodDescriptor {
	return dbv1.File_hive_database_api_v1_database_api_proto.Services().Get(0).Methods().ByName(protoreflect.Name(name))
}

// condenserMethod returns a CondenserApiService RPC's descriptor.
func condenserMethod(name string) protoreflect.MethodDescriptor {
	return condv1.File_hive_condenser_api_v1_condenser_api_proto.Services().Get(0).Methods().ByName(protoreflect.Name(name))
}

// TestTypedValidation checks invalid requests on every protocol: the code
// is invalid_argument, the message names the field, the JsonRpcError detail
// is the gateway's invalid_params error, and the backend sees no call.
func TestTypedValidation(t *testing.T) {
	t.Parallel()
	g := simGateway(t, gateway.Options{})
	byProxy := &dbv1.ListAccountsStart{Start: &dbv1.ListAccountsStart_ByProxy_{ByProxy: &dbv1.ListAccountsStart_ByProxy{}}}
	tests := []struct {
		name string
		md   protoreflect.MethodDescriptor
		req  proto.Message
		want string
	}{
		{"limit 0", dbMethod("ListAccounts"), &dbv1.ListAccountsRequest{Limit: proto.Uint32(0), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, "limit: must be 1..1000, got 0"},
		{"limit above the method's maximum", condenserMethod("GetRepliesByLastUpdate"), &condv1.GetRepliesByLastUpdateRequest{StartAuthor: "a", Limit: proto.Uint32(21)}, "limit: must be 1..20, got 21"},
		{"start case of another order", dbMethod("ListAccounts"),
			&dbv1.ListAccountsRequest{Limit: proto.Uint32(5), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME, Start: byProxy},
			"start: case by_proxy does not match order LIST_ACCOUNTS_ORDER_BY_NAME"},
		{"account history start", condenserMethod("GetAccountHistory"), &condv1.GetAccountHistoryRequest{Account: "a", Start: proto.Int64(-3), Limit: proto.Uint32(10)},
			"start: must be -1 (the newest entry) or a sequence number, got -3"},
	}
	for _, tt := range tests {
		for _, p := range protocols() {
			_, err := g.call(context.Background(), p, tt.md, tt.req, dynamicResponse(tt.md))
			if connect.CodeOf(err) != connect.CodeInvalidArgument {
				t.Errorf("%s over %s: %v, want invalid_argument", tt.name, p.name, err)
				continue
			}
			var ce *connect.Error
			if errors.As(err, &ce) && ce.Message() != tt.want {
				t.Errorf("%s over %s: message %q, want %q", tt.name, p.name, ce.Message(), tt.want)
			}
			if d := jsonRPCDetail(t, err); d == nil || d.GetCode() != -32602 || !strings.Contains(d.GetMessage(), tt.want) {
				t.Errorf("%s over %s: JsonRpcError detail %v, want -32602 with the message", tt.name, p.name, d)
			}
		}
	}
	if n := g.backend.total(); n != 0 {
		t.Errorf("invalid requests made %d upstream calls", n)
	}
}

// errorBackend answers each method with a canned failure.
func errorBackend(t *testing.T) http.Handler {
	t.Helper()
	reply := func(w http.ResponseWriter, id json.RawMessage, member string) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,`+member+`}`)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		switch req.Method {
		case "database_api.list_accounts":
			reply(w, req.ID, `"error":{"code":-32003,"message":"Assert Exception:args.limit <= 1000: limit of 5000","data":{"code":10,"name":"assert_exception","message":"Assert Exception","stack":[]}}`)
		case "database_api.list_witnesses":
			reply(w, req.ID, `"error":{"code":-32601,"message":"Assert Exception:api_itr != data._registered_apis.end(): Could not find API"}`)
		case "database_api.list_proposals":
			reply(w, req.ID, `"error":{"code":-32000,"message":"Parse Error:Couldn't parse uint64_t","data":{"code":4,"name":"parse_error_exception"}}`)
		case "database_api.list_escrows":
			reply(w, req.ID, `"error":{"code":7,"message":"something new"}`)
		case "database_api.list_witness_votes":
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		case "database_api.list_owner_histories":
			_, _ = io.WriteString(w, "<html>not json</html>")
		case "database_api.list_limit_orders":
			reply(w, req.ID, `"result":{"orders":"not a list"}`)
		case "database_api.list_savings_withdrawals":
			select {
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
			reply(w, req.ID, `"result":{"withdrawals":[]}`)
		default:
			reply(w, req.ID, `"result":[]`)
		}
	})
}

// TestTypedBackendErrors checks the mapping of backend and gateway errors
// to Connect codes, the JsonRpcError detail and that no client-visible text
// names a backend address.
func TestTypedBackendErrors(t *testing.T) {
	t.Parallel()
	g := startTypedGateway(t, errorBackend(t), gateway.Options{})
	secrets := []string{g.backend.srv.URL, g.backend.srv.Listener.Addr().String(), "127.0.0.1"}
	tests := []struct {
		name       string
		md         protoreflect.MethodDescriptor
		req        proto.Message
		wantCode   connect.Code
		wantDetail int32 // the JsonRpcError code; 0: no detail
	}{
		{"hived assert", dbMethod("ListAccounts"), &dbv1.ListAccountsRequest{Limit: proto.Uint32(5), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, connect.CodeInvalidArgument, -32003},
		{"hived parse error", dbMethod("ListProposals"), &dbv1.ListProposalsRequest{Limit: proto.Uint32(5), Order: dbv1.ListProposalsOrder_LIST_PROPOSALS_ORDER_BY_CREATOR}, connect.CodeInvalidArgument, -32000},
		{"method not found", dbMethod("ListWitnesses"), &dbv1.ListWitnessesRequest{Limit: proto.Uint32(5), Order: dbv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_NAME}, connect.CodeUnimplemented, -32601},
		{"unknown backend code", dbMethod("ListEscrows"), &dbv1.ListEscrowsRequest{Limit: proto.Uint32(5), Order: dbv1.ListEscrowsOrder_LIST_ESCROWS_ORDER_BY_FROM_ID}, connect.CodeUnknown, 7},
		{"HTTP 503", dbMethod("ListWitnessVotes"), &dbv1.ListWitnessVotesRequest{Limit: proto.Uint32(5), Order: dbv1.ListWitnessVotesOrder_LIST_WITNESS_VOTES_ORDER_BY_ACCOUNT_WITNESS}, connect.CodeUnavailable, -32011},
		{"not JSON", dbMethod("ListOwnerHistories"), &dbv1.ListOwnerHistoriesRequest{Limit: proto.Uint32(5)}, connect.CodeUnavailable, -32012},
		{"timeout", dbMethod("ListSavingsWithdrawals"), &dbv1.ListSavingsWithdrawalsRequest{Limit: proto.Uint32(5), Order: dbv1.ListSavingsWithdrawalsOrder_LIST_SAVINGS_WITHDRAWALS_ORDER_BY_FROM_ID}, connect.CodeDeadlineExceeded, -32010},
		{"result does not fit the message", dbMethod("ListLimitOrders"), &dbv1.ListLimitOrdersRequest{Limit: proto.Uint32(5), Order: dbv1.ListLimitOrdersOrder_LIST_LIMIT_ORDERS_ORDER_BY_ACCOUNT}, connect.CodeInternal, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range protocols() {
				_, err := g.call(context.Background(), p, tt.md, tt.req, dynamicResponse(tt.md))
				if connect.CodeOf(err) != tt.wantCode {
					t.Errorf("%s: %v, want %v", p.name, err, tt.wantCode)
					continue
				}
				d := jsonRPCDetail(t, err)
				switch {
				case tt.wantDetail == 0 && d != nil:
					t.Errorf("%s: unexpected JsonRpcError detail %v", p.name, d)
				case tt.wantDetail != 0 && (d == nil || d.GetCode() != tt.wantDetail):
					t.Errorf("%s: JsonRpcError detail %v, want code %d", p.name, d, tt.wantDetail)
				}
				visible := err.Error()
				if d != nil {
					b, _ := json.Marshal(d)
					visible += string(b)
				}
				for _, s := range secrets {
					if strings.Contains(visible, s) {
						t.Errorf("%s: the error reveals %q: %s", p.name, s, visible)
					}
				}
			}
		})
	}
}

// TestTypedBackendUnreachable checks a backend that refuses connections.
func TestTypedBackendUnreachable(t *testing.T) {
	t.Parallel()
	g := startTypedGateway(t, http.NotFoundHandler(), gateway.Options{})
	g.backend.srv.Close()
	_, err := g.call(context.Background(), protocols()[2], dbMethod("ListAccounts"),
		&dbv1.ListAccountsRequest{Limit: proto.Uint32(5), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}, &dbv1.ListAccountsResponse{})
	if connect.CodeOf(err) != connect.CodeUnavailable {
		t.Fatalf("%v, want unavailable", err)
	}
	if d := jsonRPCDetail(t, err); d == nil || d.GetCode() != -32011 {
		t.Errorf("JsonRpcError detail %v, want -32011", d)
	}
	host, _, _ := net.SplitHostPort(g.backend.srv.Listener.Addr().String())
	if strings.Contains(err.Error(), host) {
		t.Errorf("the error reveals the backend address: %v", err)
	}
}

// dynamicResponse returns an empty response message of md.
func dynamicResponse(md protoreflect.MethodDescriptor) proto.Message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.Output().FullName())
	if err != nil {
		panic(err)
	}
	return mt.New().Interface()
}

// TestDecodeErrorsInRequestTerms shows that a typed request that does not
// decode gets an invalid_argument whose message says what was wrong in the
// request's terms — the field, what it takes, what came — and never names a
// Go type, over Connect JSON and in the protobuf binary encoding (gRPC-Web).
func TestDecodeErrorsInRequestTerms(t *testing.T) {
	t.Parallel()
	g := simGateway(t, gateway.Options{})
	url := "http://" + g.addr() + "/hive.database_api.v1.DatabaseApiService/ListAccounts"
	testCases := []struct {
		body, want string
	}{
		{`{"limit":"many"}`, `limit (line 1, column 10): want an integer from 0 to 4294967295, got "many"`},
		{`{"limit":-1}`, `limit (line 1, column 10): want an integer from 0 to 4294967295, got -1`},
		{`{"limit":3,"order":"NOPE"}`, `order (line 1, column 20): want one of LIST_ACCOUNTS_ORDER_UNSPECIFIED, LIST_ACCOUNTS_ORDER_BY_NAME`},
		{`{"start":{"byName":{"account":5}}}`, `account (line 1, column 31): want a string, got 5`},
		{`{"limit":3`, `the request body is not valid JSON`},
		{`[1]`, `the request body is not a valid hive.database_api.v1.ListAccountsRequest in JSON`},
		{``, `the request body is empty: want a JSON object`},
	}
	for _, tc := range testCases {
		resp, err := http.Post(url, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct{ Code, Message string }
		if err := json.Unmarshal(b, &e); err != nil || e.Code != "invalid_argument" || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: HTTP %d %s, want invalid_argument saying %q", tc.body, resp.StatusCode, b, tc.want)
		}
		if strings.Contains(e.Message, "*") || strings.Contains(e.Message, "server.") || strings.Contains(e.Message, "proto:") {
			t.Errorf("%s: the message shows Go internals: %q", tc.body, e.Message)
		}
	}
	// A known field of another version of the schema is ignored, as
	// connect's own codec does.
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"limit":2,"order":"LIST_ACCOUNTS_ORDER_BY_NAME","newer_field":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"accounts"`) {
		t.Errorf("a field unknown to this schema: HTTP %d %s, want it ignored", resp.StatusCode, b)
	}
	// gRPC-Web, binary: a frame holding a truncated varint.
	frame := []byte{0, 0, 0, 0, 2, 0x08, 0xff}
	resp, err = http.Post("http://"+g.addr()+"/hive.database_api.v1.DatabaseApiService/ListAccounts", "application/grpc-web+proto", bytes.NewReader(frame))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	msg := resp.Header.Get("Grpc-Message") + string(b)
	if !strings.Contains(msg, "not a valid hive.database_api.v1.ListAccountsRequest in the protobuf binary encoding") || strings.Contains(msg, "server.box") {
		t.Errorf("gRPC-Web binary: %q", msg)
	}
}
