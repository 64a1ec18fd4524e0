package backend_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// A fault is how a node fails a call: the bytes it writes (or what it
// does to the connection) instead of the call's answer.
type fault struct {
	name string
	// http writes the failure for a request (a single call, or a batch
	// when ids has more than one) whose calls carry ids on conn; it
	// returns false to close the connection after it.
	http func(conn net.Conn, ids []string) bool
	// ws is the failure of one call over WebSocket (nil: not tried there).
	ws func(req rpcRequest) (string, wsAction)
	// refusedAsBatch marks a failure that refuses a batch as such (HTTP
	// 4xx): its calls go one by one with all their attempts.
	refusedAsBatch bool
	// passes marks an answer the pool passes on as it is (bytes inside a
	// result are the node's): the call is answered, after one request.
	passes bool
}

// writeHTTP returns a fault's http function that writes raw and keeps the
// connection open.
func writeHTTP(raw func(ids []string) string) func(net.Conn, []string) bool {
	return func(conn net.Conn, ids []string) bool {
		_, err := io.WriteString(conn, raw(ids))
		return err == nil
	}
}

// httpBody is an HTTP 200 answer with body.
func httpBody(body string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// faults are the ways a node fails calls in TestAttemptsPerCallAreBounded.
var faults = []fault{
	{
		name: "closes the connection without answering",
		http: func(net.Conn, []string) bool { return false },
		ws:   func(rpcRequest) (string, wsAction) { return "", wsDrop },
	},
	{
		name: "resets the connection",
		http: func(conn net.Conn, _ []string) bool {
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // close sends RST
			}
			return false
		},
	},
	{
		name: "closes in the middle of its answer",
		http: func(conn net.Conn, _ []string) bool {
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
			return false
		},
	},
	{
		name: "answers invalid UTF-8",
		http: writeHTTP(func(ids []string) string {
			answers := make([]string, len(ids))
			for i, id := range ids {
				answers[i] = `{"jsonrpc":"2.0","id":` + id + ",\"result\":\"\xff\xfe\"}"
			}
			if len(ids) == 1 {
				return httpBody(answers[0])
			}
			return httpBody("[" + strings.Join(answers, ",") + "]")
		}),
		ws: func(req rpcRequest) (string, wsAction) {
			return `{"jsonrpc":"2.0","id":` + string(req.ID) + ",\"result\":\"\xff\xfe\"}", wsAnswer
		},
		passes: true,
	},
	{
		name: "answers garbage",
		http: writeHTTP(func([]string) string { return httpBody("<html>busy</html>") }),
		ws:   func(rpcRequest) (string, wsAction) { return "<html>busy</html>", wsAnswer },
	},
	{
		name: "answers another id",
		http: writeHTTP(func([]string) string { return httpBody(`{"jsonrpc":"2.0","id":"1","result":"forged"}`) }),
		ws:   func(rpcRequest) (string, wsAction) { return `{"jsonrpc":"2.0","id":"1","result":"forged"}`, wsAnswer },
	},
	{
		name: "answers HTTP 503",
		http: writeHTTP(func([]string) string { return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n" }),
	},
	{
		name: "answers HTTP 408",
		http: writeHTTP(func([]string) string { return "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n" }),
	},
	{
		name:           "answers HTTP 400",
		http:           writeHTTP(func([]string) string { return "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" }),
		refusedAsBatch: true,
	},
}

// warmConns is how many kept-alive connections a test opens before the
// failing calls: net/http's Transport used to send a request again on
// each of them.
const warmConns = 4

// tally counts, per call tag, the requests a node received carrying it.
type tally struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *tally) add(tags []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tag := range tags {
		c.counts[tag]++
	}
}

func (c *tally) get(tag string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[tag]
}

// tagsOf returns the tags (params ["tag"]) and the id members of the
// calls in a request body, a single call or a batch.
func tagsOf(body []byte) (tags, ids []string) {
	var calls []rpcRequest
	if len(body) > 0 && body[0] == '[' {
		_ = json.Unmarshal(body, &calls)
	} else {
		var c rpcRequest
		_ = json.Unmarshal(body, &c)
		calls = []rpcRequest{c}
	}
	for _, c := range calls {
		ids = append(ids, string(c.ID))
		var p []string
		if json.Unmarshal(c.Params, &p) == nil && len(p) == 1 {
			tags = append(tags, p[0])
		}
	}
	return tags, ids
}

// barrier lets n callers through together (or after 5s).
type barrier struct {
	wg sync.WaitGroup
}

func newBarrier(n int) *barrier {
	b := &barrier{}
	b.wg.Add(n)
	return b
}

func (b *barrier) wait() {
	b.wg.Done()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// newFaultyHTTPNode starts a raw HTTP/1.1 node: "warm" calls are answered
// (once warmConns of them are in, so that each has a connection of its
// own); every other request is failed as f says. It counts the requests
// carrying each tag.
func newFaultyHTTPNode(t testing.TB, f fault, counts *tally) string {
	t.Helper()
	warm := newBarrier(warmConns)
	return serveRaw(t, func(conn net.Conn) {
		br := bufio.NewReader(conn)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return
			}
			if methodOf(body) == "warm" {
				warm.wait()
				if _, err := io.WriteString(conn, rawOK(string(idOf(body)), `"warm"`, "")); err != nil {
					return
				}
				continue
			}
			tags, ids := tagsOf(body)
			counts.add(tags)
			if !f.http(conn, ids) {
				return
			}
		}
	})
}

// newFaultyWSNode starts a WebSocket node with the same behaviour.
func newFaultyWSNode(t testing.TB, f fault, counts *tally) string {
	t.Helper()
	warm := newBarrier(warmConns)
	node := newWSNode(t, func(_ int64, req rpcRequest) (string, wsAction) {
		if req.Method == "warm" {
			warm.wait()
			return `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":"warm"}`, wsAnswer
		}
		tags, _ := tagsOf(req.Body)
		counts.add(tags)
		return f.ws(req)
	})
	return node.url()
}

// warmUp opens warmConns connections to the backend with calls at once.
func warmUp(t *testing.T, pool *backend.Pool) {
	t.Helper()
	var wg sync.WaitGroup
	for range warmConns {
		wg.Go(func() {
			if _, err := pool.Call(context.Background(), "n", backend.Request{Method: "warm", Timeout: 10 * time.Second}); err != nil {
				t.Errorf("warm-up call: %v", err)
			}
		})
	}
	wg.Wait()
}

// TestAttemptsPerCallAreBounded shows that a node failing a call in any
// way receives that call at most 1 + retries times, over HTTP and
// WebSocket, for single calls, batches and broadcasts (exactly once), with
// idle kept-alive connections the HTTP Transport could resend on: the
// failing node counts the requests it receives that carry each call. A
// batch counts as one request of each of its calls, except a batch the
// node refused as such (HTTP 400), whose calls may each be sent alone once
// more.
func TestAttemptsPerCallAreBounded(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"http", "ws"} {
		for _, f := range faults {
			if scheme == "ws" && f.ws == nil {
				continue
			}
			for _, mode := range []string{"single", "batch", "broadcast"} {
				for retries := range backend.MaxRetries + 1 {
					if mode == "broadcast" && retries > 0 {
						continue // broadcasts are routed with no retries
					}
					name := fmt.Sprintf("%s/%s/%s/retries %d", scheme, f.name, mode, retries)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						checkAttempts(t, scheme, f, mode, retries)
					})
				}
			}
		}
	}
}

func checkAttempts(t *testing.T, scheme string, f fault, mode string, retries int) {
	counts := &tally{counts: map[string]int{}}
	var url string
	if scheme == "http" {
		url = newFaultyHTTPNode(t, f, counts)
	} else {
		url = newFaultyWSNode(t, f, counts)
	}
	pool := newPool(t, backend.Options{MaxConnsPerBackend: warmConns}, map[string]string{"n": url})
	warmUp(t, pool)
	reqs := make([]backend.Request, 3)
	for i := range reqs {
		reqs[i] = backend.Request{
			Method:  "m",
			Params:  json.RawMessage(`["c` + strconv.Itoa(i) + `"]`),
			Timeout: 10 * time.Second,
			Retries: retries,
			Once:    mode == "broadcast",
		}
	}
	var errs []error
	var resps []backend.Response
	switch mode {
	case "batch":
		resps, errs = pool.CallBatch(context.Background(), "n", reqs)
	default:
		reqs = reqs[:1]
		resp, err := pool.Call(context.Background(), "n", reqs[0])
		resps, errs = []backend.Response{resp}, []error{err}
	}
	limit := 1 + retries
	if mode == "batch" && f.refusedAsBatch && scheme == "http" {
		limit++ // the batch, refused as such, then each call alone
	}
	least := 1
	if mode == "batch" && scheme == "ws" {
		// The calls go at once over shared connections: one dropped for
		// another call's refused answer fails the calls waiting on it,
		// some before their request was written.
		least = 0
	}
	for i, r := range reqs {
		tag := strings.Trim(string(r.Params), `["]`)
		if (errs[i] == nil) != f.passes {
			t.Errorf("call %s: answered %s, error %v; want an answer: %t", tag, resps[i].Result, errs[i], f.passes)
		}
		got := counts.get(tag)
		switch {
		case (mode == "broadcast" || f.passes) && got != 1:
			t.Errorf("%s %s reached the node %d times, want exactly 1", mode, tag, got)
		case got < least || got > limit:
			t.Errorf("call %s reached the node %d times, want %d to %d", tag, got, least, limit)
		}
		if resps[i].Attempts > limit {
			t.Errorf("call %s: Attempts %d, want at most %d", tag, resps[i].Attempts, limit)
		}
	}
}

// TestAttemptsAcrossNodesAreBounded shows the bound holds over a backend
// of several nodes: a retry goes to another node, and all of them together
// receive the call at most 1 + retries times.
func TestAttemptsAcrossNodesAreBounded(t *testing.T) {
	t.Parallel()
	for retries := range backend.MaxRetries + 1 {
		t.Run("retries "+strconv.Itoa(retries), func(t *testing.T) {
			t.Parallel()
			counts := &tally{counts: map[string]int{}}
			closes := faults[0]
			urls := []string{newFaultyHTTPNode(t, closes, counts), newFaultyHTTPNode(t, closes, counts), newFaultyHTTPNode(t, closes, counts)}
			pool := newNodesPool(t, backend.Options{MaxConnsPerBackend: warmConns}, map[string][]string{"n": urls})
			_, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Params: json.RawMessage(`["c"]`), Retries: retries, Timeout: 10 * time.Second})
			if err == nil {
				t.Fatal("the call succeeded; every node fails it")
			}
			if got := counts.get("c"); got != 1+retries {
				t.Errorf("the nodes received the call %d times, want %d", got, 1+retries)
			}
		})
	}
}
