package backend_test

import (
	"bufio"
	"context"
	"encoding/json"
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
)

// predictNext returns the id a node predicts after seeing the id sent,
// in the same form: the next number (a JSON number or a string of one).
// Upstream ids that count up make the prediction right; random ones never.
func predictNext(sent json.RawMessage, ahead uint64) string {
	s := string(sent)
	quoted := strings.HasPrefix(s, `"`)
	v, err := strconv.ParseUint(strings.Trim(s, `"`), 10, 64)
	if err != nil {
		return `"?"`
	}
	next := strconv.FormatUint(v+ahead, 10)
	if quoted {
		return `"` + next + `"`
	}
	return next
}

// forgedAnswer is the answer a hostile node sends for an id it guessed.
func forgedAnswer(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":["forged"]}`
}

// newForgingHTTPNode starts a raw HTTP/1.1 node that answers every call
// with its own params, and on a kept-alive connection first sends a forged
// answer for the id it predicts from the previous call on that connection
// (timed so that it arrives as the answer to the next request, as a stray
// answer does when the next call takes the connection at once). strays
// counts the forged answers sent.
func newForgingHTTPNode(t testing.TB, strays *atomic.Int64) string {
	t.Helper()
	return serveRaw(t, func(conn net.Conn) {
		br := bufio.NewReader(conn)
		var prev json.RawMessage
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return
			}
			id := idOf(body)
			var call rpcRequest
			_ = json.Unmarshal(body, &call)
			out := ""
			if prev != nil {
				strays.Add(1)
				out = httpBody(forgedAnswer(predictNext(prev, 1)))
			}
			out += rawOK(string(id), string(call.Params), "")
			prev = id
			if _, err := io.WriteString(conn, out); err != nil {
				return
			}
		}
	})
}

// newForgingWSNode starts a WebSocket node that answers every call with
// its own params, and before answering a call that is not the first on its
// connection sends forged answers for the next ids it predicts from the
// previous call on the connection.
func newForgingWSNode(t testing.TB, strays *atomic.Int64) string {
	t.Helper()
	var mu sync.Mutex
	prev := map[int64]json.RawMessage{} // by connection
	node := newWSNode(t, func(conn int64, req rpcRequest) (string, wsAction) {
		mu.Lock()
		p := prev[conn]
		prev[conn] = req.ID
		mu.Unlock()
		answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + string(req.Params) + `}`
		if p == nil {
			return answer, wsAnswer
		}
		strays.Add(1)
		// Two messages in one frame would not be JSON-RPC: the forged
		// answer goes first, on its own, then the call's answer.
		return forgedAnswer(predictNext(p, 1)) + "\n" + answer, wsAnswerLines
	})
	return node.url()
}

// TestForgedAnswersNeverReachACall plays a node that sends forged answers
// for the ids it predicts (the id of the previous call on a connection,
// plus one), over HTTP and WebSocket. With ids that count up, the next
// call on the connection took the forged answer (and a cache would have
// kept it). With random ids the forged answer names no call: it is
// refused, the connection dropped, and each call gets its own answer (its
// retry goes on another connection).
func TestForgedAnswersNeverReachACall(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"http", "ws"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			var strays atomic.Int64
			var url string
			if scheme == "http" {
				url = newForgingHTTPNode(t, &strays)
			} else {
				url = newForgingWSNode(t, &strays)
			}
			pool := newPool(t, backend.Options{MaxConnsPerBackend: 1}, map[string]string{"n": url})
			for i := range 10 {
				params := `["call` + strconv.Itoa(i) + `"]`
				resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Params: json.RawMessage(params), Retries: 1, Timeout: 5 * time.Second})
				if err != nil {
					t.Errorf("call %d: %v", i, err)
					continue
				}
				if string(resp.Result) != params {
					t.Errorf("call %d got the answer %s, want its own %s", i, resp.Result, params)
				}
			}
			if strays.Load() == 0 {
				t.Error("the node sent no forged answer: the test tested nothing")
			}
		})
	}
}

// TestForgedAnswersUnderLoad runs a bounded hostile load (a few seconds at
// most): concurrent callers against nodes that send forged answers for
// the next ids they predict, over HTTP and WebSocket. It ends with 0 wrong
// answers; calls whose connection was dropped for a forged answer may
// fail, but most are answered.
func TestForgedAnswersUnderLoad(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"http", "ws"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			var strays atomic.Int64
			var url string
			if scheme == "http" {
				url = newForgingHTTPNode(t, &strays)
			} else {
				url = newForgingWSNode(t, &strays)
			}
			pool := newPool(t, backend.Options{MaxConnsPerBackend: 4}, map[string]string{"n": url})
			const workers, perWorker = 8, 150
			stop := time.Now().Add(3 * time.Second)
			var wrong, answered, failed atomic.Int64
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := 0; i < perWorker && time.Now().Before(stop); i++ {
						params := `["w` + strconv.Itoa(w) + `-` + strconv.Itoa(i) + `"]`
						resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Params: json.RawMessage(params), Retries: 2, Timeout: 5 * time.Second})
						switch {
						case err != nil:
							failed.Add(1)
						case string(resp.Result) != params:
							wrong.Add(1)
							t.Errorf("call %s got the answer %s", params, resp.Result)
						default:
							answered.Add(1)
						}
					}
				})
			}
			wg.Wait()
			t.Logf("%d answered, %d failed, %d wrong; %d forged answers sent", answered.Load(), failed.Load(), wrong.Load(), strays.Load())
			if wrong.Load() != 0 {
				t.Errorf("%d wrong answers, want 0", wrong.Load())
			}
			if answered.Load() == 0 || strays.Load() == 0 {
				t.Errorf("%d answered, %d forged answers sent: the load tested nothing", answered.Load(), strays.Load())
			}
		})
	}
}
