package backend_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// TestPoolBound shows MaxConnsPerBackend bounds the connections to a
// backend: calls beyond it wait for a free one, and all succeed.
func TestPoolBound(t *testing.T) {
	t.Parallel()
	var inFlight, maxInFlight atomic.Int64
	srv, stats := newCountedServer(t, false, func(w http.ResponseWriter, r *http.Request, body []byte) {
		n := inFlight.Add(1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		time.Sleep(20 * time.Millisecond) // slow enough for the callers to pile up
		inFlight.Add(-1)
		answerResult(`1`)(w, r, body)
	})
	pool := newPool(t, backend.Options{MaxConnsPerBackend: 2}, map[string]string{"n": srv.URL})
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			_, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Timeout: time.Minute})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Call: %v", err)
		}
	}
	total, maxOpen := stats.counts()
	if total > 2 || maxOpen > 2 || maxInFlight.Load() > 2 {
		t.Errorf("%d connections, %d open at once, %d requests at once; want at most 2 each", total, maxOpen, maxInFlight.Load())
	}
}

// TestWaitForConnectionEndsAtDeadline shows a call waiting for a free
// connection gives up at its deadline with the timeout error, without
// reaching the backend.
func TestWaitForConnectionEndsAtDeadline(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	var hits atomic.Int64
	srv, _ := newCountedServer(t, false, func(w http.ResponseWriter, r *http.Request, body []byte) {
		hits.Add(1)
		if methodOf(body) == "hang" {
			arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		answerResult(`1`)(w, r, body)
	})
	pool := newPool(t, backend.Options{MaxConnsPerBackend: 1}, map[string]string{"n": srv.URL})
	first := make(chan error, 1)
	go func() {
		_, err := pool.Call(context.Background(), "n", backend.Request{Method: "hang", Timeout: time.Minute})
		first <- err
	}()
	<-arrived
	resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Timeout: 100 * time.Millisecond, Retries: 2})
	e := gatewayError(t, err, jsonrpc.KindUpstreamTimeout)
	if e.Message != "Upstream timeout: backend n did not answer within 100ms" || resp.Attempts != 1 {
		t.Errorf("message %q after %d attempts", e.Message, resp.Attempts)
	}
	if !strings.Contains(err.Error(), "no connection free") {
		t.Errorf("log text %q does not say what the call waited for", err.Error())
	}
	if hits.Load() != 1 {
		t.Errorf("the backend saw %d requests, want only the hanging one", hits.Load())
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the call holding the connection: %v", err)
	}
}

// TestCancelMidAnswer shows a caller going away in the middle of an answer
// ends the call at once (the context has no deadline: only the
// cancellation can interrupt the read), and the interrupted connection is
// not reused.
func TestCancelMidAnswer(t *testing.T) {
	t.Parallel()
	sent := make(chan struct{}, 1)
	abandoned := make(chan struct{}, 1)
	srv, stats := newCountedServer(t, false, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if methodOf(body) != "slow" {
			answerResult(`2`)(w, r, body)
			return
		}
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(idOf(body))+`,"result":[`)
		_ = http.NewResponseController(w).Flush()
		sent <- struct{}{}
		<-r.Context().Done() // the client closed the connection
		abandoned <- struct{}{}
	})
	pool := newPool(t, backend.Options{FailThreshold: 1}, map[string]string{"n": srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-sent
		cancel()
	}()
	_, err := pool.Call(ctx, "n", backend.Request{Method: "slow"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	<-abandoned
	resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"})
	if err != nil {
		t.Fatalf("next call: %v", err)
	}
	mustBytes(t, "result", resp.Result, `2`)
	if total, _ := stats.counts(); total != 2 {
		t.Errorf("%d connections, want 2: the interrupted one must not be reused", total)
	}
	if !pool.Healthy("n") {
		t.Error("the caller going away marked the backend down")
	}
}

// TestStaleKeepAliveConnection shows a backend closing kept-alive
// connections between calls costs no call: the pool sees the close before
// it writes a request on the connection, and the request goes on a new one
// (one attempt). A close that crosses a request — here, a FIN the kernel
// has not delivered yet — cannot be told from a node that read the request
// and hung up: that costs the call an attempt, so these calls have one
// retry (TestOnceIsNeverSentTwice shows the node's side).
func TestStaleKeepAliveConnection(t *testing.T) {
	t.Parallel()
	t.Run("server disables keep-alives", func(t *testing.T) {
		t.Parallel()
		srv, stats := newCountedServer(t, false, answerResult(`3`))
		pool := newPool(t, backend.Options{}, map[string]string{"n": srv.URL})
		for i := range 3 {
			resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Retries: 1})
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			mustBytes(t, "result", resp.Result, `3`)
			if resp.Attempts > 2 {
				t.Errorf("call %d: Attempts %d, want 1 (2 when the close crossed the request)", i, resp.Attempts)
			}
			if i == 0 {
				srv.Config.SetKeepAlivesEnabled(false) // closes the idle connection
				waitFor(t, "the server to close the connection", func() bool { return stats.openNow() == 0 })
			}
		}
		if total, _ := stats.counts(); total < 2 {
			t.Errorf("%d connections: the closed one was not replaced", total)
		}
	})
	t.Run("server closes without saying so", func(t *testing.T) {
		t.Parallel()
		node := newRawNode(t, func(_ int64, id string) (string, bool) { return rawOK(id, `4`, ""), true })
		pool := newPool(t, backend.Options{}, map[string]string{"n": node.url})
		for i := range 3 {
			resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Retries: 1})
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			mustBytes(t, "result", resp.Result, `4`)
			if resp.Attempts > 2 {
				t.Errorf("call %d: Attempts %d, want 1 (2 when the close crossed the request)", i, resp.Attempts)
			}
			want := int64(i + 1)
			waitFor(t, "the node to close the connection", func() bool { return node.closed.Load() == want })
		}
		if got := node.accepted.Load(); got != 3 {
			t.Errorf("%d connections, want 3", got)
		}
		if got := node.requests.Load(); got != 3 {
			t.Errorf("the node read %d requests, want 3", got)
		}
	})
	t.Run("all connections closed: the calls after go on one new connection", func(t *testing.T) {
		t.Parallel()
		var arrived sync.WaitGroup
		arrived.Add(3)
		srv, stats := newCountedServer(t, false, func(w http.ResponseWriter, r *http.Request, body []byte) {
			if methodOf(body) == "together" {
				arrived.Done()
				arrived.Wait() // three requests at once: three connections
			}
			answerResult(`5`)(w, r, body)
		})
		pool := newPool(t, backend.Options{MaxConnsPerBackend: 3}, map[string]string{"n": srv.URL})
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if _, err := pool.Call(context.Background(), "n", backend.Request{Method: "together", Timeout: time.Minute}); err != nil {
					t.Errorf("Call: %v", err)
				}
			})
		}
		wg.Wait()
		srv.CloseClientConnections() // as a restart would
		for i := range 3 {
			// The pool sees the closes before it writes (conn.Write),
			// unless a FIN is still on its way through the kernel: then a
			// request written on that connection costs its one retry.
			resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Retries: 1})
			if err != nil || resp.Attempts > 2 || (i > 0 && resp.Attempts != 1) {
				t.Errorf("call %d after the close: %v, %d attempts", i, err, resp.Attempts)
			}
		}
		if total, _ := stats.counts(); total != 4 {
			t.Errorf("%d connections, want 4 (3, then 1 after the close)", total)
		}
	})
	t.Run("a fresh connection is not resent", func(t *testing.T) {
		t.Parallel()
		node := newRawNode(t, func(int64, string) (string, bool) { return "", true })
		pool := newPool(t, backend.Options{}, map[string]string{"n": node.url})
		resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"})
		e := gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
		if !strings.Contains(e.Message, "closed the connection without answering") || resp.Attempts != 1 || node.requests.Load() != 1 {
			t.Errorf("message %q, Attempts %d, requests %d; want 1 and 1", e.Message, resp.Attempts, node.requests.Load())
		}
	})
}

// TestRetriedCallsCountAttempts shows a resend after a kept-alive
// connection failed is one of the call's retries: the node answers the
// first request on a kept-alive connection, reads the second and drops the
// connection without answering (as a restart would), and answers HTTP 503
// after that. The second call's request goes out on the stale connection,
// then once more for its one retry (503): two attempts, and the node read
// the second call's request twice, not more.
func TestRetriedCallsCountAttempts(t *testing.T) {
	t.Parallel()
	node := newRawNode(t, func(n int64, id string) (string, bool) {
		switch n {
		case 1:
			return rawOK(id, `0`, ""), false
		case 2:
			return "", true // read, then the connection is dropped unanswered
		}
		return "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", false
	})
	pool := newPool(t, backend.Options{}, map[string]string{"n": node.url})
	if _, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"}); err != nil {
		t.Fatal(err)
	}
	resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Retries: 1})
	e := gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
	if want := "backend n answered HTTP 503 (2 attempts)"; !strings.Contains(e.Message, want) || resp.Attempts != 2 {
		t.Errorf("message %q, Attempts %d; want %q", e.Message, resp.Attempts, want)
	}
	if got := node.requests.Load(); got != 3 {
		t.Errorf("the node read %d requests, want 3", got)
	}
}

// TestOnceIsNeverSentTwice shows that a broadcast (Request.Once) that a
// node read on a kept-alive connection and dropped unanswered is not sent
// again — the node may have acted on it — while a read call is, only with
// a retry left (the resend is an attempt); and that a
// broadcast checks a reused connection first, so one the node closed while
// idle costs nothing.
func TestOnceIsNeverSentTwice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		once         bool
		retries      int
		wantErr      bool
		wantAttempts int
		wantRequests int64
	}{
		{"broadcast: not resent", true, 0, true, 1, 2},
		{"read call without retries: not resent", false, 0, true, 1, 2},
		{"read call with a retry: resent on a fresh connection", false, 1, false, 2, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newRawNode(t, func(n int64, id string) (string, bool) {
				if n == 2 {
					return "", true // reads the request, then drops the connection
				}
				return rawOK(id, `1`, ""), false
			})
			pool := newPool(t, backend.Options{}, map[string]string{"n": node.url})
			if _, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"}); err != nil {
				t.Fatal(err)
			}
			resp, err := pool.Call(context.Background(), "n", backend.Request{Method: "m", Once: tc.once, Retries: tc.retries})
			if tc.wantErr {
				e := gatewayError(t, err, jsonrpc.KindUpstreamUnavailable)
				if !strings.Contains(e.Message, "closed the connection without answering") {
					t.Errorf("message %q", e.Message)
				}
			} else if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if resp.Attempts != tc.wantAttempts || node.requests.Load() != tc.wantRequests {
				t.Errorf("Attempts %d, node read %d requests; want %d and %d", resp.Attempts, node.requests.Load(), tc.wantAttempts, tc.wantRequests)
			}
		})
	}
	t.Run("broadcast checks a reused connection first", func(t *testing.T) {
		t.Parallel()
		node := newRawNode(t, func(n int64, id string) (string, bool) {
			return rawOK(id, `2`, ""), n == 1 // closes the first connection after answering, without saying so
		})
		pool := newPool(t, backend.Options{}, map[string]string{"n": node.url})
		if _, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the node's close (its FIN on its way)", func() bool { return node.closed.Load() > 0 })
		var resp backend.Response
		var err error
		// The FIN crosses loopback at once; wait for the client socket to
		// have it, as a connection idle for a moment would.
		time.Sleep(20 * time.Millisecond)
		resp, err = pool.Call(context.Background(), "n", backend.Request{Method: "m", Once: true})
		if err != nil || resp.Attempts != 1 || node.requests.Load() != 2 {
			t.Errorf("Call: %v, Attempts %d, node read %d requests; want success, 1, 2", err, resp.Attempts, node.requests.Load())
		}
	})
}
