package backend_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
	"github.com/hivegate/hivegate/jsonrpc"
)

// hang blocks a handler until the client gives up or the test ends.
func hang(n *fakeNode, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-n.release:
	}
}

func TestCallTimeoutCoversWholeExchange(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name    string
		handler handlerFunc
	}{
		{
			name: "slow headers",
			handler: func(n *fakeNode, _ http.ResponseWriter, r *http.Request, _ rpcRequest) {
				hang(n, r)
			},
		},
		{
			name: "slow body",
			handler: func(n *fakeNode, w http.ResponseWriter, r *http.Request, req rpcRequest) {
				w.Header().Set("Content-Length", "500")
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":[`)
				http.NewResponseController(w).Flush()
				hang(n, r)
			},
		},
	}
	const timeout = 150 * time.Millisecond
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node := newFakeNode(t, tc.handler)
			pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
			resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Timeout: timeout, Retries: 3})
			e := gatewayError(t, err, jsonrpc.KindUpstreamTimeout)
			if want := "backend hived did not answer within 150ms"; e.Message != "Upstream timeout: "+want {
				t.Errorf("message %q, want %q", e.Message, want)
			}
			// The one deadline is shared by the attempts: a hung first
			// attempt leaves no time for another.
			if resp.Attempts != 1 || node.hits.Load() != 1 {
				t.Errorf("Attempts = %d, hits = %d; want 1 and 1", resp.Attempts, node.hits.Load())
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Error("the gateway timeout matches context.DeadlineExceeded, which means the caller's own deadline")
			}
			if !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("log text %q lost the cause", err.Error())
			}
			if resp.Elapsed < timeout {
				t.Errorf("Elapsed %v is shorter than the timeout %v", resp.Elapsed, timeout)
			}
		})
	}
}

func TestCallRetriesStopAtDeadline(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t, func(_ *fakeNode, w http.ResponseWriter, _ *http.Request, _ rpcRequest) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	pool := newPool(t, backend.Options{}, map[string]string{"hived": node.srv.URL})
	// Back-off before retries 1 and 2 is at least 12.5ms + 25ms, more than
	// the 20ms budget, so at most two attempts fit, never four.
	resp, err := pool.Call(context.Background(), "hived", backend.Request{Method: "m", Timeout: 20 * time.Millisecond, Retries: 3})
	var e *jsonrpc.Error
	if !errors.As(err, &e) || (e.Kind != jsonrpc.KindUpstreamUnavailable && e.Kind != jsonrpc.KindUpstreamTimeout) {
		t.Fatalf("err = %v, want upstream unavailable or timeout", err)
	}
	if resp.Attempts > 2 || node.hits.Load() > 2 {
		t.Errorf("Attempts = %d, hits = %d; want at most 2 within the deadline", resp.Attempts, node.hits.Load())
	}
}

func TestCallCallerGoesAway(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	node := newFakeNode(t, func(n *fakeNode, _ http.ResponseWriter, r *http.Request, _ rpcRequest) {
		arrived <- struct{}{}
		hang(n, r)
	})
	pool := newPool(t, backend.Options{FailThreshold: 1}, map[string]string{"hived": node.srv.URL})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	resp, err := pool.Call(ctx, "hived", backend.Request{Method: "m", Timeout: time.Minute, Retries: 3})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		t.Errorf("caller cancellation reported as gateway error %v", e)
	}
	if !strings.Contains(err.Error(), "hived") || resp.Attempts != 1 {
		t.Errorf("err %q, Attempts %d", err, resp.Attempts)
	}
	if !pool.Healthy("hived") {
		t.Error("the caller going away marked the backend down")
	}
	// A context that is already done makes no request at all.
	if _, err := pool.Call(ctx, "hived", backend.Request{Method: "m"}); !errors.Is(err, context.Canceled) || node.hits.Load() != 1 {
		t.Errorf("Call with a done context: err %v, hits %d", err, node.hits.Load())
	}
}

// TestCallTimeoutCoversTLSHandshake: an https backend that accepts the
// connection and never answers the handshake is given up at the call's
// timeout, not at the (longer) dial timeout.
func TestCallTimeoutCoversTLSHandshake(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never read or answered
		}
	}()
	t.Cleanup(func() {
		for len(accepted) > 0 {
			_ = (<-accepted).Close()
		}
	})
	pool := newPool(t, backend.Options{DialTimeout: time.Minute}, map[string]string{"tls": "https://" + ln.Addr().String()})
	const timeout = 200 * time.Millisecond
	start := time.Now()
	_, err = pool.Call(context.Background(), "tls", backend.Request{Method: "m", Timeout: timeout})
	gatewayError(t, err, jsonrpc.KindUpstreamTimeout)
	if took := time.Since(start); took > 10*timeout {
		t.Errorf("the call ended after %v, want about %v", took, timeout)
	}
}
