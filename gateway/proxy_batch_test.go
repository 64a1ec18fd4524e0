package gateway_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/dispatch"
)

// batchOf joins request bodies into a batch.
func batchOf(calls ...string) string { return "[" + strings.Join(calls, ",") + "]" }

func TestProxyBatchOrderAndFailures(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.on("test_api.echo", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		replyResult(w, req, `{"echo":`+string(req.Params)+`}`)
	})
	node.on("test_api.fail", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		replyError(w, req, `{"code":-32003,"message":"Assert Exception:false: nope"}`)
	})
	// The garbage call is routed with retries (flaky_api), so it goes
	// upstream apart from the others: a batch the node answers with
	// garbage is one failed attempt of each of its calls, which the calls
	// without retries would report (backend.CallBatch).
	node.on("flaky_api.garbage", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>bad gateway</html>")
	})
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)

	r := p.post(batchOf(
		call(`1`, "test_api.echo", `["a"]`),
		call(`"two"`, "test_api.fail", `[]`),
		`5`,
		call(`null`, "test_api.echo", `["c"]`),
		call(`4`, "nowhere.method", `[]`),
		`{"jsonrpc":"2.0","id":6,"method":7}`,
		call(`7`, "a..b", `[]`),
		call(`8`, "flaky_api.garbage", `[]`),
		call(`-9`, "test_api.echo", `["last"]`),
	))
	if r.status != http.StatusOK {
		t.Errorf("HTTP %d, want 200", r.status)
	}
	if c := r.header.Get("X-Hivegate-Cache"); c != "" {
		t.Errorf("a batch answer carries X-Hivegate-Cache %q", c)
	}
	got := r.batch(t)
	want := []struct {
		id, result string
		code       int
	}{
		{`1`, `{"echo":["a"]}`, 0},
		{`"two"`, "", -32003},
		{`null`, "", -32600},
		{`null`, `{"echo":["c"]}`, 0},
		{`4`, "", -32601},
		{`6`, "", -32600},
		{`7`, "", -32600},
		{`8`, "", -32012},
		{`-9`, `{"echo":["last"]}`, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d responses, want %d: %s", len(got), len(want), r.body)
	}
	for i, w := range want {
		g := got[i]
		if !bytes.Equal(g.ID, []byte(w.id)) {
			t.Errorf("element %d: id %s, want %s", i, g.ID, w.id)
		}
		if c := g.errCode(t); c != w.code {
			t.Errorf("element %d: code %d, want %d", i, c, w.code)
		}
		if w.result != "" && string(g.Result) != w.result {
			t.Errorf("element %d: result %s, want %s", i, g.Result, w.result)
		}
	}
}

// TestProxyBatchRunsConcurrently shows that with upstream batching off for
// a backend (limits.no_upstream_batch), the elements of a client batch are
// still sent concurrently, one HTTP request each.
func TestProxyBatchRunsConcurrently(t *testing.T) {
	t.Parallel()
	const n = 6
	node := newFakeNode(t)
	// Each request waits until all n have arrived: a gateway that served
	// the batch one element after another would never get there, and every
	// element would fail after hangGuard.
	var arrived atomic.Int64
	all := make(chan struct{})
	node.on("test_api.together", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			replyResult(w, req, string(req.Params))
		case <-time.After(hangGuard):
			replyError(w, req, `{"code":-1,"message":"requests were not concurrent"}`)
		}
	})
	p := startProxy(t, proxyConfig+"limits:\n  no_upstream_batch: [hived]\n", map[string]*fakeNode{"hived": node}, false)
	var calls []string
	for i := range n {
		calls = append(calls, call(strconv.Itoa(i), "test_api.together", fmt.Sprintf("[%d]", i)))
	}
	got := p.post(batchOf(calls...)).batch(t)
	if len(got) != n {
		t.Fatalf("%d responses, want %d", len(got), n)
	}
	for i, g := range got {
		if g.Error != nil || string(g.Result) != fmt.Sprintf("[%d]", i) {
			t.Errorf("element %d: result %s error %s", i, g.Result, g.Error)
		}
	}
	if b := node.batchSizes(); len(b) != 0 {
		t.Errorf("the node got batches %v with upstream batching off", b)
	}
}

func TestProxyBatchSizeLimit(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("test_api.echo", `true`)
	batch := func(n int) string {
		calls := make([]string, n)
		for i := range calls {
			calls[i] = call(strconv.Itoa(i), "test_api.echo", fmt.Sprintf("[%d]", i))
		}
		return batchOf(calls...)
	}
	cases := []struct {
		name   string
		limits string // appended to the config
		ok     int    // the largest batch accepted
	}{
		{"default 50", "", 50},
		{"max_batch_size 3", "limits:\n  max_batch_size: 3\n", 3},
		{"max_batch_size 60", "limits:\n  max_batch_size: 60\n", 60},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := newFakeNode(t)
			node.result("test_api.echo", `true`)
			p := startProxy(t, proxyConfig+tc.limits, map[string]*fakeNode{"hived": node}, false)

			got := p.post(batch(tc.ok)).batch(t)
			if len(got) != tc.ok {
				t.Fatalf("batch of %d: %d responses", tc.ok, len(got))
			}
			for i, g := range got {
				if g.Error != nil {
					t.Errorf("element %d: %s", i, g.Error)
				}
			}
			if c := node.count("test_api.echo"); c != tc.ok {
				t.Errorf("batch of %d made %d upstream calls", tc.ok, c)
			}

			r := p.post(batch(tc.ok + 1))
			one := r.single(t) // one error object, not an array
			if c := one.errCode(t); c != -32013 {
				t.Errorf("batch of %d: code %d, want -32013 (%s)", tc.ok+1, c, r.body)
			}
			if string(one.ID) != "null" {
				t.Errorf("batch error id %s, want null", one.ID)
			}
			if c := node.count("test_api.echo"); c != tc.ok {
				t.Errorf("a refused batch reached the node: %d calls, want %d", c, tc.ok)
			}
		})
	}
}

func TestProxyBatchCacheHits(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("cache_api.no_expire", `{"v":1}`)
	node.result("test_api.echo", `{"v":2}`)
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
	p.post(call(`"fill"`, "cache_api.no_expire", `["k"]`)).single(t)

	// Hits and misses mixed: every element carries its own id, and only the
	// uncached method goes upstream.
	got := p.post(batchOf(
		call(`1`, "cache_api.no_expire", `["k"]`),
		call(`2`, "test_api.echo", `["k"]`),
		call(`"three"`, "cache_api.no_expire", `["k"]`),
		call(`null`, "cache_api.no_expire", `["k"]`),
	)).batch(t)
	wantIDs := []string{`1`, `2`, `"three"`, `null`}
	wantResults := []string{`{"v":1}`, `{"v":2}`, `{"v":1}`, `{"v":1}`}
	if len(got) != len(wantIDs) {
		t.Fatalf("%d responses, want %d", len(got), len(wantIDs))
	}
	for i := range got {
		if string(got[i].ID) != wantIDs[i] || string(got[i].Result) != wantResults[i] {
			t.Errorf("element %d: id %s result %s, want id %s result %s", i, got[i].ID, got[i].Result, wantIDs[i], wantResults[i])
		}
	}
	if c := node.count("cache_api.no_expire"); c != 1 {
		t.Errorf("cached method reached the node %d times, want 1", c)
	}
	// The batch path answers hits in place: the dispatcher reports them as
	// hits, without an upstream call.
	d := p.gw.Dispatcher()
	calls := make([]dispatch.Call, 2)
	for i := range calls {
		if _, err := d.Router().ParseKey(&calls[i].Call, nil, "cache_api.no_expire", []byte(`["k"]`)); err != nil {
			t.Fatal(err)
		}
	}
	results := make([]dispatch.Result, 2)
	d.Serve(context.Background(), nil, calls, results)
	for _, a := range results {
		if a.Cache != dispatch.CacheHit || string(a.Result) != `{"v":1}` {
			t.Errorf("Serve of a batch on a hit: result %+v", a)
		}
	}
	if c := node.count("test_api.echo"); c != 1 {
		t.Errorf("uncached method reached the node %d times, want 1", c)
	}
}
