package stream_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"

	streamv1 "github.com/hivegate/hivegate/gen/hive/stream/v1"
	"github.com/hivegate/hivegate/gen/hive/stream/v1/streamv1connect"
	tsv1 "github.com/hivegate/hivegate/gen/hive/transaction_status_api/v1"
)

// downURLs are the URLs of n distinct 127.0.0.1 ports nothing listens on.
func downURLs(t testing.TB, n int) []string {
	t.Helper()
	// Every listener stays open until all n ports are taken: a port
	// closed at once may be handed out again (two "nodes" at one URL).
	urls := make([]string, n)
	for i := range urls {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		urls[i] = "http://" + l.Addr().String()
	}
	return urls
}

// firstStatus broadcasts trx and returns the first status, or the
// stream's error.
func firstStatus(ctx context.Context, client streamv1connect.StreamServiceClient, trx string) (*streamv1.BroadcastTransactionResponse, error) {
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

// TestBroadcastEveryNode: BroadcastTransaction sends the transaction to
// every node of the broadcast backend, once each: here a node, a second
// node in front of the same chain (which answers "Duplicate transaction"
// when the first got there first, or accepts it when it did) and a node
// down. The client sees one clear result, in the mempool, then in a block.
func TestBroadcastEveryNode(t *testing.T) {
	t.Parallel()
	var second atomic.Int64
	e := newChainEnvNodes(t, 50, "", func(e *chainEnv) []string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if strings.Contains(string(body), "broadcast_transaction") {
				second.Add(1)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(e.node.Handle(body))
		}))
		t.Cleanup(srv.Close)
		return []string{srv.URL, downURLs(t, 1)[0]}
	})
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.BroadcastTransaction(ctx, connect.NewRequest(&streamv1.BroadcastTransactionRequest{TransactionJson: e.signedPost(t, "everywhere", time.Minute)}))
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := txStatuses(s)
	if m := next(t, ch); m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_MEMPOOL {
		t.Fatalf("first status %v, want within_mempool", m)
	}
	if a, b := e.broadcasts.Load(), second.Load(); a != 1 || b != 1 {
		t.Fatalf("the nodes got the transaction %d and %d times, want once each", a, b)
	}
	head := e.tip()
	e.produce(1)
	if m := next(t, ch); m.GetStatus() != tsv1.TransactionStatus_TRANSACTION_STATUS_WITHIN_REVERSIBLE_BLOCK || m.GetBlockNum() != head+1 {
		t.Fatalf("after a block: %v, want within_reversible_block %d", m, head+1)
	}
	if a, b := e.broadcasts.Load(), second.Load(); a != 1 || b != 1 {
		t.Fatalf("the transaction was sent again: %d and %d times", a, b)
	}
}

// TestBroadcastNoNode: with every node of the broadcast backend down the
// stream ends with unavailable, a message that names no node, and no
// retry.
func TestBroadcastNoNode(t *testing.T) {
	t.Parallel()
	down := downURLs(t, 2)
	down1, down2 := down[0], down[1]
	e := newChainEnvNodes(t, 50, "", func(*chainEnv) []string { return []string{down1, down2} })
	e.failBroadcasts.Store(true) // the first node serves blocks, not broadcasts
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := firstStatus(ctx, client, e.signedPost(t, "nowhere", time.Minute))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeUnavailable || !strings.Contains(ce.Message(), "the nodes did not answer") {
		t.Fatalf("every node down: %v, want unavailable", err)
	}
	for _, leak := range []string{"127.0.0.1", "http://", strings.TrimPrefix(down1, "http://")} {
		if strings.Contains(ce.Message(), leak) {
			t.Errorf("message %q names a node (%q)", ce.Message(), leak)
		}
	}
	if n := e.broadcasts.Load(); n != 1 {
		t.Fatalf("the first node got the transaction %d times, want once (no retry)", n)
	}
}
