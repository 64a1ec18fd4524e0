package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/stream"
)

// clock is hivesim's injected clock: each Advance produces a block.
type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// chainEnv is a hivesim node behind a loopback proxy (which can put the
// node on another branch: a fork) behind a real gateway, with the
// gateway's stream hub driven round by round (Step) by the test, on the
// node's clock (gateway.Options.StreamNow: the follower asks for a block
// once its slot has come).
type chainEnv struct {
	t      testing.TB
	clk    *clock
	node   *hivesim.Node
	gw     *gateway.Gateway
	hub    *stream.Hub
	srv    *httptest.Server
	yaml   string        // the gateway's config
	forkAt atomic.Uint64 // blocks from here on are on branch b
	// broadcasts counts the broadcast calls that reached the node's
	// proxy; with dropBroadcasts set the proxy accepts them ({}) without
	// passing them on: a node that took a transaction and lost it.
	broadcasts     atomic.Int64
	finds          atomic.Int64 // find_transaction calls that reached the node
	dropBroadcasts atomic.Bool
	// failBroadcasts makes the proxy answer broadcasts with HTTP 503: a
	// node that is down for them.
	failBroadcasts atomic.Bool
}

const envConfig = `
hivegate:
  cache_max_capacity: 67108864
  lib_poll_interval: 1
backends:
  node: {{backend}}
urls:
  appbase: node
  hived: node
streams:
  buffer: {{buffer}}
  window: 200
  block_interval: 3s
{{extra}}`

// idField is a block id or previous id in a get_block answer.
var idField = regexp.MustCompile(`"(block_id|previous)":"([0-9a-f]{8})([0-9a-f]{31})([0-9a-f])"`)

func newChainEnv(t testing.TB, buffer int) *chainEnv {
	t.Helper()
	return newChainEnvWith(t, buffer, "")
}

// newChainEnvWith is newChainEnv with more lines of the streams section.
func newChainEnvWith(t testing.TB, buffer int, extra string) *chainEnv {
	t.Helper()
	return newChainEnvNodes(t, buffer, extra, nil)
}

// newChainEnvNodes is newChainEnvWith with more nodes in the gateway's
// backend after the proxy: the URLs more returns (it may start servers
// in front of e.node).
func newChainEnvNodes(t testing.TB, buffer int, extra string, more func(e *chainEnv) []string) *chainEnv {
	t.Helper()
	e := &chainEnv{t: t, clk: &clock{}}
	e.clk.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	e.node = hivesim.New(hivesim.Options{Seed: 7, Accounts: 20, InitialHead: 20_000, Now: e.clk.Now})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("find_transaction")) {
			e.finds.Add(1)
		}
		if bytes.Contains(body, []byte("broadcast_transaction")) {
			e.broadcasts.Add(1)
			if e.failBroadcasts.Load() {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return
			}
			if e.dropBroadcasts.Load() {
				var req struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal(body, &req)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","result":{},"id":` + string(req.ID) + `}`))
				return
			}
		}
		out := e.node.Handle(body)
		if at := e.forkAt.Load(); at > 0 && bytes.Contains(body, []byte("get_block")) {
			out = idField.ReplaceAllFunc(out, func(m []byte) []byte {
				g := idField.FindSubmatch(m)
				n, _ := strconv.ParseUint(string(g[2]), 16, 64)
				if n < at {
					return m
				}
				last := byte('a')
				if g[4][0] == 'a' {
					last = 'b'
				}
				return []byte(`"` + string(g[1]) + `":"` + string(g[2]) + string(g[3]) + string(last) + `"`)
			})
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	t.Cleanup(proxy.Close)
	backend := proxy.URL
	if more != nil {
		backend = "[" + strings.Join(append([]string{proxy.URL}, more(e)...), ", ") + "]"
	}
	yaml := strings.NewReplacer("{{backend}}", backend, "{{buffer}}", strconv.Itoa(buffer), "{{extra}}", extra).Replace(envConfig)
	e.yaml = yaml
	cfg, err := config.Parse("stream_test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	e.gw, err = gateway.New(cfg, gateway.Options{StreamNow: e.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.gw.Close)
	e.hub = e.gw.StreamHub()
	e.srv = httptest.NewUnstartedServer(nil)
	e.srv.Config = gateway.NewHTTPServer("", e.gw.Handler(), gateway.Timeouts{}, nil)
	e.srv.EnableHTTP2 = false
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	if e.hub != nil {
		e.step()
	}
	return e
}

// replica is a second gateway in front of the same node, with its own
// follower: another replica.
func (e *chainEnv) replica() *chainEnv {
	e.t.Helper()
	r := &chainEnv{t: e.t, clk: e.clk, node: e.node, yaml: e.yaml}
	cfg, err := config.Parse("replica.yaml", []byte(e.yaml))
	if err != nil {
		e.t.Fatal(err)
	}
	if r.gw, err = gateway.New(cfg, gateway.Options{StreamNow: r.clk.Now}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(r.gw.Close)
	r.hub = r.gw.StreamHub()
	r.srv = httptest.NewServer(r.gw.Handler())
	e.t.Cleanup(r.srv.Close)
	r.step()
	return r
}

// step runs one round of the follower.
func (e *chainEnv) step() {
	e.t.Helper()
	if _, err := e.hub.Step(context.Background()); err != nil {
		e.t.Fatalf("follower step: %v", err)
	}
}

// produce lets the node produce n blocks and the follower read them.
func (e *chainEnv) produce(n int) {
	e.t.Helper()
	e.clk.ns.Add(int64(n) * int64(3*time.Second))
	e.step()
}

// tip is the follower's tip.
func (e *chainEnv) tip() uint64 {
	tip, _ := e.hub.Tip()
	return tip
}

// waitSubs waits until the hub has n subscribers (a client's stream is
// open on the server).
func (e *chainEnv) waitSubs(n int) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.hub.Subscribers() != n {
		if time.Now().After(deadline) {
			e.t.Fatalf("%d subscribers, want %d", e.hub.Subscribers(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// collector gathers messages from a client goroutine.
type collector struct {
	mu  sync.Mutex
	got []string // "block:N" or "fork:N" or "op:N:pos"
	cur []string
	ch  chan struct{}
}

func newCollector() *collector { return &collector{ch: make(chan struct{}, 1<<16)} }

func (c *collector) add(kind string, cursor string) {
	c.mu.Lock()
	c.got = append(c.got, kind)
	c.cur = append(c.cur, cursor)
	c.mu.Unlock()
	c.ch <- struct{}{}
}

// wait waits for n messages in all.
func (c *collector) wait(t testing.TB, n int) []string {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		c.mu.Lock()
		if len(c.got) >= n {
			out := append([]string(nil), c.got...)
			c.mu.Unlock()
			return out
		}
		c.mu.Unlock()
		select {
		case <-c.ch:
		case <-timeout:
			c.mu.Lock()
			defer c.mu.Unlock()
			t.Fatalf("got %d messages %v, want %d", len(c.got), c.got, n)
		}
	}
}

func (c *collector) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur[len(c.cur)-1]
}

func blocks(from, to uint64) []string {
	var out []string
	for n := from; n <= to; n++ {
		out = append(out, "block:"+strconv.FormatUint(n, 10))
	}
	return out
}
