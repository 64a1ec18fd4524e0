package stream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/hivetx"

	streamv1 "github.com/hivegate/hivegate/gen/hive/stream/v1"
	"github.com/hivegate/hivegate/gen/hive/stream/v1/streamv1connect"
	"github.com/hivegate/hivegate/stream"
)

// TestIrreversibleMode: an irreversible stream delivers a block only once
// the gateway's LIB tracker (what the nodes agree on) passes it.
func TestIrreversibleMode(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.gw.Start(ctx) // the LIB tracker
	libNow := func() uint64 {
		e.step()
		_, lib := e.hub.Tip()
		return lib
	}
	waitLIB := func(want uint64) {
		deadline := time.Now().Add(15 * time.Second)
		for libNow() < want {
			if time.Now().After(deadline) {
				t.Fatalf("the LIB stays below %d", want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitLIB(1)
	_, lib := e.hub.Tip()
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	s, err := client.StreamBlocks(ctx, connect.NewRequest(&streamv1.StreamBlocksRequest{Mode: streamv1.Mode_MODE_IRREVERSIBLE, HeadersOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	go func() { _ = readBlocks(s, c) }()
	e.waitSubs(1)
	e.produce(2)
	waitLIB(lib + 2)
	if got, want := c.wait(t, 2), blocks(lib+1, lib+2); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("irreversible stream: %v, want %v", got, want)
	}
	if tip := e.tip(); tip <= lib+2 {
		t.Fatalf("tip %d: the test needs reversible blocks above the LIB", tip)
	}
}

// TestMaxSubscribers: streams.max_subscribers refuses one more
// subscriber, with resource_exhausted (Connect) or 429 (SSE).
func TestMaxSubscribers(t *testing.T) {
	t.Parallel()
	e := newChainEnvWith(t, 50, "  max_subscribers: 1\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	first, err := client.StreamBlocks(ctx, connect.NewRequest(&streamv1.StreamBlocksRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for first.Receive() {
		}
	}()
	e.waitSubs(1)
	second, err := client.StreamBlocks(ctx, connect.NewRequest(&streamv1.StreamBlocksRequest{}))
	if err == nil {
		for second.Receive() {
		}
		err = second.Err()
	}
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("second subscriber: %v, want resource_exhausted", err)
	}
	resp, err := http.Get(e.srv.URL + "/stream/blocks")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("SSE subscriber over the limit: %d, want 429", resp.StatusCode)
	}
}

// TestStreamsDisabled: streams.enabled false serves no stream.
func TestStreamsDisabled(t *testing.T) {
	t.Parallel()
	e := newChainEnvWith(t, 50, "  enabled: false\n")
	if e.gw.StreamHub() != nil {
		t.Fatal("a hub with streams off")
	}
	client := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL)
	s, err := client.StreamBlocks(context.Background(), connect.NewRequest(&streamv1.StreamBlocksRequest{}))
	if err == nil {
		for s.Receive() {
		}
		err = s.Err()
	}
	if err == nil {
		t.Fatal("StreamBlocks served with streams off")
	}
	resp, err := http.Get(e.srv.URL + "/stream/blocks")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		t.Fatal("an event stream with streams off")
	}
}

// TestSSEWithCurl: curl reads the SSE stream; ids are cursors.
func TestSSEWithCurl(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	e := newChainEnv(t, 50)
	tip := e.tip()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, curl, "-sN", e.srv.URL+"/stream/blocks?from="+strconv.FormatUint(tip-1, 10)+"&headers_only=true")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	var ids []stream.Cursor
	for len(ids) < 2 && sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			c, err := stream.DecodeCursor(id)
			if err != nil {
				t.Fatalf("id %q: %v", id, err)
			}
			ids = append(ids, c)
		}
	}
	if len(ids) != 2 || ids[0].Num != tip-1 || ids[1].Num != tip {
		t.Fatalf("curl read cursors %+v, want blocks %d and %d", ids, tip-1, tip)
	}
}

// TestResumeOnAnotherReplica: a cursor from one gateway resumes on
// another (its own follower, started later) with no gap and no duplicate.
func TestResumeOnAnotherReplica(t *testing.T) {
	t.Parallel()
	a := newChainEnv(t, 50)
	tip := a.tip()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := streamv1connect.NewStreamServiceClient(http.DefaultClient, a.srv.URL).StreamBlocks(ctx,
		connect.NewRequest(&streamv1.StreamBlocksRequest{From: &streamv1.From{From: &streamv1.From_BlockNum{BlockNum: tip - 1}}, HeadersOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	c := newCollector()
	go func() { _ = readBlocks(s, c) }()
	c.wait(t, 2)
	cursor := c.last()
	cancel()
	a.produce(3)
	b := a.replica() // starts at the new head, tip+3
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	s2, err := streamv1connect.NewStreamServiceClient(http.DefaultClient, b.srv.URL).StreamBlocks(ctx2,
		connect.NewRequest(&streamv1.StreamBlocksRequest{From: &streamv1.From{From: &streamv1.From_Cursor{Cursor: cursor}}, HeadersOnly: true}))
	if err != nil {
		t.Fatal(err)
	}
	c2 := newCollector()
	go func() { _ = readBlocks(s2, c2) }()
	c2.wait(t, 3)
	b.produce(1)
	if got, want := c2.wait(t, 4), blocks(tip+1, tip+4); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("resumed on another replica: %v, want %v", got, want)
	}
}

// accountOf is an account o names.
func accountOf(o *streamv1.BlockOperation) string {
	_, name, _ := hivetx.AccountField(json.RawMessage(o.GetOperation().GetValueJson()), func(string, string) bool { return true })
	return name
}

// TestOperationFilters: virtual operations come after the block's
// operations when asked for; filters by type and account select.
func TestOperationFilters(t *testing.T) {
	t.Parallel()
	e := newChainEnv(t, 50)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	withTxs := e.node.BlocksWithTransactions()
	num := uint64(withTxs[len(withTxs)-1])
	read := func(f *streamv1.OperationFilter, n int) []*streamv1.BlockOperation {
		s, err := streamv1connect.NewStreamServiceClient(http.DefaultClient, e.srv.URL).StreamOperations(ctx,
			connect.NewRequest(&streamv1.StreamOperationsRequest{From: &streamv1.From{From: &streamv1.From_BlockNum{BlockNum: num}}, Filter: f}))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var out []*streamv1.BlockOperation
		for len(out) < n && s.Receive() {
			out = append(out, s.Msg().GetOperation())
		}
		if len(out) < n {
			t.Fatalf("%d operations: %v", len(out), s.Err())
		}
		return out
	}
	all := read(&streamv1.OperationFilter{Virtual: true}, 1)
	first := all[0]
	// The block's real operations, then its virtual ones (a producer reward).
	var real []*streamv1.BlockOperation
	for _, o := range read(&streamv1.OperationFilter{Virtual: true}, 8) {
		if o.GetBlockNum() != num {
			break
		}
		real = append(real, o)
	}
	last := real[len(real)-1]
	if !last.GetVirtual() || last.GetTransactionNum() != -1 || last.GetOperation().GetType() != "producer_reward_operation" || first.GetVirtual() {
		t.Fatalf("block %d with virtual operations: first %v, last %v", num, first, last)
	}
	for i, o := range real {
		if o.GetPosition() != uint32(i) {
			t.Fatalf("operation %d at position %d", i, o.GetPosition())
		}
	}
	typ := strings.TrimSuffix(first.GetOperation().GetType(), "_operation")
	for _, o := range read(&streamv1.OperationFilter{Types: []string{typ}, Accounts: []string{"nobody-at-all", accountOf(first)}}, 1) {
		if o.GetOperation().GetType() != first.GetOperation().GetType() || o.GetVirtual() {
			t.Fatalf("filter type %s: got %v", typ, o)
		}
	}
	if got := read(&streamv1.OperationFilter{Types: []string{"producer_reward"}, Virtual: true}, 1)[0]; got.GetBlockNum() != num || !got.GetVirtual() {
		t.Fatalf("producer rewards from block %d: %v", num, got)
	}
}
