package backend_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/backend"
)

// doneCounter is a cancellable context that counts the calls of its Done:
// asking for Done is what makes a request's context cancellable, which
// h1serve does only when someone asks.
type doneCounter struct {
	context.Context
	calls atomic.Int64
}

func (c *doneCounter) Done() <-chan struct{} {
	c.calls.Add(1)
	return c.Context.Done()
}

// TestArmIsLazy: on plain TCP, a call on a kept-alive connection that ends
// before the arming delay never asks its context for Done; on TLS, where a timed-out write cannot
// be resumed, every call arms at once.
func TestArmIsLazy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		useTLS bool
	}{{"plain", false}, {"tls", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newCountedServer(t, tc.useTLS, answerResult(`1`))
			opts := backend.Options{}
			if tc.useTLS {
				opts.TLSConfig = trusting(srv)
			}
			pool := newPool(t, opts, map[string]string{"n": srv.URL})
			// Dialing asks for Done (net.Dialer); the calls below reuse
			// the connection this one opens.
			if _, err := pool.Call(context.Background(), "n", backend.Request{Method: "m"}); err != nil {
				t.Fatalf("first call: %v", err)
			}
			fast := 0
			for range 50 {
				parent, cancel := context.WithCancel(context.Background())
				ctx := &doneCounter{Context: parent}
				start := time.Now()
				resp, err := pool.Call(ctx, "n", backend.Request{Method: "m", Timeout: time.Minute})
				took := time.Since(start)
				cancel()
				if err != nil {
					t.Fatalf("call: %v", err)
				}
				mustBytes(t, "result", resp.Result, `1`)
				asked := ctx.calls.Load()
				switch {
				case tc.useTLS && asked == 0:
					t.Fatal("a TLS call did not arm its context's cancellation")
				case !tc.useTLS && took < backend.ArmDelay/2:
					// A connection's arming deadline may have been set up to
					// ArmDelay/2 earlier, by its previous call.
					fast++
					if asked != 0 {
						t.Fatalf("a call of %v asked for Done %d times, want none", took, asked)
					}
				}
			}
			if !tc.useTLS && fast == 0 {
				t.Fatalf("none of 50 calls ended within %v; the machine is too slow to tell", backend.ArmDelay/2)
			}
		})
	}
}

// TestExchangeOutlastsArmDelay: answers slower than the arming delay, in
// their head or their body, arrive whole over plain TCP and TLS, under a
// cancellable context; the connection is reused afterwards, so arming
// left it in order.
func TestExchangeOutlastsArmDelay(t *testing.T) {
	t.Parallel()
	slow := 3 * backend.ArmDelay
	result := `"` + strings.Repeat("x", 2000) + `"`
	for _, tc := range []struct {
		name     string
		useTLS   bool
		slowBody bool
	}{
		{"plain slow head", false, false},
		{"plain slow body", false, true},
		{"tls slow head", true, false},
		{"tls slow body", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, stats := newCountedServer(t, tc.useTLS, func(w http.ResponseWriter, _ *http.Request, body []byte) {
				answer := `{"jsonrpc":"2.0","id":` + string(idOf(body)) + `,"result":` + result + `}`
				if !tc.slowBody {
					time.Sleep(slow)
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
				_, _ = io.WriteString(w, answer[:100])
				_ = http.NewResponseController(w).Flush()
				if tc.slowBody {
					time.Sleep(slow)
				}
				_, _ = io.WriteString(w, answer[100:])
			})
			opts := backend.Options{}
			if tc.useTLS {
				opts.TLSConfig = trusting(srv)
			}
			pool := newPool(t, opts, map[string]string{"n": srv.URL})
			for i := range 2 {
				ctx, cancel := context.WithCancel(context.Background())
				resp, err := pool.Call(ctx, "n", backend.Request{Method: "m", Timeout: time.Minute})
				cancel()
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				mustBytes(t, "result", resp.Result, result)
			}
			if total, _ := stats.counts(); total != 1 {
				t.Errorf("%d connections for two calls, want 1", total)
			}
		})
	}
}

// TestSlowReaderGetsWholeRequest: a request larger than the socket buffers,
// to a backend that starts reading only after the arming delay, reaches it
// byte for byte (the write resumes where it stopped).
func TestSlowReaderGetsWholeRequest(t *testing.T) {
	t.Parallel()
	params := []byte(`["` + strings.Repeat("0123456789", 400_000) + `"]`)
	got := make(chan []byte, 1)
	url := backend.ServeRaw(t, func(conn net.Conn) {
		time.Sleep(3 * backend.ArmDelay)
		req, err := http.ReadRequest(bufio.NewReader(conn))
		if err != nil {
			got <- nil
			return
		}
		body, _ := io.ReadAll(req.Body)
		got <- body
		answer := `{"jsonrpc":"2.0","id":` + string(idOf(body)) + `,"result":1}`
		_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(answer))+"\r\n\r\n"+answer)
	})
	pool := newPool(t, backend.Options{}, map[string]string{"n": url})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := pool.Call(ctx, "n", backend.Request{Method: "m", Params: params, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	mustBytes(t, "result", resp.Result, `1`)
	body := <-got
	if !bytes.Contains(body, params) {
		t.Errorf("the backend got %d bytes without the %d bytes of params", len(body), len(params))
	}
}

// TestCancelBlockedWrite: a caller going away while its request is stuck
// in a write to a backend that does not read ends the call, long before
// its timeout.
func TestCancelBlockedWrite(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	accepted := make(chan struct{}, 1)
	url := backend.ServeRaw(t, func(net.Conn) {
		accepted <- struct{}{}
		<-release // never reads
	})
	t.Cleanup(func() { close(release) }) // before ServeRaw's, which waits for this handler
	pool := newPool(t, backend.Options{FailThreshold: 1}, map[string]string{"n": url})
	params := []byte(`["` + strings.Repeat("0123456789", 2_000_000) + `"]`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-accepted
		time.Sleep(3 * backend.ArmDelay) // the write has blocked by now
		cancel()
	}()
	const timeout = 20 * time.Second
	start := time.Now()
	_, err := pool.Call(ctx, "n", backend.Request{Method: "m", Params: params, Timeout: timeout})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
	// Not a speed check: a write the cancellation failed to interrupt
	// would end only at the timeout (and report the cancellation too).
	if took := time.Since(start); took >= timeout/2 {
		t.Errorf("the call ended after %v, at its timeout: the cancellation did not interrupt the write", took)
	}
}
