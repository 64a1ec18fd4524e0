package server

import (
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hivegate/hivegate/bench/fakenode"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/server/transcode"
)

// liveHeap returns HeapAlloc after two full collections (the second
// frees what sync.Pools kept through the first).
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestHeapSize decodes hivesim's answers (ListAccounts of 1,000 accounts,
// the dynamic global properties, a block with transactions) into their
// typed messages and into JsonRpcService's structpb.Value, measures what
// the messages hold on the heap (runtime.MemStats) and checks heapSize
// against it: never below (the cache budget would be exceeded), at most
// twice (the budget would be wasted). It does not run in parallel: it
// measures the heap.
func TestHeapSize(t *testing.T) {
	a, err := fakenode.NewAnswers(fakenode.Options{Accounts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	testCases := []struct {
		name string
		json []byte
		msg  func() proto.Message
	}{
		{"ListAccounts 1000", a.ListAccounts, func() proto.Message { return &dbv1.ListAccountsResponse{} }},
		{"GetDynamicGlobalProperties", a.DatabaseDGPO, func() proto.Message { return &dbv1.GetDynamicGlobalPropertiesResponse{} }},
		{"condenser GetBlock", a.Block, func() proto.Message { return &condv1.GetBlockResponse{} }},
		{"Value of ListAccounts 1000", a.ListAccounts, func() proto.Message { return &structpb.Value{} }},
		{"Value of a block", a.Block, func() proto.Message { return &structpb.Value{} }},
		{"Value of the properties", a.DatabaseDGPO, func() proto.Message { return &structpb.Value{} }},
	}
	for _, tc := range testCases {
		// Enough copies for about 8 MB of JSON, so that small messages
		// stand out of the collector's noise.
		n := min(max(2, (8<<20)/len(tc.json)), 500)
		if _, err := transcode.Unmarshal(tc.json, tc.msg()); err != nil { // the codec's plans are made once
			t.Fatalf("%s: %v", tc.name, err)
		}
		msgs := make([]proto.Message, n)
		before := liveHeap()
		for i := range msgs {
			msgs[i] = tc.msg()
			if _, err := transcode.Unmarshal(tc.json, msgs[i]); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		measured := float64(liveHeap()-before) / float64(n)
		est := float64(heapSize(msgs[0].ProtoReflect()))
		t.Logf("%s: JSON %d bytes, proto.Size %d, heap %.0f, estimate %.0f (%.2f×)",
			tc.name, len(tc.json), proto.Size(msgs[0]), measured, est, est/measured)
		if est < measured || est > 2*measured {
			t.Errorf("%s: estimate %.0f bytes, measured %.0f: want between 1 and 2 times", tc.name, est, measured)
		}
		runtime.KeepAlive(msgs)
	}
}

// BenchmarkHeapSize compares the estimate of a 1,000-account page's heap
// size with decoding the page: the estimate is made once per cache entry,
// on the call that decodes it.
func BenchmarkHeapSize(b *testing.B) {
	a, err := fakenode.NewAnswers(fakenode.Options{Accounts: 1000})
	if err != nil {
		b.Fatal(err)
	}
	typed, value := &dbv1.ListAccountsResponse{}, &structpb.Value{}
	for _, m := range []proto.Message{typed, value} {
		if _, err := transcode.Unmarshal(a.ListAccounts, m); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("heapSize", func(b *testing.B) {
		for b.Loop() {
			heapSize(typed.ProtoReflect())
		}
	})
	b.Run("heapSize/structpb", func(b *testing.B) {
		for b.Loop() {
			heapSize(value.ProtoReflect())
		}
	})
	b.Run("proto.Size", func(b *testing.B) {
		for b.Loop() {
			proto.Size(typed)
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := transcode.Unmarshal(a.ListAccounts, &dbv1.ListAccountsResponse{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
