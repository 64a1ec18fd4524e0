package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/faults"
)

// hostileLoad bounds the mixed hostile load.
const (
	hostileDuration = 6 * time.Second
	// minGoodCalls is the fewest good calls the run makes: the attack goes
	// on past hostileDuration until they are made (on a loaded machine,
	// under -race), up to hostileCap.
	minGoodCalls  = 50
	hostileCap    = 90 * time.Second
	goodWorkers   = 6
	slowConns     = 240 // HTTP/1.1 connections sending a body byte a second
	slowStreams   = 120 // HTTP/2 streams doing the same on 2 connections
	greedyWorkers = 48  // one address firing calls as fast as it can
)

// TestHostileLoad runs hivegate as `serve` runs it, in front of four nodes
// of one backend: two honest HTTP nodes (one of which fails on and off),
// one that lies about the chain (a head a billion blocks ahead, forged
// blocks) and an honest WebSocket node that also sends forged answers for
// the ids it guesses the gateway will use next. While good clients call,
// others attack: slow request bodies over HTTP/1.1 and HTTP/2 from several
// addresses, and one greedy address firing calls without pause. Every good
// call must be answered, and answered with the truth; afterwards no
// goroutine and no file descriptor of the run is left.
func TestHostileLoad(t *testing.T) {
	baseG, baseFD := runtime.NumGoroutine(), openFDs(t)

	chain := faults.NewChain(100_000)
	honest1 := startChainNode(t, chain, faults.ChainOptions{})
	honest2 := startChainNode(t, chain, faults.ChainOptions{})
	liar := startChainNode(t, chain, faults.ChainOptions{Lie: func(p faults.Props) faults.Props {
		return faults.Props{Head: 1_000_000_000, LIB: 999_999_990, Time: p.Time}
	}})
	forger := startChainNode(t, chain, faults.ChainOptions{WebSocket: true, Strays: true})

	cfg, err := config.Parse("hostile.yaml", fmt.Appendf(nil, `hivegate:
  hostname: 127.0.0.1
  port: 0
  admin_listen: ""
  access_log: false
  cache_max_capacity: 16777216
  lib_poll_interval: 1
backends:
  hived: [%s, %s, %s, %s]
urls:
  appbase: hived
ttls:
  appbase: 1
  appbase.block_api.get_block: EXPIRE_IF_REVERSIBLE
  appbase.condenser_api.get_block: EXPIRE_IF_REVERSIBLE
timeouts:
  appbase: 3
retries:
  appbase: 2
limits:
  max_in_flight: 128
  read_timeout: 30
  # The test's clients all come from 127/8: no trusted proxy there, so
  # each of their addresses is capped as a client on the internet is.
  trusted_proxies: [192.0.2.0/24]
`, honest1.URL, honest2.URL, liar.URL, forger.URL))
	if err != nil {
		t.Fatal(err)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addr, served := startServe(t, ctx, cfg, slog.New(slog.DiscardHandler), serveOptions{})
	url := "http://" + addr + "/"
	waitFor(t, "the gateway to see its nodes and the liar out of service", func() bool {
		return liarOutOfService(url)
	})

	loadCtx, endLoad := context.WithTimeout(ctx, hostileCap)
	defer endLoad()
	began := time.Now()
	var attackers sync.WaitGroup
	attackers.Go(func() { flap(loadCtx, honest1) })
	for i := range slowConns {
		attackers.Go(func() { slowHTTP1(loadCtx, addr, loopback(2+i%8)) })
	}
	attackers.Go(func() { slowHTTP2(loadCtx, url, loopback(11), slowStreams) })
	for range greedyWorkers {
		attackers.Go(func() { greedy(loadCtx, url, loopback(12)) })
	}

	var (
		calls, wrong atomic.Int64
		mu           sync.Mutex
		failures     []string
		latencies    []time.Duration
	)
	var good sync.WaitGroup
	for w := range goodWorkers {
		good.Go(func() {
			client := loopbackClient(loopback(1), 10*time.Second)
			defer client.CloseIdleConnections()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for loadCtx.Err() == nil && (time.Since(began) < hostileDuration || calls.Load() < minGoodCalls) {
				body, check := goodCall(rng, chain)
				sent := time.Now()
				status, answer, err := post(client, url, body)
				took := time.Since(sent)
				calls.Add(1)
				var problem string
				switch {
				case err != nil:
					problem = "transport: " + err.Error()
				case status != http.StatusOK:
					problem = fmt.Sprintf("HTTP %d: %s", status, answer)
				default:
					problem = check(answer)
				}
				mu.Lock()
				latencies = append(latencies, took)
				if problem != "" {
					wrong.Add(1)
					if len(failures) < 10 {
						failures = append(failures, body+" → "+problem)
					}
				}
				mu.Unlock()
			}
		})
	}
	good.Wait()
	endLoad()
	attackers.Wait()

	if calls.Load() < minGoodCalls {
		t.Errorf("only %d good calls were made in %v", calls.Load(), hostileCap)
	}
	if n := wrong.Load(); n != 0 {
		t.Errorf("%d of %d good calls got no answer or a wrong one; first: %s", n, calls.Load(), strings.Join(failures, "\n  "))
	}
	if forger.Strays() == 0 {
		t.Error("the forging node sent no stray answer: the test did not attack")
	}
	if liar.Calls() == 0 {
		t.Error("the lying node was never asked anything: the test did not attack")
	}
	slices.Sort(latencies)
	if len(latencies) > 0 {
		t.Logf("good calls: %d, p50 %v, p99 %v, max %v", len(latencies),
			latencies[len(latencies)/2], latencies[len(latencies)*99/100], latencies[len(latencies)-1])
	}

	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return within 30s")
	}
	for _, n := range []*faults.ChainNode{honest1, honest2, liar, forger} {
		n.Close()
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && (runtime.NumGoroutine() > baseG+2 || openFDs(t) > baseFD+2) {
		time.Sleep(50 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > baseG+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left after the run, %d before:\n%s", g, baseG, buf[:runtime.Stack(buf, true)])
	}
	if fd := openFDs(t); fd > baseFD+2 {
		t.Errorf("%d file descriptors open after the run, %d before", fd, baseFD)
	}
}

// startChainNode starts a node of chain, closed when the test ends.
func startChainNode(t *testing.T, c faults.Chain, opts faults.ChainOptions) *faults.ChainNode {
	t.Helper()
	n, err := faults.NewChainNode(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// liarOutOfService reports whether GET / lists the four nodes with exactly
// one (the liar) out of service: down, lagging or not in service.
func liarOutOfService(url string) bool {
	resp, err := http.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var h struct {
		Nodes []map[string]any `json:"nodes"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&h) != nil {
		return false
	}
	out := 0
	for _, n := range h.Nodes {
		if n["up"] == false || n["lagging"] == true || n["in_service"] == false {
			out++
		}
	}
	return len(h.Nodes) == 4 && out == 1
}

// goodCall returns a good client's next request and the check of its
// answer against the chain.
func goodCall(rng *rand.Rand, c faults.Chain) (string, func([]byte) string) {
	head := c.Head(time.Now())
	id := rng.Int64N(1 << 40)
	switch rng.IntN(4) {
	case 0, 1: // a block, final or around the head
		n := head - 200 + uint64(rng.IntN(203))
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"block_api.get_block","params":{"block_num":%d}}`, id, n)
		return body, func(b []byte) string {
			var a struct {
				ID     int64 `json:"id"`
				Result struct {
					Block json.RawMessage `json:"block"`
				} `json:"result"`
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(b, &a); err != nil || a.Error != nil || a.ID != id {
				return "not the answer: " + string(b)
			}
			if len(a.Result.Block) == 0 {
				if n <= c.Head(time.Now().Add(-2*time.Second)) {
					return "no block for a block that exists"
				}
				return ""
			}
			if !jsonEqual(a.Result.Block, c.Block(n)) {
				return "a forged block: " + string(a.Result.Block)
			}
			return ""
		}
	case 2: // a call answered by echo
		who := "acct" + strconv.Itoa(rng.IntN(50))
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"condenser_api.get_accounts","params":[[%q]]}`, id, who)
		want := faults.Echo("condenser_api.get_accounts", json.RawMessage(fmt.Sprintf(`[[%q]]`, who)))
		return body, checkResult(id, want)
	default: // a batch of echoes
		var parts []string
		var wants []json.RawMessage
		for i := range 4 {
			p := fmt.Sprintf(`[%d]`, rng.IntN(1000))
			parts = append(parts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"condenser_api.get_content_replies","params":%s}`, id+int64(i), p))
			wants = append(wants, faults.Echo("condenser_api.get_content_replies", json.RawMessage(p)))
		}
		return "[" + strings.Join(parts, ",") + "]", func(b []byte) string {
			var as []json.RawMessage
			if err := json.Unmarshal(b, &as); err != nil || len(as) != len(wants) {
				return "not the batch's answer: " + string(b)
			}
			for i, a := range as {
				if p := checkResult(id+int64(i), wants[i])(a); p != "" {
					return p
				}
			}
			return ""
		}
	}
}

// checkResult checks that an answer has the id and the result wanted.
func checkResult(id int64, want json.RawMessage) func([]byte) string {
	return func(b []byte) string {
		var a struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(b, &a); err != nil || a.ID != id || !jsonEqual(a.Result, want) {
			return "wrong answer: " + string(b)
		}
		return ""
	}
}

// jsonEqual compares two JSON values as values.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// loopback is 127.0.0.i: Linux routes the whole of 127/8 to lo, so a test
// can play clients of different addresses.
func loopback(i int) net.IP { return net.IPv4(127, 0, 0, byte(i)) }

// loopbackClient is an HTTP/1.1 client whose connections come from ip.
func loopbackClient(ip net.IP, timeout time.Duration) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}
}

// post sends one JSON-RPC request.
func post(c *http.Client, url, body string) (int, []byte, error) {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// flap makes n fail and recover every 300 ms until ctx ends.
func flap(ctx context.Context, n *faults.ChainNode) {
	defer n.SetFailing(false)
	for fail := true; ; fail = !fail {
		n.SetFailing(fail)
		select {
		case <-ctx.Done():
			return
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// slowHTTP1 opens a connection from ip, sends the headers of a POST with a
// 1,000-byte body and then one byte of it a second until ctx ends.
func slowHTTP1(ctx context.Context, addr string, ip net.IP) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	if _, err := fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr); err != nil {
		return
	}
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}
}

// slowHTTP2 sends n requests over unencrypted HTTP/2 from ip, each of whose
// body trickles a byte a second until ctx ends.
func slowHTTP2(ctx context.Context, url string, ip net.IP, n int) {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	tr := &http.Transport{Protocols: &p, DialContext: d.DialContext}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			pr, pw := io.Pipe()
			go func() {
				defer pw.Close()
				_, _ = pw.Write([]byte("{"))
				for {
					select {
					case <-ctx.Done():
						return
					case <-time.After(time.Second):
						if _, err := pw.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, pr)
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			if resp, err := client.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			_ = pr.Close()
		})
	}
	wg.Wait()
}

// greedy fires calls from ip without pause until ctx ends.
func greedy(ctx context.Context, url string, ip net.IP) {
	client := loopbackClient(ip, 5*time.Second)
	defer client.CloseIdleConnections()
	for i := 0; ctx.Err() == nil; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url,
			strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_follow_count",%q:[%q]}`, "params", "greedy"+strconv.Itoa(i))))
		if err != nil {
			return
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting file descriptors: %v", err)
	}
	return len(ents)
}
