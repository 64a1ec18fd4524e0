package backend_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// TestWSAnswerTwice shows that a second answer to a call already answered
// is refused: it completes no other call, and the connection it came on is
// dropped (the next call opens a new one). Each call gets its own answer.
func TestWSAnswerTwice(t *testing.T) {
	t.Parallel()
	node := newWSNode(t, func(_ int64, req rpcRequest) (string, wsAction) {
		a := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + string(req.Params) + `}`
		return a + "\n" + a, wsAnswerLines
	})
	pool := newPool(t, backend.Options{WSConnsPerNode: 1}, map[string]string{"hived": node.url()})
	const calls = 5
	for i := range calls {
		params := `[` + strconv.Itoa(i) + `]`
		resp, err := pool.Call(callCtx, "hived", backend.Request{Method: "m", Params: json.RawMessage(params), Retries: 2, Timeout: 5 * time.Second})
		if err != nil || string(resp.Result) != params {
			t.Fatalf("call %d: %s, %v; want its own answer", i, resp.Result, err)
		}
		// The duplicate has arrived (or is arriving): wait for the drop.
		want := int64(i + 1)
		waitFor(t, "the connection to be dropped", func() bool { return node.conns.Load() > want || openConns(node) == 0 })
	}
	if got := node.conns.Load(); got < calls {
		t.Errorf("%d connections for %d calls answered twice, want one each (dropped after the duplicate)", got, calls)
	}
}

// openConns returns the node's open connections.
func openConns(n *wsNode) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.open)
}
