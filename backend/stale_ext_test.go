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
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// echoNode is a raw HTTP/1.1 node that answers every JSON-RPC request with
// its own params as the result, so that a caller can tell its answer from
// any other; after writes more bytes on the connection after an answer.
type echoNode struct {
	url      string
	accepted atomic.Int64
	requests atomic.Int64
}

// afterFunc returns what to write after the answer to request n (the
// answer's own bytes are given), how long to wait before, and whether to
// close the connection after that.
type afterFunc func(n int64, answer string) (extra string, delay time.Duration, closeAfter bool)

func newEchoNode(t testing.TB, after afterFunc) *echoNode {
	t.Helper()
	n := &echoNode{}
	n.url = serveRaw(t, func(conn net.Conn) {
		n.accepted.Add(1)
		br := bufio.NewReader(conn)
		var mu sync.Mutex // one writer at a time: answers and late extras
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return
			}
			num := n.requests.Add(1)
			var r struct {
				ID     json.RawMessage `json:"id"`
				Params json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal(body, &r)
			answer := rawOK(string(r.ID), string(r.Params), "")
			extra, delay, closeAfter := after(num, answer)
			mu.Lock()
			_, err = io.WriteString(conn, answer)
			if err == nil && extra != "" && delay == 0 {
				_, err = io.WriteString(conn, extra)
			}
			mu.Unlock()
			if err != nil {
				return
			}
			if extra != "" && delay > 0 {
				go func() {
					time.Sleep(delay)
					mu.Lock()
					_, _ = io.WriteString(conn, extra)
					mu.Unlock()
					if closeAfter {
						_ = conn.Close()
					}
				}()
			} else if closeAfter {
				return
			}
		}
	})
	return n
}

// callEcho makes a call whose params are [tag] and checks that its answer
// is its own. The call has one retry: a stray answer that arrived after the
// request was written is refused, and the call made again on a connection
// of its own.
func callEcho(ctx context.Context, pool *backend.Pool, tag string) error {
	params := `["` + tag + `"]`
	resp, err := pool.Call(ctx, "n", backend.Request{Method: "m", Params: json.RawMessage(params), Timeout: 5 * time.Second, Retries: 1})
	if err != nil {
		return err
	}
	if string(resp.Result) != params {
		return fmt.Errorf("call %s got the answer %s", tag, resp.Result)
	}
	return nil
}

// TestExtraBytesNeverReachAnotherCall plays nodes that write more than one
// answer per request, in the ways a broken node or proxy does: a short
// Content-Length followed by the rest of the answer, a duplicate of the
// answer at once or a moment later, an unsolicited 408 on the idle
// connection. Under concurrent load every call that succeeds gets its own
// answer; only the call whose own answer was cut short fails.
func TestExtraBytesNeverReachAnotherCall(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name string
		// after is what the node adds after an answer.
		after afterFunc
		// short answers request 1 with a Content-Length that covers only
		// part of its body (the rest follows as stray bytes).
		short bool
	}{
		{"duplicate at once", func(_ int64, a string) (string, time.Duration, bool) { return a, 0, false }, false},
		{"duplicate later", func(_ int64, a string) (string, time.Duration, bool) { return a, 3 * time.Millisecond, false }, false},
		{"408 on the idle connection", func(int64, string) (string, time.Duration, bool) {
			return "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 2 * time.Millisecond, true
		}, false},
		{"short Content-Length", nil, true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var url string
			if tc.short {
				url = shortFirstAnswer(t)
			} else {
				url = newEchoNode(t, tc.after).url
			}
			pool := newPool(t, backend.Options{MaxConnsPerBackend: 4}, map[string]string{"n": url})
			if tc.short {
				err := callEcho(context.Background(), pool, "first")
				gatewayError(t, err, jsonrpc.KindInvalidUpstreamResponse)
			}
			const calls, workers = 80, 4
			var next atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for range workers {
				wg.Go(func() {
					for i := next.Add(1); i <= calls; i = next.Add(1) {
						if err := callEcho(context.Background(), pool, "c"+strconv.FormatInt(i, 10)); err != nil {
							errs <- err
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// shortFirstAnswer starts a raw node that answers its first request with a
// Content-Length of 12 followed by the whole answer (the rest are stray
// bytes), and every later request correctly; it returns its URL.
func shortFirstAnswer(t testing.TB) string {
	var first atomic.Bool
	return serveRaw(t, func(conn net.Conn) {
		br := bufio.NewReader(conn)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(req.Body)
			var r struct {
				ID     json.RawMessage `json:"id"`
				Params json.RawMessage `json:"params"`
			}
			_ = json.Unmarshal(body, &r)
			a := `{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":` + string(r.Params) + `}`
			out := rawOK(string(r.ID), string(r.Params), "")
			if first.CompareAndSwap(false, true) {
				out = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n" + a
			}
			if _, err := io.WriteString(conn, out); err != nil {
				return
			}
		}
	})
}

// TestRejectedAnswerClosesConnection shows that a connection whose answer
// was rejected (another request's id) carries nothing more: the next call
// goes out on a new connection and gets its own answer.
func TestRejectedAnswerClosesConnection(t *testing.T) {
	t.Parallel()
	node := newRawNode(t, func(n int64, id string) (string, bool) {
		if n == 1 {
			return rawOK(`"someone-else"`, `0`, ""), false
		}
		return rawOK(id, `1`, ""), false
	})
	pool := newPool(t, backend.Options{MaxConnsPerBackend: 1}, map[string]string{"n": node.url})
	_, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"})
	e := gatewayError(t, err, jsonrpc.KindInvalidUpstreamResponse)
	if !strings.Contains(e.Message, "wrong id") {
		t.Fatalf("message %q", e.Message)
	}
	resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"})
	if err != nil || string(resp.Result) != "1" {
		t.Fatalf("the next call: %v %s", err, resp.Result)
	}
	if n := node.accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2: the rejected one was reused", n)
	}
}
