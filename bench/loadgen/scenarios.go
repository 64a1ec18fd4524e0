package loadgen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
)

// Request bodies. The single call is the one the ceiling's fixed answer
// stands for, so scenarios 1, 2a, 3a and 3b send the very same bytes.
const (
	dgpoCall         = `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_dynamic_global_properties","params":[]}`
	listAccountsCall = `{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start":"","limit":1000,"order":"by_name"}}`
	connectListBody  = `{"limit":1000,"order":"LIST_ACCOUNTS_ORDER_BY_NAME"}`
	// ConnectListAccountsPath is the Connect procedure of scenario 4a.
	ConnectListAccountsPath = "/hive.database_api.v1.DatabaseApiService/ListAccounts"
	jsonType                = "application/json"
	protoType               = "application/proto"
)

// connectListProto is scenario 4a's request as binary protobuf.
func connectListProto() string {
	b, err := proto.Marshal(&dbv1.ListAccountsRequest{Limit: proto.Uint32(1000), Order: dbv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME})
	if err != nil {
		panic(err) // a fixed, valid message
	}
	return string(b)
}

// BatchSize is the number of calls in a scenario 2b batch.
const BatchSize = 50

// dgpoBatch is BatchSize get_dynamic_global_properties calls with ids 1..n.
func dgpoBatch(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strings.Replace(dgpoCall, `"id":1`, `"id":`+strconv.Itoa(i+1), 1))
	}
	b.WriteByte(']')
	return b.String()
}

// Target kinds of server a scenario runs against.
const (
	onMinimal      = "minimal"
	onMinimalLike  = "minimal-gateway-server" // hivegate's http.Server and headers
	onGatewayCache = "gateway-cache"          // the DGPO route has a long TTL
	onGatewayMiss  = "gateway-nocache"        // the DGPO route is NO_CACHE
	onBackend      = "backend"
)

// Scenario is one measured row.
type Scenario struct {
	ID    string
	Title string
	// Unit is what a request is: "req/s" or "batch/s".
	Unit string
	// On is the server kind the load goes to.
	On   string
	Path string
	Body string
	// ContentType of Body; empty: application/json.
	ContentType string
	// Check validates one answer before the load starts.
	Check func(resp *http.Response, body []byte) error
	// Info marks rows that carry no target (shown for interpretation).
	Info bool
	// NodeApart puts the fake backend on Config.NodeCPUs, away from the
	// gateway under test, for this scenario.
	NodeApart bool
}

// Scenarios returns every scenario in report order.
func Scenarios() []Scenario {
	return []Scenario{
		{ID: "1", Title: "minimal net/http, fixed JSON-RPC body (ceiling)", Unit: "req/s", On: onMinimal, Path: "/", Body: dgpoCall, Check: checkSingle("")},
		{ID: "1b", Title: "minimal net/http, fixed 50-answer batch body", Unit: "batch/s", On: onMinimal, Path: "/batch", Body: dgpoBatch(BatchSize), Check: checkBatch(BatchSize), Info: true},
		{ID: "1c", Title: "minimal handler on hivegate's http.Server with its response headers", Unit: "req/s", On: onMinimalLike, Path: "/", Body: dgpoCall, Check: checkSingle("hit"), Info: true},
		{ID: "2a", Title: "hivegate cache hit, single get_dynamic_global_properties", Unit: "req/s", On: onGatewayCache, Path: "/", Body: dgpoCall, Check: checkSingle("hit")},
		{ID: "2b", Title: "hivegate cache hits, batches of 50", Unit: "batch/s", On: onGatewayCache, Path: "/", Body: dgpoBatch(BatchSize), Check: checkBatch(BatchSize)},
		{ID: "3a", Title: "hivegate miss (NO_CACHE route) -> fast backend on its own CPU", Unit: "req/s", On: onGatewayMiss, Path: "/", Body: dgpoCall, Check: checkSingle("bypass"), NodeApart: true},
		{ID: "3b", Title: "fast backend directly", Unit: "req/s", On: onBackend, Path: "/", Body: dgpoCall, Check: checkSingle("")},
		{ID: "3c", Title: "hivegate miss, fast backend on the gateway's CPU", Unit: "req/s", On: onGatewayMiss, Path: "/", Body: dgpoCall, Check: checkSingle("bypass"), Info: true},
		{ID: "4a", Title: "Connect ListAccounts limit 1000, cached", Unit: "req/s", On: onGatewayCache, Path: ConnectListAccountsPath, Body: connectListBody, Check: checkConnectAccounts},
		{ID: "4b", Title: "JSON-RPC database_api.list_accounts limit 1000, cached", Unit: "req/s", On: onGatewayCache, Path: "/", Body: listAccountsCall, Check: checkSingle("hit")},
		{ID: "4c", Title: "Connect ListAccounts limit 1000, cached, binary protobuf", Unit: "req/s", On: onGatewayCache, Path: ConnectListAccountsPath,
			Body: connectListProto(), ContentType: protoType, Check: checkConnectProto, Info: true},
	}
}

// rpcAnswer is one JSON-RPC answer.
type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

func (a rpcAnswer) check(wantID string) error {
	if a.Error != nil {
		return fmt.Errorf("error answer: %s", a.Error)
	}
	if len(a.Result) == 0 || string(a.Result) == "null" {
		return fmt.Errorf("no result")
	}
	if string(a.ID) != wantID {
		return fmt.Errorf("id %s, want %s", a.ID, wantID)
	}
	return nil
}

func checkStatus(resp *http.Response, body []byte) error {
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, body)
	}
	return nil
}

// checkSingle wants a JSON-RPC result with id 1 and, when cache is not
// empty, that x-hivegate-cache value.
func checkSingle(cache string) func(*http.Response, []byte) error {
	return func(resp *http.Response, body []byte) error {
		if err := checkStatus(resp, body); err != nil {
			return err
		}
		var a rpcAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			return fmt.Errorf("answer: %w: %.200s", err, body)
		}
		if err := a.check("1"); err != nil {
			return err
		}
		if got := resp.Header.Get("X-Hivegate-Cache"); cache != "" && got != cache {
			return fmt.Errorf("x-hivegate-cache %q, want %q", got, cache)
		}
		return nil
	}
}

// checkBatch wants n JSON-RPC results with ids 1..n in order.
func checkBatch(n int) func(*http.Response, []byte) error {
	return func(resp *http.Response, body []byte) error {
		if err := checkStatus(resp, body); err != nil {
			return err
		}
		var as []rpcAnswer
		if err := json.Unmarshal(body, &as); err != nil {
			return fmt.Errorf("batch answer: %w: %.200s", err, body)
		}
		if len(as) != n {
			return fmt.Errorf("batch of %d answers, want %d", len(as), n)
		}
		for i, a := range as {
			if err := a.check(strconv.Itoa(i + 1)); err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
		}
		return nil
	}
}

// checkConnectProto wants a Connect binary ListAccounts answer of 1000 accounts.
func checkConnectProto(resp *http.Response, body []byte) error {
	if err := checkStatus(resp, body); err != nil {
		return err
	}
	if ct := resp.Header.Get("Content-Type"); ct != protoType {
		return fmt.Errorf("content-type %q: %.200q", ct, body)
	}
	var m dbv1.ListAccountsResponse
	if err := proto.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	if len(m.GetAccounts()) != 1000 {
		return fmt.Errorf("%d accounts, want 1000", len(m.GetAccounts()))
	}
	return nil
}

// checkConnectAccounts wants a Connect JSON ListAccounts answer: an object
// with an "accounts" array, not a JSON-RPC envelope.
func checkConnectAccounts(resp *http.Response, body []byte) error {
	if err := checkStatus(resp, body); err != nil {
		return err
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, jsonType) {
		return fmt.Errorf("content-type %q: %.200s", ct, body)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("answer: %w: %.200s", err, body)
	}
	if _, rpc := m["jsonrpc"]; rpc {
		return fmt.Errorf("a JSON-RPC answer, not Connect: %.200s", body)
	}
	var accts []json.RawMessage
	if err := json.Unmarshal(m["accounts"], &accts); err != nil || len(accts) == 0 {
		return fmt.Errorf("no accounts array: %.200s", body)
	}
	if len(accts) != 1000 {
		return fmt.Errorf("%d accounts, want 1000", len(accts))
	}
	return nil
}
