package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
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

// quotaStreamTx is a transaction bob signed; its reference block is made
// up, so a node refuses it: enough to tell a call that got past the quota
// (the node's failed_precondition) from one the quota refused.
func quotaStreamTx(t *testing.T) string {
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

// TestQuotaStreamBroadcast: a broadcast through the streams counts against
// the sender's quota as the same broadcast over JSON-RPC does, over Connect
// (StreamService.BroadcastTransaction) and over the WebSocket's transaction
// subscription. The WebSocket's request carried no quota request, so its
// broadcasts (each sent to every node) were never counted.
func TestQuotaStreamBroadcast(t *testing.T) {
	t.Parallel()
	yaml := strings.Replace(quotaConfig(simNode(t), ""), "  weights:\n", "  weights:\n    appbase.network_broadcast_api: 3\n", 1)
	url, _ := quotaGateway(t, yaml)
	trx := quotaStreamTx(t)

	connectBroadcast := func(addr string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req := connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: trx})
		req.Header().Set("X-Forwarded-For", addr)
		s, err := streamv1connect.NewStreamServiceClient(http.DefaultClient, url).BroadcastTransaction(ctx, req)
		if err != nil {
			return err
		}
		defer s.Close()
		for s.Receive() {
		}
		return s.Err()
	}
	wsBroadcast := func(addr string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, strings.Replace(url, "http", "ws", 1)+"/stream/ws",
			&websocket.DialOptions{HTTPHeader: http.Header{"X-Forwarded-For": {addr}}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		msg := `{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"stream":"transaction","transaction":` + trx + `}}`
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, got, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}

	// 3 units an hour per address; a broadcast weighs 3.
	if err := connectBroadcast("198.51.100.60"); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("Connect, first broadcast: %v, want the node's failed_precondition", err)
	}
	err := connectBroadcast("198.51.100.60")
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || !strings.Contains(ce.Message(), "not sent") {
		t.Fatalf("Connect, second broadcast: %v, want resource_exhausted saying it was not sent", err)
	}
	if secs, _ := strconv.Atoi(ce.Meta().Get("Retry-After")); secs < 3540 || secs > 3600 {
		t.Fatalf("Connect, second broadcast: Retry-After %q, want about 3600", ce.Meta().Get("Retry-After"))
	}
	if got := wsBroadcast("198.51.100.61"); !strings.Contains(got, `"code":"failed_precondition"`) {
		t.Fatalf("WebSocket, first broadcast: %s, want the node's failed_precondition", got)
	}
	if got := wsBroadcast("198.51.100.61"); !strings.Contains(got, `"code":"resource_exhausted"`) {
		t.Fatalf("WebSocket, second broadcast: %s, want resource_exhausted", got)
	}
}
