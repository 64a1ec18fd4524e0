package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/metrics"
	"github.com/hivegate/hivegate/stream"
)

// blockWaitConfig is a gateway in front of a hivesim node whose follower
// the test steps by hand; {{extra}} adds lines to the streams section and
// {{timeout}} is condenser_api.get_block's timeout.
const blockWaitConfig = `
hivegate:
  cache_max_capacity: 67108864
backends:
  node: {{backend}}
urls:
  appbase: node
  hived: node
ttls:
  appbase: 60
timeouts:
  appbase: 30
  appbase.condenser_api.get_block: {{timeout}}
streams:
  block_interval: 1m
{{extra}}`

// blockWaitEnv is a hivesim node on an injected clock behind a loopback
// proxy that counts the calls per method and block, behind a gateway.
type blockWaitEnv struct {
	t     *testing.T
	now   atomic.Int64 // the node's clock, ns
	node  *hivesim.Node
	gw    *gateway.Gateway
	hub   *stream.Hub
	srv   *httptest.Server
	mu    sync.Mutex
	calls map[string]int // "method params" -> count
}

func newBlockWaitEnv(t *testing.T, extra string, timeout int) *blockWaitEnv {
	t.Helper()
	e := &blockWaitEnv{t: t, calls: map[string]int{}}
	e.now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	e.node = hivesim.New(hivesim.Options{Seed: 3, Accounts: 20, InitialHead: 5_000, Now: func() time.Time { return time.Unix(0, e.now.Load()) }})
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var one struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &one) == nil {
			e.mu.Lock()
			e.calls[one.Method+" "+string(one.Params)]++
			e.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(e.node.Handle(body))
	}))
	t.Cleanup(proxy.Close)
	yaml := strings.NewReplacer("{{backend}}", proxy.URL, "{{extra}}", extra, "{{timeout}}", strconv.Itoa(timeout)).Replace(blockWaitConfig)
	cfg, err := config.Parse("blockwait_test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	if e.gw, err = gateway.New(cfg, gateway.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.gw.Close)
	e.hub = e.gw.StreamHub()
	e.srv = httptest.NewServer(e.gw.Handler())
	t.Cleanup(e.srv.Close)
	e.step()
	return e
}

// step runs one round of the follower.
func (e *blockWaitEnv) step() {
	e.t.Helper()
	if _, err := e.hub.Step(context.Background()); err != nil {
		e.t.Fatalf("follower step: %v", err)
	}
}

// head is the follower's tip.
func (e *blockWaitEnv) head() uint64 {
	tip, _ := e.hub.Tip()
	return tip
}

// count is how many times the node was asked method with params.
func (e *blockWaitEnv) count(method, params string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[method+" "+params]
}

// getBlock asks the gateway for condenser_api.get_block [num] and returns
// the call's result.
func (e *blockWaitEnv) getBlock(num uint64) (json.RawMessage, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[` + strconv.FormatUint(num, 10) + `]}`
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Post(e.srv.URL, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return resultOf(resp.Body)
}

// nodeAnswer is the node's own result for condenser_api.get_block [num].
func (e *blockWaitEnv) nodeAnswer(num uint64) json.RawMessage {
	e.t.Helper()
	out := e.node.Handle([]byte(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[` + strconv.FormatUint(num, 10) + `]}`))
	r, err := resultOf(bytes.NewReader(out))
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func resultOf(r io.Reader) (json.RawMessage, error) {
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(r).Decode(&env); err != nil {
		return nil, err
	}
	if env.Error != nil {
		return nil, fmt.Errorf("error answer: %s", env.Error)
	}
	return env.Result, nil
}

// sameBlockJSON reports whether a and b are the same JSON value.
func sameBlockJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// TestBlockWaitManyClients: 50 clients polling for the block after the
// head are held until it exists, then all get it from one upstream
// get_block (the follower's own block_api.get_block read aside).
func TestBlockWaitManyClients(t *testing.T) {
	t.Parallel()
	e := newBlockWaitEnv(t, "", 30)
	next := e.head() + 1
	const clients = 50
	answers := make([]json.RawMessage, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() { answers[i], errs[i] = e.getBlock(next) })
	}
	waitFor(t, "50 calls held", func() bool { return e.gw.Dispatcher().BlockWaits().Waiting == clients })
	params := "[" + strconv.FormatUint(next, 10) + "]"
	if n := e.count("condenser_api.get_block", params); n != 0 {
		t.Fatalf("held calls went upstream %d times before the block existed", n)
	}
	e.now.Add(int64(3 * time.Second)) // the node produces block next
	e.step()                          // the follower reads it
	wg.Wait()
	want := e.nodeAnswer(next)
	if sameBlockJSON(t, want, e.nodeAnswer(next+1)) {
		t.Fatal("the node's answers for an existing and a future block do not differ: the test proves nothing")
	}
	for i := range clients {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
		if !sameBlockJSON(t, want, answers[i]) {
			t.Fatalf("client %d got %.200s, want block %d %.200s", i, answers[i], next, want)
		}
	}
	if n := e.count("condenser_api.get_block", params); n != 1 {
		t.Errorf("node saw %d condenser_api.get_block %s, want 1", n, params)
	}
	if st := e.gw.Dispatcher().BlockWaits(); st.Arrived != clients || st.Waiting != 0 || st.TimedOut != 0 {
		t.Errorf("block wait stats %+v, want %d arrived", st, clients)
	}
	if v, ok := metrics.Value(e.gw.Metrics().Registry(), "hivegate_block_wait_total", `outcome="arrived"`); !ok || v != clients {
		t.Errorf("hivegate_block_wait_total{outcome=\"arrived\"} = %v (%v), want %d", v, ok, clients)
	}
	// The answer is cached: one more client costs no upstream call.
	if got, err := e.getBlock(next); err != nil || !sameBlockJSON(t, want, got) {
		t.Fatalf("after: %s %v", got, err)
	}
	if n := e.count("condenser_api.get_block", params); n != 1 {
		t.Errorf("node saw %d condenser_api.get_block %s after a cached call, want 1", n, params)
	}
}

// TestBlockWaitForwarded: the calls that are not held, or stop being held,
// are forwarded and get the node's own answer.
func TestBlockWaitForwarded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		extra   string
		timeout int    // condenser_api.get_block's timeout, seconds
		ahead   uint64 // blocks past the head asked
		held    dispatch.BlockWaitStats
	}{
		// The call's timeout passes before the block exists.
		{name: "timeout", timeout: 1, ahead: 1, held: dispatch.BlockWaitStats{TimedOut: 1}},
		// Far past the head + streams.block_wait (20): at once.
		{name: "far ahead", timeout: 30, ahead: 1000},
		// streams.block_wait 0 turns the wait off.
		{name: "off", extra: "  block_wait: 0\n", timeout: 30, ahead: 1},
		// Just past the window.
		{name: "past the window", extra: "  block_wait: 3\n", timeout: 30, ahead: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newBlockWaitEnv(t, tc.extra, tc.timeout)
			num := e.head() + tc.ahead
			got, err := e.getBlock(num)
			if err != nil {
				t.Fatal(err)
			}
			if want := e.nodeAnswer(num); !sameBlockJSON(t, want, got) {
				t.Errorf("got %s, want the node's %s", got, want)
			}
			if n := e.count("condenser_api.get_block", "["+strconv.FormatUint(num, 10)+"]"); n != 1 {
				t.Errorf("node saw %d calls, want 1", n)
			}
			if st := e.gw.Dispatcher().BlockWaits(); st != tc.held {
				t.Errorf("block wait stats %+v, want %+v", st, tc.held)
			}
		})
	}
}

// TestBlockWaitBatchHeldOnce: the calls of one batch are held at most one
// call timeout in all. Five calls for the next five blocks, which never
// come (the follower is not stepped): the first is held until its timeout,
// the others then go on at once, and every one gets the node's own
// answer. Held one after another, the batch held its place five timeouts
// long (and 50 calls fifty).
func TestBlockWaitBatchHeldOnce(t *testing.T) {
	t.Parallel()
	e := newBlockWaitEnv(t, "", 1)
	const calls = 5
	head := e.head()
	var body strings.Builder
	body.WriteString("[")
	for i := range calls {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%d,"method":"condenser_api.get_block","params":[%d]}`, i, head+1+uint64(i))
	}
	body.WriteString("]")
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Post(e.srv.URL, "application/json", strings.NewReader(body.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answers []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != calls {
		t.Fatalf("%d answers, want %d", len(answers), calls)
	}
	for i, a := range answers {
		if a.ID != i || a.Error != nil {
			t.Fatalf("answer %d: id %d, error %s", i, a.ID, a.Error)
		}
		if want := e.nodeAnswer(head + 1 + uint64(i)); !sameBlockJSON(t, want, a.Result) {
			t.Errorf("answer %d: got %s, want the node's %s", i, a.Result, want)
		}
	}
	if st := e.gw.Dispatcher().BlockWaits(); st != (dispatch.BlockWaitStats{TimedOut: 1}) {
		t.Errorf("block wait stats %+v, want one call held until its timeout and no other held", st)
	}
}
