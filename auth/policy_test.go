package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	database_apiv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/gen/hive/database_api/v1/database_apiv1connect"
	authv1 "github.com/hivegate/hivegate/gen/hivegate/auth/v1"
	"github.com/hivegate/hivegate/gen/hivegate/auth/v1/authv1connect"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"
	"github.com/hivegate/hivegate/metrics"
)

const policy = "  require_token:\n" +
	"    appbase.condenser_api.get_account_history: posting\n" +
	"    appbase.database_api.list_accounts: login\n" +
	"    appbase.condenser_api.get_accounts: login\n" +
	"    \"appbase.condenser_api.get_accounts.params=[['alice']]\": none\n"

// rpcError reads a JSON-RPC answer's error code.
func rpcError(t *testing.T, r reply) (code int, msg string) {
	t.Helper()
	var out struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("not JSON-RPC: %s", r.body)
	}
	if out.Error == nil {
		return 0, ""
	}
	return out.Error.Code, out.Error.Message
}

// TestTokenPolicyJSONRPC: auth.require_token over JSON-RPC: 401 without
// a token or with a bad one, 403 with too small a scope, each with
// WWW-Authenticate; methods the policy does not list need nothing; "none"
// exempts a more specific key; a batch answers per element.
func TestTokenPolicyJSONRPC(t *testing.T) {
	t.Parallel()
	e := newEnv(t, policy, "")
	login := e.tokens("alice", "login")["access_token"].(string)
	posting := e.tokens("alice", "login,posting")["access_token"].(string)
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	history := []any{"alice", -1, 10}

	testCases := []struct {
		name      string
		method    string
		params    any
		header    map[string]string
		status    int
		code      int
		challenge string
	}{
		{"no token", "condenser_api.get_account_history", history, nil, 401, -32016, `scope="posting"`},
		{"bad token", "condenser_api.get_account_history", history, bearer("x.y.z"), 401, -32016, `error="invalid_token"`},
		{"scope too small", "condenser_api.get_account_history", history, bearer(login), 403, -32020, `error="insufficient_scope"`},
		{"enough scope", "condenser_api.get_account_history", history, bearer(posting), 200, 0, ""},
		{"posting includes login", "condenser_api.get_accounts", []any{[]string{"bob"}}, map[string]string{"Authorization": posting}, 200, 0, ""},
		{"login needed", "condenser_api.get_accounts", []any{[]string{"bob"}}, nil, 401, -32016, `scope="login"`},
		{"exempted by none", "condenser_api.get_accounts", []any{[]string{"alice"}}, nil, 200, 0, ""},
		{"not listed", "condenser_api.get_dynamic_global_properties", []any{}, nil, 200, 0, ""},
	}
	for _, tc := range testCases {
		r := e.rpc(tc.method, tc.params, tc.header)
		code, msg := rpcError(t, r)
		if r.status != tc.status || code != tc.code || !strings.Contains(r.header.Get("WWW-Authenticate"), tc.challenge) {
			t.Errorf("%s: HTTP %d code %d %q WWW-Authenticate %q, want %d %d %q", tc.name, r.status, code, msg, r.header.Get("WWW-Authenticate"), tc.status, tc.code, tc.challenge)
		}
	}
	// Refusals are counted on the route the call would have taken (they
	// once had route="none", as if the method were unrouted).
	for _, o := range []struct {
		outcome string
		want    float64
	}{{"unauthorized", 3}, {"forbidden", 1}} {
		labels := `frontend="jsonrpc",outcome="` + o.outcome + `",route="appbase"`
		if v, _ := metrics.Value(e.gw.Metrics().Registry(), "hivegate_requests_total", labels); v != o.want {
			t.Errorf("hivegate_requests_total{%s} = %v, want %v", labels, v, o.want)
		}
	}
	// A batch: each element its own answer, HTTP 200.
	body := `[{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_account_history","params":["alice",-1,10]},` +
		`{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_dynamic_global_properties","params":[]}]`
	r := e.do("POST", "/", map[string]string{"Content-Type": "application/json"}, []byte(body))
	var answers []map[string]any
	_ = json.Unmarshal(r.body, &answers)
	if r.status != 200 || len(answers) != 2 || answers[0]["error"] == nil || answers[1]["result"] == nil {
		t.Errorf("batch: HTTP %d %s", r.status, r.body)
	}
	// A revoked token stops working for the policy at once.
	e.form("/api/oauth2/token/revoke", map[string][]string{"token": {posting}}, nil)
	if r := e.rpc("condenser_api.get_account_history", history, bearer(posting)); r.status != 401 {
		t.Errorf("revoked token: HTTP %d %s", r.status, r.body)
	}
}

// TestTokenPolicyTyped: the same policy for typed calls and
// JsonRpcService.Call (unauthenticated / permission_denied), and no policy
// at all when require_token is empty.
func TestTokenPolicyTyped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, policy+"    appbase.database_api.list_witnesses: posting\n", "")
	login := e.tokens("alice", "login")["access_token"].(string)
	ctx := context.Background()
	db := database_apiv1connect.NewDatabaseApiServiceClient(http.DefaultClient, e.url)
	accounts := func(tok string) error {
		req := connect.NewRequest(&database_apiv1.ListAccountsRequest{Limit: proto.Uint32(2), Order: database_apiv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME})
		if tok != "" {
			req.Header().Set("Authorization", "Bearer "+tok)
		}
		_, err := db.ListAccounts(ctx, req)
		return err
	}
	if err := accounts(""); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("typed call without a token: %v", err)
	}
	if err := accounts(login); err != nil {
		t.Errorf("typed call with a login token: %v", err)
	}
	witnesses := connect.NewRequest(&database_apiv1.ListWitnessesRequest{Limit: proto.Uint32(2), Order: database_apiv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_NAME})
	witnesses.Header().Set("Authorization", login)
	if _, err := db.ListWitnesses(ctx, witnesses); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Errorf("typed call with too small a scope: %v", err)
	}
	// gRPC-Web, and the generic JsonRpcService.Call.
	call := hivegatev1connect.NewJsonRpcServiceClient(http.DefaultClient, e.url, connect.WithGRPCWeb())
	params, _ := structpb.NewList([]any{[]any{"bob"}})
	_, err := call.Call(ctx, connect.NewRequest(&hivegatev1.CallRequest{Method: "condenser_api.get_accounts", Params: structpb.NewListValue(params)}))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeUnauthenticated || !strings.Contains(ce.Meta().Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("JsonRpcService.Call without a token: %v", err)
	}

	// Without require_token nothing needs a token.
	open := newEnv(t, "", "")
	if r := open.rpc("condenser_api.get_account_history", []any{"alice", -1, 10}, nil); r.status != 200 {
		t.Errorf("no policy: HTTP %d %s", r.status, r.body)
	}
}

// TestTypedAuthService: hivegate.auth.v1.AuthService Me and Broadcast.
func TestTypedAuthService(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "", "")
	user := authorizedUser(t, e, false)
	e.grantAuthority(user)
	posting := e.tokens(user, "login,posting")["access_token"].(string)
	ctx := context.Background()
	client := authv1connect.NewAuthServiceClient(http.DefaultClient, e.url)
	me := connect.NewRequest(&authv1.MeRequest{})
	me.Header().Set("Authorization", "Bearer "+posting)
	res, err := client.Me(ctx, me)
	if err != nil || res.Msg.GetUser() != user || res.Msg.GetClientId() != "demo.app" || len(res.Msg.GetOperations()) != 7 {
		t.Fatalf("Me: %v %v", res, err)
	}
	if _, err := client.Me(ctx, connect.NewRequest(&authv1.MeRequest{})); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("Me without a token: %v", err)
	}

	e.post("bob", "typed")
	send := func(ops ...*authv1.PostingOperation) (*connect.Response[authv1.BroadcastResponse], error) {
		req := connect.NewRequest(&authv1.BroadcastRequest{Operations: ops})
		req.Header().Set("Authorization", posting)
		return client.Broadcast(ctx, req)
	}
	vote := &authv1.PostingOperation{Operation: &authv1.PostingOperation_Vote{Vote: &authv1.VoteOperation{Voter: user, Author: "bob", Permlink: "typed", Weight: 5000}}}
	comment := &authv1.PostingOperation{Operation: &authv1.PostingOperation_Comment{Comment: &authv1.CommentOperation{
		ParentAuthor: "", ParentPermlink: "hive", Author: user, Permlink: "typed-post", Title: "Typed", Body: "from gRPC", JsonMetadata: "{}"}}}
	options := &authv1.PostingOperation{Operation: &authv1.PostingOperation_CommentOptions{CommentOptions: &authv1.CommentOptionsOperation{
		Author: user, Permlink: "typed-post", Beneficiaries: []*authv1.Beneficiary{{Account: "bob", Weight: 1000}}}}}
	r, err := send(vote, comment, options)
	if err != nil || len(r.Msg.GetId()) != 40 || r.Msg.GetBlockNum() == 0 {
		t.Fatalf("Broadcast: %v %v", r, err)
	}
	if c := e.content(user, "typed-post"); c["body"] != "from gRPC" {
		t.Errorf("typed post: %v", c)
	}
	if v := e.content("bob", "typed")["active_votes"].([]any); len(v) != 1 {
		t.Errorf("typed vote: %v", v)
	}
	other := &authv1.PostingOperation{Operation: &authv1.PostingOperation_Vote{Vote: &authv1.VoteOperation{Voter: "bob", Author: "bob", Permlink: "typed", Weight: 1}}}
	if _, err := send(other); connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Errorf("a vote for another account: %v", err)
	}
	missing := &authv1.PostingOperation{Operation: &authv1.PostingOperation_Vote{Vote: &authv1.VoteOperation{Voter: user, Author: "bob", Permlink: "gone", Weight: 1}}}
	if _, err := send(missing); connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "Could not find comment") {
		t.Errorf("the node's refusal: %v", err)
	}
	if _, err := send(&authv1.PostingOperation{}); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("an empty operation: %v", err)
	}
	notYet := authorizedUser(t, e, false)
	tok := e.tokens(notYet, "posting")["access_token"].(string)
	req := connect.NewRequest(&authv1.BroadcastRequest{Operations: []*authv1.PostingOperation{{Operation: &authv1.PostingOperation_Vote{
		Vote: &authv1.VoteOperation{Voter: notYet, Author: "bob", Permlink: "typed", Weight: 1}}}}})
	req.Header().Set("Authorization", tok)
	if _, err := client.Broadcast(ctx, req); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Errorf("a user who has not authorized the service: %v", err)
	}
}
