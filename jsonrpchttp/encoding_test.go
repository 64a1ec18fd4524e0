package jsonrpchttp_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// paramsCaller answers every call with its params as the result and counts
// the calls.
type paramsCaller struct {
	fakeDispatcher
	calls atomic.Int64
}

func newParamsCaller() *paramsCaller {
	c := &paramsCaller{}
	c.answer = func(call *dispatch.Call) dispatch.Result {
		c.calls.Add(1)
		return dispatch.Result{Result: append(json.RawMessage(nil), call.UpstreamParams...)}
	}
	return c
}

// gzipped is b compressed by the standard library's gzip writer (not the
// one the handler decompresses with).
func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRequestContentEncoding sends JSON-RPC bodies with each
// Content-Encoding over real HTTP: a gzip-encoded body is served as the
// same body sent as is; any other encoding is refused with 415, an
// invalid-request error and Accept-Encoding: gzip, before any call; a body
// that says gzip and is not is a parse error.
func TestRequestContentEncoding(t *testing.T) {
	t.Parallel()
	caller := newParamsCaller()
	srv := httptest.NewServer(jsonrpchttp.NewHandler(caller, jsonrpchttp.HandlerOptions{}))
	t.Cleanup(srv.Close)
	single := []byte(`{"jsonrpc":"2.0","id":7,"method":"condenser_api.get_block","params":[1]}`)
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"method":"a.b","params":["x"]},{"jsonrpc":"2.0","id":2,"method":"a.b","params":["y"]}]`)
	good := map[string]string{
		"single": `{"jsonrpc":"2.0","result":[1],"id":7}`,
		"batch":  `[{"jsonrpc":"2.0","result":["x"],"id":1},{"jsonrpc":"2.0","result":["y"],"id":2}]`,
	}
	testCases := []struct {
		name, encoding string
		body           []byte
		status         int
		want           string // the answer, or a part of it
		calls          int64
	}{
		{"as is", "", single, 200, good["single"], 1},
		{"identity", "identity", single, 200, good["single"], 1},
		{"gzip", "gzip", gzipped(t, single), 200, good["single"], 1},
		{"gzip batch", "gzip", gzipped(t, batch), 200, good["batch"], 2},
		{"GZIP spelled loud", " GZIP ", gzipped(t, single), 200, good["single"], 1},
		{"x-gzip", "x-gzip", gzipped(t, single), 200, good["single"], 1},
		{"two gzip members", "gzip", append(gzipped(t, single[:10]), gzipped(t, single[10:])...), 200, good["single"], 1},
		{"br", "br", single, 415, `"code":-32600`, 0},
		{"deflate", "deflate", single, 415, `Content-Encoding \"deflate\" is not supported`, 0},
		{"zstd", "zstd", single, 415, `"code":-32600`, 0},
		{"two codings", "gzip, br", gzipped(t, single), 415, `"code":-32600`, 0},
		{"unknown", "x-hivegate", single, 415, `"code":-32600`, 0},
		{"says gzip, is not", "gzip", single, 200, `"code":-32700,"message":"Parse error: the gzip-encoded body could not be decompressed"`, 0},
		{"truncated gzip", "gzip", gzipped(t, single)[:30], 200, `the gzip-encoded body could not be decompressed`, 0},
	}
	for _, tc := range testCases {
		before := caller.calls.Load()
		req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if tc.encoding != "" {
			req.Header.Set("Content-Encoding", tc.encoding)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(got), tc.want) {
			t.Errorf("%s: HTTP %d %s, want %d with %s", tc.name, resp.StatusCode, got, tc.status, tc.want)
		}
		if tc.status == 415 && resp.Header.Get("Accept-Encoding") != "gzip" {
			t.Errorf("%s: Accept-Encoding %q, want gzip", tc.name, resp.Header.Get("Accept-Encoding"))
		}
		if n := caller.calls.Load() - before; n != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.name, n, tc.calls)
		}
	}
}

// TestGzipBomb sends gzip bodies that decompress to far more than
// max_body_bytes (64 KiB here): a 10 MB run of spaces (10 KB
// compressed) and 1 MB of empty gzip members (nothing decompressed, more
// received than the limit). Both are refused with 413 -32014, and serving
// them allocates a small multiple of the limit, not what they decompress
// to. It does not run in parallel: it measures the heap.
func TestGzipBomb(t *testing.T) {
	const limit = 64 << 10
	h := jsonrpchttp.NewHandler(newParamsCaller(), jsonrpchttp.HandlerOptions{MaxBodyBytes: limit})
	spaces := bytes.Repeat([]byte{' '}, 1<<20)
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, _ = zw.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"a.b","params":[`))
	for range 10 {
		_, _ = zw.Write(spaces)
	}
	_, _ = zw.Write([]byte(`]}`))
	_ = zw.Close()
	empty := gzipped(t, nil)
	members := bytes.Repeat(empty, (1<<20)/len(empty))

	for _, tc := range []struct {
		name string
		body []byte
	}{{"10 MB of spaces", bomb.Bytes()}, {"1 MB of empty members", members}} {
		// The body is sent without a length (as a chunked upload is), so
		// that only reading it can tell its size.
		req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(bytes.NewReader(tc.body)))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "gzip")
		w := httptest.NewRecorder()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		h.ServeHTTP(w, req)
		runtime.ReadMemStats(&after)
		if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), `"code":-32014`) {
			t.Errorf("%s (%d bytes compressed): HTTP %d %s, want 413 -32014", tc.name, len(tc.body), w.Code, w.Body.Bytes())
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes compressed, %d allocated", tc.name, len(tc.body), alloc)
		if alloc > 16*limit {
			t.Errorf("%s: serving it allocated %d bytes, want at most %d", tc.name, alloc, 16*limit)
		}
	}
}
