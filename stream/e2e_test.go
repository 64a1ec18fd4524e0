package stream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	streamv1 "github.com/hivegate/hivegate/gen/hive/stream/v1"
	"github.com/hivegate/hivegate/gen/hive/stream/v1/streamv1connect"
	"github.com/hivegate/hivegate/stream"
)

// h2c is an HTTP client speaking unencrypted HTTP/2 (gRPC).
func h2c() *http.Client {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{Protocols: &p}}
}

// readBlocks reads a block stream into c until it ends.
func readBlocks(s *connect.ServerStreamForClient[streamv1.StreamBlocksResponse], c *collector) error {
	for s.Receive() {
		m := s.Msg()
		if f := m.GetFork(); f != nil {
			c.add("fork:"+strconv.FormatUint(f.GetBlockNum(), 10), m.GetCursor())
			continue
		}
		c.add("block:"+strconv.FormatUint(m.GetBlock().GetBlockNum(), 10), m.GetCursor())
	}
	return s.Err()
}

// TestConnectCatchUpLiveAndResume: a Connect client starting in the past
// reads history and then live blocks with no gap; after a disconnect a
// gRPC client resumes from its last cursor with no gap and no duplicate,
// though blocks came meanwhile.
func TestConnectCatchUpLiveAndResume(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	tip := e.tip()
	ctx, cancel := context.WithCancel(context.Background())
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	s, err := client.StreamBlocks(ctx, connect.NewRequest(&streamv1.StreamBlocksRequest{From: &streamv1.From{From: &streamv1.From_BlockNum{BlockNum: tip - 300}}}))
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	done := make(chan error, 1)
	go func() { done <- readBlocks(s, c) }()
	c.wait(t, 301)
	e.produce(3)
	got := c.wait(t, 304)
	if want := blocks(tip-300, tip+3); !slices.Equal(got, want) {
		t.Fatalf("first stream: got %v\nwant %v", got, want)
	}
	cursor := c.last()
	cancel()
	<-done
	e.waitSubs(0)
	e.produce(2)

	grpc := streamv1connect.NewStreamServiceClient(h2c(), e.srv.URL, connect.WithGRPC())
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	s2, err := grpc.StreamBlocks(ctx2, connect.NewRequest(&streamv1.StreamBlocksRequest{From: &streamv1.From{From: &streamv1.From_Cursor{Cursor: cursor}}, HeadersOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	c2 := newCollector()
	go func() { _ = readBlocks(s2, c2) }()
	c2.wait(t, 2)
	e.produce(1)
	if got, want := c2.wait(t, 3), blocks(tip+4, tip+6); !slices.Equal(got, want) {
		t.Fatalf("resumed stream: got %v, want %v", got, want)
	}
}

// TestForkAnnounced: when the node moves to another branch the stream
// says it rolled back to the last common block, then sends the new
// branch; a client resuming with a cursor from the old branch is rolled
// back too.
func TestForkAnnounced(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	tip := e.tip()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	s, err := client.StreamBlocks(ctx, connect.NewRequest(&streamv1.StreamBlocksRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	go func() { _ = readBlocks(s, c) }()
	e.waitSubs(1)
	e.produce(3) // tip+1..tip+3
	c.wait(t, 3)
	oldCursor := c.last() // block tip+3 on branch a
	e.forkAt.Store(tip + 2)
	e.produce(1) // the node is on branch b from tip+2: fork found
	e.step()     // the new branch read
	got := c.wait(t, 3+4)
	want := append(blocks(tip+1, tip+3), "fork:"+strconv.FormatUint(tip+1, 10))
	want = append(want, blocks(tip+2, tip+4)...)
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}

	// A client that saw branch a resumes: its block is gone.
	sub, err := e.hub.Subscribe(stream.Start{Cursor: must(stream.DecodeCursor(oldCursor))}, stream.Reversible)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	ev, err := sub.Next(ctx)
	if err != nil || ev.Block != nil || ev.ForkNum >= tip+3 {
		t.Fatalf("resume from an orphaned block: %+v, %v; want a fork below %d", ev, err, tip+3)
	}
	for n := ev.ForkNum + 1; n <= tip+4; n++ {
		ev, err := sub.Next(ctx)
		if err != nil || ev.Block == nil || ev.Block.Num != n {
			t.Fatalf("after the fork: %+v, %v; want block %d", ev, err, n)
		}
	}
}

func must[T any](v T, err error) *T {
	if err != nil {
		panic(err)
	}
	return &v
}

// TestSlowSubscriberLagged: a subscriber more than buffer events behind
// is ended with ErrLagged and the cursor of the last block it got, which
// resumes it with no gap; the hub queues nothing for it meanwhile.
func TestSlowSubscriberLagged(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 5)
	ctx := context.Background()
	sub, err := e.hub.Subscribe(stream.Start{Head: true}, stream.Reversible)
	if err != nil {
		t.Fatal(err)
	}
	e.produce(1)
	first, err := sub.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.produce(10)
	if _, err := sub.Next(ctx); !errors.Is(err, stream.ErrLagged) {
		t.Fatalf("a subscriber 10 blocks behind with buffer 5: %v, want ErrLagged", err)
	}
	place := sub.Place()
	sub.Close()
	if place.Num != first.Block.Num || place.ID != first.Block.ID {
		t.Fatalf("lagged at %+v, want the last block delivered %d", place, first.Block.Num)
	}
	again, err := e.hub.Subscribe(stream.Start{Cursor: &place}, stream.Reversible)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for n := place.Num + 1; n <= e.tip(); n++ {
		ev, err := again.Next(ctx)
		if err != nil || ev.Block == nil || ev.Block.Num != n {
			t.Fatalf("resume after lag: %+v, %v, want block %d", ev, err, n)
		}
	}
}

// TestThousandSubscribersOneRead: 1,000 subscribers (and a Connect
// client) cost one upstream block_api.get_block per block.
func TestThousandSubscribersOneRead(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const subs, produced = 1000, 10
	var wg sync.WaitGroup
	counts := make([]int, subs)
	for i := range subs {
		sub, err := e.hub.Subscribe(stream.Start{Head: true}, stream.Reversible)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Close()
			for counts[i] < produced {
				if _, err := sub.Next(ctx); err != nil {
					return
				}
				counts[i]++
			}
		}()
	}
	before := e.node.Calls("block_api.get_block")
	for range produced {
		e.produce(1)
	}
	wg.Wait()
	for i, n := range counts {
		if n != produced {
			t.Fatalf("subscriber %d got %d blocks, want %d", i, n, produced)
		}
	}
	if got := e.node.Calls("block_api.get_block") - before; got != produced {
		t.Fatalf("%d upstream get_block calls for %d blocks and %d subscribers, want %d", got, produced, subs, produced)
	}
}

// sseEvent is one Server-Sent Event.
type sseEvent struct{ id, event, data string }

// readSSE reads events from an SSE response into ch.
func readSSE(resp *http.Response, ch chan<- sseEvent) {
	defer close(ch)
	sc := bufio.NewScanner(resp.Body)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.event != "" {
				ch <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[6:]
		}
	}
}

// TestSSEResumeWithLastEventID: the SSE stream's ids are cursors; a
// client reconnecting with Last-Event-ID continues with no gap and no
// duplicate.
func TestSSEResumeWithLastEventID(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	tip := e.tip()
	get := func(lastID string) (chan sseEvent, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+"/stream/blocks?from="+strconv.FormatUint(tip-2, 10)+"&headers_only=true", nil)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			t.Fatalf("status %d, content type %q", resp.StatusCode, ct)
		}
		ch := make(chan sseEvent, 100)
		go readSSE(resp, ch)
		return ch, cancel
	}
	next := func(ch chan sseEvent) (uint64, sseEvent) {
		ev, ok := <-ch
		if !ok {
			t.Fatal("the stream ended")
		}
		var m stream.Message
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil || m.Cursor != ev.id || ev.event != "block" {
			t.Fatalf("event %+v: %v", ev, err)
		}
		var b struct {
			Num uint64 `json:"block_num"`
		}
		_ = json.Unmarshal(m.Block, &b)
		return b.Num, ev
	}
	ch, cancel := get("")
	var last sseEvent
	for n := tip - 2; n <= tip; n++ {
		var got uint64
		if got, last = next(ch); got != n {
			t.Fatalf("block %d, want %d", got, n)
		}
	}
	cancel()
	e.waitSubs(0)
	e.produce(2)
	ch, cancel = get(last.id)
	defer cancel()
	for n := tip + 1; n <= tip+2; n++ {
		if got, _ := next(ch); got != n {
			t.Fatalf("after Last-Event-ID: block %d, want %d", got, n)
		}
	}
}

// TestWebSocketSubscriptions: the JSON-RPC subscription API: subscribe
// answers an id, notifications carry it and the cursor, unsubscribe ends
// it; operations are filtered and positioned.
func TestWebSocketSubscriptions(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	tip := e.tip()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.srv.URL, "http")+"/stream/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	send := func(s string) {
		if err := c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	type note struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Method string          `json:"method"`
		Params struct {
			Subscription string         `json:"subscription"`
			Result       stream.Message `json:"result"`
		} `json:"params"`
	}
	read := func() note {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var n note
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"stream":"blocks","from":"` + strconv.FormatUint(tip-1, 10) + `","headers_only":true}}`)
	resp := read()
	var subID string
	if err := json.Unmarshal(resp.Result, &subID); err != nil || string(resp.ID) != "1" || subID == "" {
		t.Fatalf("subscribe answer %+v", resp)
	}
	for _, want := range []uint64{tip - 1, tip} {
		n := read()
		cur, err := stream.DecodeCursor(n.Params.Result.Cursor)
		if n.Method != "subscription" || n.Params.Subscription != subID || err != nil || cur.Num != want {
			t.Fatalf("notification %+v (cursor %+v, %v), want block %d", n, cur, err, want)
		}
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"unsubscribe","params":["` + subID + `"]}`)
	if n := read(); string(n.ID) != "2" || string(n.Result) != "true" {
		t.Fatalf("unsubscribe answer %+v", n)
	}
	e.waitSubs(0)

	// Operations of a past block with transactions, filtered by type.
	var num uint32
	for _, b := range e.node.BlocksWithTransactions() {
		if uint64(b) < tip-300 {
			num = b
		}
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"subscribe","params":{"stream":"operations","from":"` + strconv.Itoa(int(num)) + `","mode":"reversible"}}`)
	read()
	n := read()
	op := n.Params.Result.Operation
	if n.Params.Result.Kind != "operation" || op == nil || op.BlockNum != uint64(num) || op.Position != 0 || op.TrxID == "" {
		t.Fatalf("first operation of block %d: %+v", num, n.Params.Result)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"nope"}`)
	for {
		if n := read(); string(n.ID) == "4" {
			break
		}
	}
}

// TestOperationsResumeMidBlock: an operation cursor resumes after the
// operation, inside its block, over Connect; a bad cursor is
// invalid_argument.
func TestOperationsResumeMidBlock(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	withTxs := e.node.BlocksWithTransactions()
	num := withTxs[len(withTxs)-3] // three blocks with operations from here
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	read := func(from *streamv1.From, n int) []*streamv1.StreamOperationsResponse {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, err := client.StreamOperations(ctx, connect.NewRequest(&streamv1.StreamOperationsRequest{From: from}))
		if err != nil {
			t.Fatal(err)
		}
		var out []*streamv1.StreamOperationsResponse
		for len(out) < n && s.Receive() {
			out = append(out, s.Msg())
		}
		if len(out) < n {
			t.Fatalf("%d messages: %v", len(out), s.Err())
		}
		return out
	}
	all := read(&streamv1.From{From: &streamv1.From_BlockNum{BlockNum: uint64(num)}}, 3)
	resumed := read(&streamv1.From{From: &streamv1.From_Cursor{Cursor: all[0].GetCursor()}}, 2)
	for i, m := range resumed {
		if a, b := m.GetOperation(), all[i+1].GetOperation(); a.GetBlockNum() != b.GetBlockNum() || a.GetPosition() != b.GetPosition() {
			t.Fatalf("resumed op %d at %d/%d, want %d/%d", i, a.GetBlockNum(), a.GetPosition(), b.GetBlockNum(), b.GetPosition())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, _ := client.StreamOperations(ctx, connect.NewRequest(&streamv1.StreamOperationsRequest{From: &streamv1.From{From: &streamv1.From_Cursor{Cursor: "nope"}}}))
	for s.Receive() {
	}
	if connect.CodeOf(s.Err()) != connect.CodeInvalidArgument {
		t.Fatalf("bad cursor: %v", s.Err())
	}
}
