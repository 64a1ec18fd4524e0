package backend_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/backend"
)

// TestCallResultPrefix checks Request.ResultPrefix: the result comes in a
// buffer of its own after a copy of the prefix, exactly as without one;
// error answers and calls without a prefix have no Buffer.
func TestCallResultPrefix(t *testing.T) {
	t.Parallel()
	big := `["` + strings.Repeat("x", 3<<20) + `"]`
	node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		switch req.Method {
		case "fail":
			answer(w, req.ID, "error", `{"code":-32000,"message":"no"}`)
		case "big":
			answer(w, req.ID, "result", big)
		default:
			answer(w, req.ID, "result", `{"head_block_number":7}`)
		}
	})
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	testCases := []struct {
		name, method, prefix, result string
		wantBuffer                   bool
	}{
		{"small result", "m", "appbase.x.m", `{"head_block_number":7}`, true},
		{"large result", "big", "appbase.x.big", big, true},
		{"no prefix", "m", "", `{"head_block_number":7}`, false},
		{"error answer", "fail", "appbase.x.fail", "", false},
	}
	for _, tc := range testCases {
		resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: tc.method, ResultPrefix: tc.prefix})
		if err != nil {
			t.Fatalf("%s: Call: %v", tc.name, err)
		}
		mustBytes(t, tc.name+": result", resp.Result, tc.result)
		if !tc.wantBuffer {
			if resp.Buffer != nil {
				t.Errorf("%s: Buffer %q, want none", tc.name, resp.Buffer[:min(len(resp.Buffer), 40)])
			}
			continue
		}
		if string(resp.Buffer[:len(tc.prefix)]) != tc.prefix || len(resp.Buffer) != len(tc.prefix)+len(tc.result) ||
			&resp.Buffer[len(tc.prefix)] != &resp.Result[0] {
			t.Errorf("%s: Buffer does not hold the prefix followed by Result", tc.name)
		}
		if cap(resp.Result) != len(resp.Result) {
			t.Errorf("%s: cap(Result) = %d > len %d: an append would write into the buffer", tc.name, cap(resp.Result), len(resp.Result))
		}
	}
}
