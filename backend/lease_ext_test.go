package backend_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/backend"
)

// TestPooledResult: a result asked for with Request.PooledResult comes in the pooled buffer
// it was read into (Response.Lease), unless it must be a buffer of its own:
// with a ResultPrefix (the cache takes it over), an error answer, or an
// answer longer than the pooled buffer (read in chunks, then joined).
func TestPooledResult(t *testing.T) {
	t.Parallel()
	long := `"` + strings.Repeat("y", 40<<10) + `"`
	node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		switch req.Method {
		case "fail":
			answer(w, req.ID, "error", `{"code":-32000,"message":"no"}`)
		case "long": // no Content-Length: sent chunked
			answer(w, req.ID, "result", long)
		default:
			answer(w, req.ID, "result", `[`+string(req.Params)+`]`)
		}
	})
	pool := newPool(t, backend.Options{}, map[string]string{"n": node.srv.URL})
	for _, tc := range []struct {
		name   string
		req    backend.Request
		lent   bool
		result string
	}{
		{"lent", backend.Request{Method: "m", Params: []byte(`1`), PooledResult: true}, true, `[1]`},
		{"not asked", backend.Request{Method: "m", Params: []byte(`2`)}, false, `[2]`},
		{"with a prefix", backend.Request{Method: "m", Params: []byte(`3`), PooledResult: true, ResultPrefix: "key"}, false, `[3]`},
		{"error answer", backend.Request{Method: "fail", PooledResult: true}, false, ``},
		{"longer than the pooled buffer", backend.Request{Method: "long", PooledResult: true}, false, long},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := pool.Call(context.Background(), "n", tc.req)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if (resp.Lease != nil) != tc.lent {
				t.Errorf("lent %v, want %v", resp.Lease != nil, tc.lent)
			}
			mustBytes(t, "result", resp.Result, tc.result)
			if tc.req.ResultPrefix != "" {
				mustBytes(t, "buffer", resp.Buffer, tc.req.ResultPrefix+tc.result)
			}
			if tc.req.Method == "fail" && resp.Error == nil {
				t.Error("the error answer was lost")
			}
			resp.Lease.Release()
		})
	}
}

// TestLentResultsStayPut: results given back are reused for later answers,
// and a result not given back is never overwritten by them.
func TestLentResultsStayPut(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, req rpcRequest) {
		answer(w, req.ID, "result", `[`+string(req.Params)+`]`)
	})
	pool := newPool(t, backend.Options{}, map[string]string{"n": node.srv.URL})
	call := func(i int) backend.Response {
		t.Helper()
		resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Params: []byte(fmt.Sprint(i)), PooledResult: true})
		if err != nil || resp.Lease == nil {
			t.Fatalf("call %d: lease %v, err %v", i, resp.Lease, err)
		}
		mustBytes(t, "result", resp.Result, fmt.Sprintf("[%d]", i))
		return resp
	}
	kept := call(0)
	for i := 1; i <= 20; i++ {
		resp := call(i)
		resp.Lease.Release()
		resp.Lease.Release() // a second release changes nothing
	}
	mustBytes(t, "the result kept", kept.Result, "[0]")
	kept.Lease.Release()
}
