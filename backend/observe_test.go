package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// headerNode answers every JSON-RPC request with result true and records
// the headers of the requests it received.
type headerNode struct {
	srv     *httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newHeaderNode(t *testing.T, status int) *headerNode {
	t.Helper()
	n := &headerNode{}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		n.mu.Lock()
		n.headers = append(n.headers, r.Header.Clone())
		n.mu.Unlock()
		if status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &req)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":true,"id":` + string(req.ID) + `}`))
	}))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *headerNode) last() http.Header {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.headers[len(n.headers)-1]
}

// observedCall is what a recordingObserver saw of one call.
type observedCall struct {
	backend, method string
	resp            backend.Response
	err             error
}

// recordingObserver records the calls it is told about and adds a header
// to each.
type recordingObserver struct {
	mu    sync.Mutex
	calls []observedCall
}

func (o *recordingObserver) CallStarted(ctx context.Context, name string, req backend.Request) (context.Context, func(backend.Response, error)) {
	ctx = backend.WithHeader(ctx, "x-observed", req.Method)
	return ctx, func(resp backend.Response, err error) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.calls = append(o.calls, observedCall{name, req.Method, resp, err})
	}
}

// TestObserver shows Options.Observer is told about every call, once, with
// what Call returns, and that the context it returns is the call's.
func TestObserver(t *testing.T) {
	t.Parallel()
	ok, failing := newHeaderNode(t, http.StatusOK), newHeaderNode(t, http.StatusBadGateway)
	obs := &recordingObserver{}
	opts := backend.DefaultOptions()
	opts.HealthInterval = 0
	opts.Observer = obs
	p, err := backend.New(map[string]string{"ok": ok.srv.URL, "failing": failing.srv.URL}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	ctx := context.Background()
	resp, err := p.Call(ctx, "ok", backend.Request{Method: "a.b", Timeout: 5 * time.Second})
	if err != nil || string(resp.Result) != "true" {
		t.Fatalf("call: %v %s", err, resp.Result)
	}
	_, ferr := p.Call(ctx, "failing", backend.Request{Method: "c.d", Timeout: 5 * time.Second, Retries: 1})
	if ferr == nil {
		t.Fatal("a backend answering 502 did not fail")
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.calls) != 2 {
		t.Fatalf("observer told about %d calls, want 2", len(obs.calls))
	}
	first, second := obs.calls[0], obs.calls[1]
	if first.backend != "ok" || first.method != "a.b" || first.err != nil || string(first.resp.Result) != "true" || first.resp.Attempts != 1 {
		t.Errorf("first call observed as %+v", first)
	}
	if second.backend != "failing" || !errors.Is(second.err, ferr) || second.resp.Attempts != 2 {
		t.Errorf("second call observed as %+v (err %v), want the failure after 2 attempts", second, ferr)
	}
	if got := ok.last().Get("X-Observed"); got != "a.b" {
		t.Errorf("the backend received X-Observed %q, want the header the observer added", got)
	}
}

// TestWithHeader shows the headers a context adds to upstream requests:
// several of them, never replacing the pool's own.
func TestWithHeader(t *testing.T) {
	t.Parallel()
	n := newHeaderNode(t, http.StatusOK)
	opts := backend.DefaultOptions()
	opts.HealthInterval = 0
	opts.UserAgent = "hivegate-test"
	p, err := backend.New(map[string]string{"n": n.srv.URL}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	testCases := []struct {
		name string
		ctx  context.Context
		want map[string]string
	}{
		{"none", context.Background(), map[string]string{"X-Request-Id": "", "User-Agent": "hivegate-test"}},
		{"request id", backend.WithHeader(context.Background(), "x-request-id", "abc"), map[string]string{"X-Request-Id": "abc"}},
		{
			"two, and an attempt to replace the pool's own",
			backend.WithHeader(backend.WithHeader(backend.WithHeader(context.Background(), "X-Request-Id", "r1"), "traceparent", "00-1-2-01"), "User-Agent", "evil"),
			map[string]string{"X-Request-Id": "r1", "Traceparent": "00-1-2-01", "User-Agent": "hivegate-test"},
		},
	}
	for _, tc := range testCases {
		if _, err := p.Call(tc.ctx, "n", backend.Request{Method: "a.b", Timeout: 5 * time.Second}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		h := n.last()
		for k, v := range tc.want {
			if got := strings.Join(h.Values(k), ","); got != v {
				t.Errorf("%s: backend received %s %q, want %q", tc.name, k, got, v)
			}
		}
	}
}
