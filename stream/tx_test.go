package stream_test

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
	tsv1 "github.com/hivegate/hivegate/gen/hive/transaction_status_api/v1"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
)

// signedPost is a post by bob, signed for the simulated node's head and
// clock, expiring after ttl.
func (e *chainEnv) signedPost(t *testing.T, permlink string, ttl time.Duration) string {
	t.Helper()
	var dgpo struct {
		HeadID string `json:"head_block_id"`
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(e.node.Handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"database_api.get_dynamic_global_properties","params":{}}`)), &resp); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(resp.Result, &dgpo); err != nil {
		t.Fatal(err)
	}
	refNum, refPrefix, err := hivetx.RefBlock(dgpo.HeadID)
	if err != nil {
		t.Fatal(err)
	}
	op, err := hivetx.NewOperation("comment", map[string]any{"parent_author": "", "parent_permlink": "hive", "author": "bob",
		"permlink": permlink, "title": "t", "body": "b", "json_metadata": "{}"})
	if err != nil {
		t.Fatal(err)
	}
	tx := &hivetx.Transaction{RefBlockNum: refNum, RefBlockPrefix: refPrefix,
		Expiration: e.clk.Now().UTC().Truncate(time.Second).Add(ttl), Operations: []hivetx.Operation{op}}
	if err := tx.Sign(hivesim.DemoKey("bob", "posting"), hivetx.MainnetChainID); err != nil {
		t.Fatal(err)
	}
	return string(tx.AppendJSON(nil))
}

// txStatuses reads a BroadcastTransaction stream into a channel.
func txStatuses(s *connect.ServerStreamForClient[streamv1.BroadcastTransactionResponse]) (<-chan *streamv1.BroadcastTransactionResponse, <-chan error) {
	out, done := make(chan *streamv1.BroadcastTransactionResponse, 64), make(chan error, 1)
	go func() {
		for s.Receive() {
			out <- s.Msg()
		}
		done <- s.Err()
		close(out)
	}()
	return out, done
}

func next(t *testing.T, ch <-chan *streamv1.BroadcastTransactionResponse) *streamv1.BroadcastTransactionResponse {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no status in 10s")
	}
	return nil
}

// TestBroadcastConfirmed: a transaction sent once goes from the mempool to
// a reversible block to an irreversible one, one message per change, as
// the simulated node's clock makes blocks; the stream then ends.
func TestBroadcastConfirmed(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.BroadcastTransaction(ctx, connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: e.signedPost(t, "confirmed", time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	ch, done := txStatuses(s)
	m := next(t, ch)
	if m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_MEMPOOL || len(m.GetTransactionId()) != 40 || m.GetFinal() {
		t.Fatalf("first status %v", m)
	}
	head := e.tip()
	e.produce(1)
	m = next(t, ch)
	if m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_REVERSIBLE_BLOCK || m.GetBlockNum() != head+1 || m.GetFinal() {
		t.Fatalf("after a block: %v, want within_reversible_block %d", m, head+1)
	}
	// 20 blocks later (hivesim's irreversible lag), the block is
	// irreversible; blocks in between change nothing and send nothing.
	for range 20 {
		e.produce(1)
	}
	m = next(t, ch)
	if m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_IRREVERSIBLE_BLOCK || m.GetBlockNum() != head+1 || !m.GetFinal() {
		t.Fatalf("after 21 blocks: %v, want final within_irreversible_block %d", m, head+1)
	}
	if err := <-done; err != nil {
		t.Fatalf("stream ended with %v", err)
	}
	if _, ok := <-ch; ok {
		t.Fatal("a message after the final status")
	}
	if n := e.broadcasts.Load(); n != 1 {
		t.Fatalf("%d broadcasts reached the node, want 1", n)
	}
	// One find_transaction after the broadcast, at most one per block the
	// follower read (21) and one when the block became irreversible: no
	// polling loop.
	if n := e.finds.Load(); n < 3 || n > 23 {
		t.Fatalf("%d find_transaction calls for 21 blocks, want 3 to 23", n)
	}
}

// TestBroadcastExpired: a node accepts a transaction and loses it; the
// stream reports unknown, then expired_reversible once the head passes
// the expiration, then expired_irreversible (final) once the last
// irreversible block does. The broadcast is not sent again.
func TestBroadcastExpired(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	e.dropBroadcasts.Store(true)
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.BroadcastTransaction(ctx, connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: e.signedPost(t, "lost", 30*time.Second)}))
	if err != nil {
		t.Fatal(err)
	}
	ch, done := txStatuses(s)
	if m := next(t, ch); m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_UNKNOWN {
		t.Fatalf("first status %v, want unknown", m)
	}
	e.produce(11) // 33 s: past the expiration
	if m := next(t, ch); m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_EXPIRED_REVERSIBLE || m.GetFinal() {
		t.Fatalf("past the expiration: %v, want expired_reversible", m)
	}
	e.produce(20)
	if m := next(t, ch); m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_EXPIRED_IRREVERSIBLE || !m.GetFinal() {
		t.Fatalf("20 blocks later: %v, want final expired_irreversible", m)
	}
	if err := <-done; err != nil {
		t.Fatalf("stream ended with %v", err)
	}
	if n := e.broadcasts.Load(); n != 1 {
		t.Fatalf("%d broadcasts reached the node, want 1", n)
	}
}

// TestBroadcastRefusedAndNotRetried: the node's refusal (a duplicate, an
// expired transaction) ends the stream with failed_precondition and the
// node's message, and each call reaches the node exactly once; a
// transaction that does not parse never reaches it.
func TestBroadcastRefusedAndNotRetried(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	call := func(trx string) (*streamv1.BroadcastTransactionResponse, error) {
		s, err := client.BroadcastTransaction(ctx, connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: trx}))
		if err != nil {
			return nil, err
		}
		defer s.Close()
		if s.Receive() {
			return s.Msg(), nil
		}
		return nil, s.Err()
	}
	trx := e.signedPost(t, "twice", time.Minute)
	if m, err := call(trx); err != nil || m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_MEMPOOL {
		t.Fatalf("first broadcast: %v %v", m, err)
	}
	cases := []struct {
		name, trx string
		code      connect.Code
		msg       string
		sent      int64
	}{
		{"duplicate", trx, connect.CodeFailedPrecondition, "Duplicate transaction check failed", 1},
		{"expired", e.signedPost(t, "old", -time.Minute), connect.CodeFailedPrecondition, "expiration", 1},
		{"not a transaction", `{"operations":"x"}`, connect.CodeInvalidArgument, "transaction_json", 0},
	}
	for _, c := range cases {
		before := e.broadcasts.Load()
		_, err := call(c.trx)
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != c.code || !strings.Contains(ce.Message(), c.msg) {
			t.Errorf("%s: %v, want %v containing %q", c.name, err, c.code, c.msg)
		}
		if n := e.broadcasts.Load() - before; n != c.sent {
			t.Errorf("%s: %d broadcasts reached the node, want %d", c.name, n, c.sent)
		}
	}
}

// TestBroadcastOverWebSocket: subscribe with stream "transaction" answers
// a subscription id, then notifications carry the status until final; a
// refusal is subscribe's error with the node's message.
func TestBroadcastOverWebSocket(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.srv.URL, "http")+"/stream/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
			Data    struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
		Method string `json:"method"`
		Params struct {
			Subscription string `json:"subscription"`
			Result       struct {
				Status   string `json:"status"`
				BlockNum uint64 `json:"block_num"`
				Final    bool   `json:"final"`
			} `json:"result"`
		} `json:"params"`
	}
	read := func() msg {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m msg
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	trx := e.signedPost(t, "ws", time.Minute)
	sub := `{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"stream":"transaction","transaction":` + trx + `}}`
	if err := c.Write(ctx, websocket.MessageText, []byte(sub)); err != nil {
		t.Fatal(err)
	}
	var id string
	if m := read(); m.Error != nil || json.Unmarshal(m.Result, &id) != nil || id == "" {
		t.Fatalf("subscribe answered %+v", m)
	}
	if m := read(); m.Params.Subscription != id || m.Params.Result.Status != "within_mempool" {
		t.Fatalf("first notification %+v", m)
	}
	head := e.tip()
	e.produce(1)
	if m := read(); m.Params.Result.Status != "within_reversible_block" || m.Params.Result.BlockNum != head+1 {
		t.Fatalf("second notification %+v", m)
	}
	e.produce(20)
	if m := read(); m.Params.Result.Status != "within_irreversible_block" || !m.Params.Result.Final {
		t.Fatalf("third notification %+v", m)
	}
	// The same transaction again: the node refuses the duplicate.
	if err := c.Write(ctx, websocket.MessageText, []byte(strings.Replace(sub, `"id":1`, `"id":2`, 1))); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Error == nil || m.Error.Data.Code != "failed_precondition" || !strings.Contains(m.Error.Message, "Duplicate") {
		t.Fatalf("duplicate answered %+v", m)
	}
	if n := e.broadcasts.Load(); n != 2 {
		t.Fatalf("%d broadcasts reached the node, want 2", n)
	}
}

// TestBroadcastCountsAsSubscriber: a transaction being tracked holds one
// of streams.max_subscribers; over it, BroadcastTransaction is refused
// with resource_exhausted and nothing reaches the node.
func TestBroadcastCountsAsSubscriber(t *testing.T) {
	t.Parallel()
	e := newChainEnvWith(t, 50, "  max_subscribers: 1\n")
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := client.BroadcastTransaction(ctx, connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: e.signedPost(t, "one", time.Minute)}))
	if err != nil || !first.Receive() {
		t.Fatalf("first broadcast: %v", err)
	}
	defer first.Close()
	second, err := client.BroadcastTransaction(ctx, connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: e.signedPost(t, "two", time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	var ce *connect.Error
	if second.Receive() || !errors.As(second.Err(), &ce) || ce.Code() != connect.CodeResourceExhausted {
		t.Fatalf("second broadcast over max_subscribers: %v, want resource_exhausted", second.Err())
	}
	if n := e.broadcasts.Load(); n != 1 {
		t.Fatalf("%d broadcasts reached the node, want 1", n)
	}
	first.Close()
	e.waitSubs(0)
}
