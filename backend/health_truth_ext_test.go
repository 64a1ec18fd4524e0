package backend_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// TestHealthAllUnreachable: with every node unreachable, no node is
// reported up or in service, one-node backends included.
func TestHealthAllUnreachable(t *testing.T) {
	t.Parallel()
	pool := newNodesPool(t, backend.Options{}, map[string][]string{
		"hived":    {refusedURL(t)},
		"hivemind": {refusedURL(t), refusedURL(t)},
	})
	pool.Probe(callCtx)
	for _, st := range pool.Nodes() {
		if st.Up || st.InService() {
			t.Errorf("unreachable node reported up or in service: %+v", st)
		}
	}
}

// TestHealthStaleHeadOneNode: the only node of a backend, whose head block
// is a minute old, is reachable but not in service.
func TestHealthStaleHeadOneNode(t *testing.T) {
	t.Parallel()
	now := time.Now()
	stale := newChainNode(t, "stale", honestAt(980, 1000, now)) // block 980: 60 s old
	fresh := newChainNode(t, "fresh", honestAt(1000, 1000, now))
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"stale": {stale.url()}, "fresh": {fresh.url()}})
	pool.Probe(callCtx)
	for _, st := range pool.Nodes() {
		if want := st.Backend == "fresh"; st.InService() != want || !st.Up {
			t.Errorf("%s node: up %v, in service %v; want up, in service %v (%+v)", st.Backend, st.Up, st.InService(), want, st)
		}
	}
}

// fixedClock is a clock tests set by hand.
type fixedClock struct{ t time.Time }

func (c *fixedClock) now() time.Time { return c.t }

// TestHealthMaxHeadAge: MaxHeadAge decides how old a head block may be;
// the reason says how old it is.
func TestHealthMaxHeadAge(t *testing.T) {
	t.Parallel()
	blockTime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		maxAge    time.Duration
		age       time.Duration
		inService bool
	}{
		{"default, 10 s old", 0, 10 * time.Second, true},
		{"default, 20 s old", 0, 20 * time.Second, false},
		{"60 s allowed, 20 s old", time.Minute, 20 * time.Second, true},
		{"60 s allowed, 61 s old", time.Minute, 61 * time.Second, false},
		{"check off, a year old", -1, 365 * 24 * time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := &fixedClock{blockTime.Add(tc.age)}
			n := newChainNode(t, "a", chainClaim{Head: 1000, LIB: 980, Time: blockTime})
			pool := newNodesPool(t, backend.Options{MaxHeadAge: tc.maxAge, Now: clock.now}, map[string][]string{"hived": {n.url()}})
			pool.Probe(callCtx)
			st := pool.Nodes()[0]
			if st.InService() != tc.inService || st.Kind != backend.KindHived || st.Head != 1000 || st.LIB != 980 || !st.HeadTime.Equal(blockTime) {
				t.Fatalf("%+v; want in service %v", st, tc.inService)
			}
			if !tc.inService && st.Reason != "head block 1000 is "+tc.age.String()+" old (max "+max(tc.maxAge, backend.DefaultMaxHeadAge).String()+")" {
				t.Errorf("reason %q", st.Reason)
			}
		})
	}
}

// hivemindNode answers hive.db_head_state with its last block and time as
// hivemind does, and get_dynamic_global_properties with hivemind's error.
func hivemindNode(t testing.TB, block uint64, at time.Time) *fakeNode {
	return newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		if req.Method == "hive.db_head_state" {
			answer(w, req.ID, "result", `{"db_head_block":`+strconv.FormatUint(block, 10)+`,"db_head_time":"`+at.UTC().Format(time.DateTime)+`","db_head_age":1.5}`)
			return
		}
		answer(w, req.ID, "error", `{"code":-32602,"message":"Assert Exception:unknown method: `+req.Method+`"}`)
	})
}

// TestHealthHivemind: a hivemind node is found out by hive.db_head_state
// and judged by the age of the last block it imported (MaxSyncAge).
func TestHealthHivemind(t *testing.T) {
	t.Parallel()
	blockTime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		maxAge    time.Duration
		age       time.Duration
		inService bool
	}{
		{"default, 50 s behind", 0, 50 * time.Second, true},
		{"default, 2 min behind", 0, 2 * time.Minute, false},
		{"5 min allowed, 2 min behind", 5 * time.Minute, 2 * time.Minute, true},
		{"check off, a year behind", -1, 365 * 24 * time.Hour, true},
		{"block time in the future", 0, -time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := &fixedClock{blockTime.Add(tc.age)}
			n := hivemindNode(t, 5000, blockTime)
			pool := newNodesPool(t, backend.Options{MaxSyncAge: tc.maxAge, Now: clock.now}, map[string][]string{"hivemind": {n.srv.URL}})
			pool.Probe(callCtx)
			st := pool.Nodes()[0]
			if st.Kind != backend.KindHivemind || st.Head != 5000 || !st.Up || st.InService() != tc.inService || (st.Reason == "") != tc.inService {
				t.Errorf("%+v; want a hivemind node at 5000, in service %v", st, tc.inService)
			}
		})
	}
}

// hafahNode plays HAfAH: hive_api.get_version names it, and it has the
// block headers up to *head (an empty header after, as HAfAH answers).
func hafahNode(t testing.TB, head uint64) *fakeNode {
	return newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		switch req.Method {
		case "hive_api.get_version":
			answer(w, req.ID, "result", `{"app_name":"PostgRESTHAfAH","commit":"3141b0e6"}`)
		case "block_api.get_block_header":
			var p struct {
				BlockNum uint64 `json:"block_num"`
			}
			if err := jsonUnmarshal(req.Params, &p); err != nil || p.BlockNum == 0 || p.BlockNum > head {
				answer(w, req.ID, "result", `{}`)
				return
			}
			answer(w, req.ID, "result", `{"header":{"previous":"00","timestamp":"2026-01-02T03:04:05","witness":"alice","transaction_merkle_root":"00","extensions":[]}}`)
		default:
			answer(w, req.ID, "error", `{"code":-32601,"message":"Method not found"}`)
		}
	})
}

// TestHealthHAfAH: a HAfAH node is found out by hive_api.get_version and
// judged by whether it has the block the chain (the head the hived nodes
// agree on) had MaxSyncAge ago.
func TestHealthHAfAH(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		hafahHead uint64
		inService bool
	}{
		{"in step", 1000, true},
		{"19 blocks behind", 981, true},
		{"30 blocks behind", 970, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hived := newChainNode(t, "hived", honestAt(1000, 1000, time.Now()))
			hafah := hafahNode(t, tc.hafahHead)
			pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {hived.url()}, "hafah": {hafah.srv.URL}})
			pool.Probe(callCtx)
			pool.Probe(callCtx) // the second judges HAfAH against the agreed head
			var st backend.NodeState
			for _, s := range pool.Nodes() {
				if s.Backend == "hafah" {
					st = s
				}
			}
			if st.Kind != backend.KindHAfAH || st.InService() != tc.inService {
				t.Errorf("%+v; want a HAfAH node in service %v", st, tc.inService)
			}
		})
	}
}

// TestHealthOtherNodes: a node that serves none of the kinds but answers
// JSON-RPC is in service by answering; one that answers no JSON-RPC at
// all (an HTML 404) is reachable but not in service.
func TestHealthOtherNodes(t *testing.T) {
	t.Parallel()
	rpc := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		answer(w, req.ID, "error", `{"code":-32601,"message":"Method not found"}`)
	})
	html := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, r *http.Request, _ rpcRequest) {
		http.NotFound(w, r)
	})
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"rpc": {rpc.srv.URL}, "html": {html.srv.URL}})
	pool.Probe(callCtx)
	for _, st := range pool.Nodes() {
		switch st.Backend {
		case "rpc":
			if st.Kind != backend.KindJSONRPC || !st.InService() {
				t.Errorf("a JSON-RPC node: %+v", st)
			}
		case "html":
			if !st.Up || st.InService() || st.Reason == "" {
				t.Errorf("a node answering HTML: %+v", st)
			}
		}
	}
}

// TestHealthWSNode: a ws:// node is probed over its WebSocket connections
// like an http node: found a hived node, up and in service.
func TestHealthWSNode(t *testing.T) {
	t.Parallel()
	cn := newChainNode(t, "unused", honestAt(1000, 1000, time.Now()))
	ws := newWSNode(t, func(_ int64, req rpcRequest) (string, wsAction) {
		if req.Method == "database_api.get_dynamic_global_properties" {
			return `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + cn.dgpo() + `}`, wsAnswer
		}
		return wsResult(0, req)
	})
	pool := newNodesPool(t, backend.Options{}, map[string][]string{"hived": {ws.url()}})
	pool.Probe(callCtx)
	if st := pool.Nodes()[0]; st.Kind != backend.KindHived || st.Head != 1000 || !st.InService() {
		t.Errorf("%+v; want a hived node at 1000 in service", st)
	}
}
