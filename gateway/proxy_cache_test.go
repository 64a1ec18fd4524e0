package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/dispatch"
)

// cacheHeader is the x-hivegate-cache value of a single request's answer.
func (r reply) cache() string { return r.header.Get("X-Hivegate-Cache") }

// cacheEntry returns the gateway's cache entry for a call, nil if none.
func (p *proxy) cacheEntry(method, params string) *cache.Entry {
	p.t.Helper()
	var raw json.RawMessage
	if params != "" {
		raw = json.RawMessage(params)
	}
	c, err := p.gw.Dispatcher().Router().Parse(method, raw)
	if err != nil {
		p.t.Fatalf("parse %s %s: %v", method, params, err)
	}
	e, ok := p.gw.Dispatcher().Cache().Get(c.Key)
	if !ok {
		return nil
	}
	return e
}

func TestProxyCacheTTLKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method string
		// the cache header of the first, second and third call
		headers [3]string
		// upstream calls after three calls
		calls int
		// expiry of the stored entry: 0 none stored, -1 never, else about this
		expires time.Duration
	}{
		{"seconds", "cache_api.seconds", [3]string{"miss", "hit", "hit"}, 1, time.Second},
		{"namespace default", "cache_api.other", [3]string{"miss", "hit", "hit"}, 1, 60 * time.Second},
		{"NO_CACHE", "cache_api.no_cache", [3]string{"bypass", "bypass", "bypass"}, 3, 0},
		{"NO_EXPIRE", "cache_api.no_expire", [3]string{"miss", "hit", "hit"}, 1, -1},
		// No block number in the call: not cached, as Drone and jussi do.
		{"EXPIRE_IF_REVERSIBLE without a block", "cache_api.reversible", [3]string{"miss", "miss", "miss"}, 3, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newFakeNode(t)
			node.result(tc.method, `{"value":"x"}`)
			p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
			start := time.Now()
			for i, want := range tc.headers {
				r := p.post(call(strconv.Itoa(i), tc.method, `["a"]`))
				got := r.single(t)
				if string(got.Result) != `{"value":"x"}` {
					t.Errorf("call %d: result %s", i, got.Result)
				}
				if r.cache() != want {
					t.Errorf("call %d: x-hivegate-cache %q, want %q", i, r.cache(), want)
				}
				if rt := r.header.Get("X-Hivegate-Route"); rt != "appbase" {
					t.Errorf("call %d: x-hivegate-route %q, want appbase", i, rt)
				}
			}
			if c := node.count(tc.method); c != tc.calls {
				t.Errorf("%d upstream calls, want %d", c, tc.calls)
			}
			e := p.cacheEntry(tc.method, `["a"]`)
			switch {
			case tc.expires == 0:
				if e != nil {
					t.Errorf("entry stored, want none")
				}
			case e == nil:
				t.Errorf("no entry stored")
			case tc.expires < 0:
				if !e.Expires.IsZero() {
					t.Errorf("entry expires at %v, want never", e.Expires)
				}
			default:
				checkExpiry(t, e, start, tc.expires)
			}
		})
	}
}

// checkExpiry checks that e expires ttl after a moment between start and now.
func checkExpiry(t *testing.T, e *cache.Entry, start time.Time, ttl time.Duration) {
	t.Helper()
	if e.Expires.IsZero() {
		t.Errorf("entry never expires, want a TTL of %v", ttl)
		return
	}
	if e.Expires.Before(start.Add(ttl)) || e.Expires.After(time.Now().Add(ttl)) {
		t.Errorf("entry expires %v after the test started, want %v", e.Expires.Sub(start), ttl)
	}
}

func TestProxyCacheExpires(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	n := 0
	var mu sync.Mutex
	node.on("cache_api.seconds", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		mu.Lock()
		n++
		v := n
		mu.Unlock()
		replyResult(w, req, strconv.Itoa(v))
	})
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
	if r := p.post(call("1", "cache_api.seconds", `[]`)); r.cache() != "miss" || string(r.single(t).Result) != "1" {
		t.Fatalf("first call: %q %s", r.cache(), r.body)
	}
	// The TTL is 1 s: poll until the entry is gone, then the next answer is
	// the node's second one.
	var last reply
	waitFor(t, "the 1 s entry to expire", func() bool {
		last = p.post(call("2", "cache_api.seconds", `[]`))
		return last.cache() != "hit"
	})
	if last.cache() != "miss" || string(last.single(t).Result) != "2" {
		t.Errorf("after expiry: %q %s, want a miss with the node's new answer", last.cache(), last.body)
	}
	if c := node.count("cache_api.seconds"); c != 2 {
		t.Errorf("%d upstream calls, want 2", c)
	}
}

func TestProxyCacheParamsKeyTTL(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.on("condenser_api.get_state", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		replyResult(w, req, `{"path":`+string(req.Params)+`}`)
	})
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
	start := time.Now()
	cases := []struct {
		params string
		ttl    time.Duration
	}{
		{`["/trending"]`, 30 * time.Second},   // params=['/trending']: 30
		{`[ "/trending" ]`, 30 * time.Second}, // same JSON value, other spelling
		{`["/hot"]`, time.Second},             // the method-level 1
		{`[]`, time.Second},
	}
	for _, tc := range cases {
		p.post(call("1", "condenser_api.get_state", tc.params)).single(t)
		e := p.cacheEntry("condenser_api.get_state", tc.params)
		if e == nil {
			t.Errorf("%s: not cached", tc.params)
			continue
		}
		checkExpiry(t, e, start, tc.ttl)
	}
	if c := node.count("condenser_api.get_state"); c != 3 {
		t.Errorf("%d upstream calls, want 3 (both /trending spellings share one entry)", c)
	}
	// Observable too: once the 1 s entries are gone, /trending is still a hit.
	waitFor(t, "the 1 s entry to expire", func() bool {
		return p.post(call("2", "condenser_api.get_state", `["/hot"]`)).cache() == "miss"
	})
	if r := p.post(call("3", "condenser_api.get_state", `["/trending"]`)); r.cache() != "hit" {
		t.Errorf("/trending after the 1 s entries expired: %q, want hit", r.cache())
	}
}

func TestProxyErrorsNeverCached(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	const errObj = `{"code":-32003,"message":"Assert Exception:args.limit <= 1000: limit of 5000 is greater than maxmimum allowed"}`
	node.on("cache_api.no_expire", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		replyError(w, req, errObj)
	})
	node.on("cache_api.seconds", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	})
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
	for _, m := range []string{"cache_api.no_expire", "cache_api.seconds"} {
		for i := range 2 {
			got := p.post(call(strconv.Itoa(i), m, `[5000]`)).single(t)
			if got.Error == nil {
				t.Fatalf("%s: want an error, got %s", m, got.Result)
			}
		}
		if c := node.count(m); c != 2 {
			t.Errorf("%s: error answered twice made %d upstream calls, want 2", m, c)
		}
		if p.cacheEntry(m, `[5000]`) != nil {
			t.Errorf("%s: an error was cached", m)
		}
	}
}

// blockingNode returns a node whose method blocks until release is closed
// (or the gateway gives up on it); cancelled is closed when the gateway
// cancels an upstream request.
func blockingNode(t *testing.T, method, result string) (node *fakeNode, release, cancelled chan struct{}) {
	node = newFakeNode(t)
	release, cancelled = make(chan struct{}), make(chan struct{})
	var once sync.Once
	node.on(method, func(w http.ResponseWriter, r *http.Request, req nodeRequest) {
		select {
		case <-release:
			replyResult(w, req, result)
		case <-r.Context().Done():
			once.Do(func() { close(cancelled) })
		case <-time.After(3 * hangGuard):
		}
	})
	return node, release, cancelled
}

func TestProxyCoalescing(t *testing.T) {
	t.Parallel()
	const method, result = "cache_api.no_expire", `{"coalesced":"once"}`

	t.Run("one upstream call for concurrent misses", func(t *testing.T) {
		t.Parallel()
		const clients = 20
		node, release, _ := blockingNode(t, method, result)
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		replies := make([]reply, clients)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() { replies[i] = p.post(call(strconv.Itoa(i), method, `["same"]`)) })
		}
		waitFor(t, "every client to wait on one upstream call", func() bool {
			return p.gw.Dispatcher().Flights().Waiters == clients
		})
		close(release)
		wg.Wait()
		headers := map[string]int{}
		for i, r := range replies {
			got := r.single(t)
			if string(got.Result) != result || string(got.ID) != strconv.Itoa(i) {
				t.Errorf("client %d: id %s result %s", i, got.ID, got.Result)
			}
			headers[r.cache()]++
		}
		if headers["miss"] != 1 || headers["coalesced"] != clients-1 {
			t.Errorf("x-hivegate-cache counts %v, want 1 miss and %d coalesced", headers, clients-1)
		}
		if c := node.count(method); c != 1 {
			t.Errorf("%d upstream calls, want 1", c)
		}
		if r := p.post(call(`"x"`, method, `["same"]`)); r.cache() != "hit" {
			t.Errorf("after the flight: %q, want hit (HTTP %d %s)", r.cache(), r.status, r.body)
		}
	})

	t.Run("a client that leaves does not break the others", func(t *testing.T) {
		t.Parallel()
		const clients, leaving = 20, 5
		node, release, cancelled := blockingNode(t, method, result)
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		replies := make([]reply, clients)
		var wg sync.WaitGroup
		cancels := make([]context.CancelFunc, leaving)
		for i := range clients {
			ctx := context.Background()
			if i < leaving {
				ctx, cancels[i] = context.WithCancel(ctx)
			}
			wg.Go(func() { replies[i] = p.postCtx(ctx, call(strconv.Itoa(i), method, `["leave"]`)) })
		}
		waitFor(t, "every client to wait", func() bool { return p.gw.Dispatcher().Flights().Waiters == clients })
		for _, c := range cancels {
			c()
		}
		waitFor(t, "the leaving clients to stop waiting", func() bool {
			return p.gw.Dispatcher().Flights().Waiters == clients-leaving
		})
		close(release)
		wg.Wait()
		for i := leaving; i < clients; i++ {
			if got := replies[i].single(t); string(got.Result) != result {
				t.Errorf("client %d: %s", i, replies[i].body)
			}
		}
		select {
		case <-cancelled:
			t.Errorf("the upstream call was cancelled while clients still waited")
		default:
		}
		if c := node.count(method); c != 1 {
			t.Errorf("%d upstream calls, want 1", c)
		}
	})

	t.Run("NO_CACHE calls are not coalesced", func(t *testing.T) {
		t.Parallel()
		const clients = 3
		node := newFakeNode(t)
		// Each request waits until every client's request has reached the
		// node: coalescing would leave it waiting, and fail.
		var arrived atomic.Int64
		all := make(chan struct{})
		node.on("cache_api.no_cache", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
			if arrived.Add(1) == clients {
				close(all)
			}
			select {
			case <-all:
				replyResult(w, req, `"fresh"`)
			case <-time.After(hangGuard):
				replyError(w, req, `{"code":-1,"message":"NO_CACHE calls were coalesced"}`)
			}
		})
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				r := p.post(call(strconv.Itoa(i), "cache_api.no_cache", `["same"]`))
				if got := r.single(t); got.Error != nil || r.cache() != "bypass" {
					t.Errorf("client %d: %q %s", i, r.cache(), r.body)
				}
			})
		}
		wg.Wait()
		if c := node.count("cache_api.no_cache"); c != clients {
			t.Errorf("%d upstream calls, want %d", c, clients)
		}
	})

	t.Run("the upstream call ends when every client has left", func(t *testing.T) {
		t.Parallel()
		const clients = 3
		node, _, cancelled := blockingNode(t, method, result)
		p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() { p.postCtx(ctx, call(strconv.Itoa(i), method, `["gone"]`)) })
		}
		waitFor(t, "every client to wait", func() bool { return p.gw.Dispatcher().Flights().Waiters == clients })
		waitFor(t, "the upstream request to reach the node", func() bool { return node.count(method) == 1 })
		cancel()
		select {
		case <-cancelled:
		case <-time.After(hangGuard):
			t.Errorf("the node's request context was not cancelled after every client left")
		}
		wg.Wait()
		waitFor(t, "no flight left", func() bool { return p.gw.Dispatcher().Flights() == (dispatch.FlightStats{}) })
	})
}

// blockID is the 40-hex block id of block n: the block number in hex, then
// filler.
func blockID(n uint64) string { return fmt.Sprintf("%08x%032x", n, n*7919) }

// blockJSON is a condenser_api-style block; id is its block_id's number.
func blockJSON(n, id uint64) string {
	return fmt.Sprintf(`{"previous":%q,"timestamp":"2016-03-24T16:05:00","witness":"initminer","transaction_merkle_root":"0000000000000000000000000000000000000000","extensions":[],"witness_signature":"1f","transactions":[],"block_id":%q,"signing_key":"STM8GC13uCZbP44HzMLV6zPZGwVQ8Nt4Kji8PapsPiNq1BK153XTX","transaction_ids":[]}`,
		blockID(n-1), blockID(id))
}

// blockNode answers condenser_api.get_block [n] and block_api.get_block
// {"block_num": n} like hived, except for the blocks in missing (null /
// {}) and wrong (a block with another block's id).
func blockNode(t *testing.T, missing, wrong map[uint64]bool) *fakeNode {
	node := newFakeNode(t)
	answer := func(n uint64) string {
		switch {
		case missing[n]:
			return "null"
		case wrong[n]:
			return blockJSON(n, n+1)
		}
		return blockJSON(n, n)
	}
	node.on("condenser_api.get_block", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		var args []uint64
		if json.Unmarshal(req.Params, &args) != nil || len(args) != 1 {
			replyError(w, req, `{"code":-32000,"message":"Parse Error:Couldn't parse uint64_t"}`)
			return
		}
		replyResult(w, req, answer(args[0]))
	})
	node.on("block_api.get_block", func(w http.ResponseWriter, _ *http.Request, req nodeRequest) {
		var args struct {
			BlockNum uint64 `json:"block_num"`
		}
		if json.Unmarshal(req.Params, &args) != nil {
			replyError(w, req, `{"code":-32000,"message":"Parse Error:Couldn't parse uint64_t"}`)
			return
		}
		if a := answer(args.BlockNum); a != "null" {
			replyResult(w, req, `{"block":`+a+`}`)
			return
		}
		replyResult(w, req, `{}`)
	})
	return node
}

func TestProxyIrreversibility(t *testing.T) {
	t.Parallel()
	const lib = 1000
	node := blockNode(t, map[uint64]bool{5000: true}, map[uint64]bool{777: true})
	node.lib.Store(lib)
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, false)

	// Before any get_dynamic_global_properties the LIB is unknown and every
	// block counts as reversible, even one far below the real LIB.
	start := time.Now()
	p.post(call("1", "condenser_api.get_block", `[10]`)).single(t)
	if e := p.cacheEntry("condenser_api.get_block", `[10]`); e == nil {
		t.Fatalf("LIB unknown: block 10 not cached")
	} else {
		checkExpiry(t, e, start, cache.ReversibleTTLDuration)
	}

	// A probe of the nodes teaches the gateway the LIB (an answer passing
	// through is one node's claim: it does not).
	p.post(call("2", "database_api.get_dynamic_global_properties", `{}`)).single(t)
	p.gw.Dispatcher().Pool().Probe(t.Context())

	cases := []struct {
		name, method, params string
		stored               bool
		forever              bool
	}{
		{"below LIB", "condenser_api.get_block", `[500]`, true, true},
		{"at LIB", "condenser_api.get_block", `[1000]`, true, true},
		{"above LIB", "condenser_api.get_block", `[1001]`, true, false},
		{"null result", "condenser_api.get_block", `[5000]`, false, false},
		{"mismatched block_id", "condenser_api.get_block", `[777]`, false, false},
		{"named form below LIB", "block_api.get_block", `{"block_num":600}`, true, true},
		{"named form above LIB", "block_api.get_block", `{"block_num":1500}`, true, false},
		{"named form empty result", "block_api.get_block", `{"block_num":5000}`, false, false},
		{"named form mismatched", "block_api.get_block", `{"block_num":777}`, false, false},
		{"three-part method", "appbase.condenser_api.get_block", `[501]`, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			upstream := node.count(upstreamName(tc.method))
			for i := range 2 {
				got := p.post(call(strconv.Itoa(i), tc.method, tc.params)).single(t)
				if got.Error != nil {
					t.Fatalf("error %s", got.Error)
				}
			}
			wantCalls := 1
			if !tc.stored {
				wantCalls = 2
			}
			if c := node.count(upstreamName(tc.method)) - upstream; c != wantCalls {
				t.Errorf("%d upstream calls for two requests, want %d", c, wantCalls)
			}
			e := p.cacheEntry(tc.method, tc.params)
			switch {
			case !tc.stored:
				if e != nil {
					t.Errorf("stored, want not stored")
				}
			case e == nil:
				t.Errorf("not stored")
			case tc.forever:
				if !e.Expires.IsZero() {
					t.Errorf("expires after %v, want never", time.Until(e.Expires))
				}
			default:
				checkExpiry(t, e, start, cache.ReversibleTTLDuration)
			}
		})
	}
}

// upstreamName is the method name a backend receives for method.
func upstreamName(method string) string {
	if method == "appbase.condenser_api.get_block" {
		return "condenser_api.get_block"
	}
	return method
}

func TestProxyIrreversibilityPolledLIB(t *testing.T) {
	t.Parallel()
	node := blockNode(t, nil, nil)
	node.lib.Store(1000)
	p := startProxy(t, proxyConfig, map[string]*fakeNode{"hived": node}, true)
	// The gateway polls the LIB on its own (lib_poll_interval: 1): without
	// any client asking for it, blocks below it become permanent.
	waitFor(t, "the LIB poll", func() bool { return node.count("database_api.get_dynamic_global_properties") > 0 })
	n := 100
	waitFor(t, "a block below the polled LIB to be cached forever", func() bool {
		n++
		params := fmt.Sprintf("[%d]", n)
		p.post(call("1", "condenser_api.get_block", params)).single(t)
		e := p.cacheEntry("condenser_api.get_block", params)
		return e != nil && e.Expires.IsZero()
	})
	if r := p.post(call("2", "condenser_api.get_block", fmt.Sprintf("[%d]", n))); r.cache() != "hit" {
		t.Errorf("block %d again: %q, want hit", n, r.cache())
	}
}
