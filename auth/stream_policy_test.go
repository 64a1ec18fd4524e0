package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	streamv1 "github.com/hivegate/hivegate/gen/hive/stream/v1"
	"github.com/hivegate/hivegate/gen/hive/stream/v1/streamv1connect"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// streamTx is a transaction bob signed (its reference block is made up:
// the node refuses it, which is all a token-holder's call needs to show
// that it got past the policy).
func streamTx(t *testing.T) string {
	t.Helper()
	op, err := hivetx.NewOperation("vote", map[string]any{"voter": "bob", "author": "alice", "permlink": "p", "weight": json.Number("10000")})
	if err != nil {
		t.Fatal(err)
	}
	tx := &hivetx.Transaction{RefBlockNum: 1, RefBlockPrefix: 2, Expiration: time.Now().UTC().Truncate(time.Second).Add(time.Minute),
		Operations: []hivetx.Operation{op}}
	if err := tx.Sign(hivesim.DemoKey("bob", "posting"), hivetx.MainnetChainID); err != nil {
		t.Fatal(err)
	}
	return string(tx.AppendJSON(nil))
}

// TestTokenPolicyStreamBroadcast: a broadcast through the streams
// (StreamService.BroadcastTransaction over Connect, the WebSocket
// "transaction" subscription) meets auth.require_token as the same
// broadcast over JSON-RPC does. The streams sent it to the nodes with no
// hooks at all: a policy asking a posting token for network_broadcast_api
// was bypassed by the stream that replaces broadcast_transaction_synchronous.
func TestTokenPolicyStreamBroadcast(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "  require_token:\n    appbase.network_broadcast_api: posting\n", "")
	login := e.tokens("alice", "login")["access_token"].(string)
	posting := e.tokens("alice", "login,posting")["access_token"].(string)
	trx := streamTx(t)
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.url)
	for _, tc := range []struct {
		name  string
		token string
		want  connect.Code
	}{
		{"no token", "", connect.CodeUnauthenticated},
		{"bad token", "x.y.z", connect.CodeUnauthenticated},
		{"scope too small", login, connect.CodePermissionDenied},
		// Past the policy: the node refuses the made-up reference block.
		{"posting", posting, connect.CodeFailedPrecondition},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req := connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: trx})
		if tc.token != "" {
			req.Header().Set("Authorization", "Bearer "+tc.token)
		}
		s, err := client.BroadcastTransaction(ctx, req)
		if err == nil {
			for s.Receive() {
			}
			err = s.Err()
			_ = s.Close()
		}
		cancel()
		if got := connect.CodeOf(err); got != tc.want {
			t.Errorf("Connect, %s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name  string
		token string
		want  string // in the subscribe call's error
	}{
		{"no token", "", `"code":"unauthenticated"`},
		{"posting", posting, `"code":"failed_precondition"`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		h := http.Header{}
		if tc.token != "" {
			h.Set("Authorization", "Bearer "+tc.token)
		}
		c, _, err := websocket.Dial(ctx, strings.Replace(e.url, "http", "ws", 1)+"/stream/ws", &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		msg := `{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"stream":"transaction","transaction":` + trx + `}}`
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, got, err := c.Read(ctx)
		_ = c.CloseNow()
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("WebSocket, %s: %v", tc.name, err)
		}
		if !strings.Contains(string(got), tc.want) {
			t.Errorf("WebSocket, %s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
