package gateway_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// flakyListener fails its next n Accepts with err before accepting.
type flakyListener struct {
	net.Listener
	mu   sync.Mutex
	fail int
	err  error
}

func (l *flakyListener) failNext(n int, err error) {
	l.mu.Lock()
	l.fail, l.err = n, err
	l.mu.Unlock()
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.fail > 0 {
		l.fail--
		err := l.err
		l.mu.Unlock()
		return nil, err
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

// pipeListener is a listener in memory: dial hands it one end of a
// net.Pipe. Inside a synctest bubble, where a loopback socket cannot be
// used, it carries real HTTP between a real http.Server and http.Client.
type pipeListener struct {
	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial is an http.Transport's DialContext.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// TestKeepAcceptingSurvivesFDExhaustion shows that the server keeps serving
// through bursts of EMFILE and ENFILE from Accept, and logs a burst once
// when it starts and once when it is over (at the first accept 5 s after the
// last failure), however many accepts fail and however they alternate with
// successful ones. It runs in a synctest bubble: the back-off and the 5 s
// of quiet pass on the bubble's clock, at once.
func TestKeepAcceptingSurvivesFDExhaustion(t *testing.T) {
	t.Parallel()
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE} {
		t.Run(errno.Error(), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				pl := newPipeListener()
				fl := &flakyListener{Listener: pl}
				var logs syncbuf.Buffer
				srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })}
				served := make(chan struct{})
				go func() {
					defer close(served)
					_ = srv.Serve(gateway.KeepAccepting(fl, slog.New(slog.NewTextHandler(&logs, nil))))
				}()
				defer func() { _ = srv.Close(); <-served }()
				client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: pl.dial}}
				get := func() {
					t.Helper()
					resp, err := client.Get("http://gateway/")
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if string(b) != "ok" {
						t.Fatalf("got %q", b)
					}
				}
				count := func(s string) int { return strings.Count(logs.String(), s) }
				get()
				// One burst: failures, a success, failures again (as when
				// descriptors are freed one at a time), successes.
				for range 3 {
					// As accept4 fails: an *os.SyscallError in a *net.OpError.
					fl.failNext(4, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)})
					get() // accepted by the Accept already waiting
					get() // accepted after the next Accept's four failures
				}
				if n := count("out of file descriptors"); n != 1 {
					t.Fatalf("%d lines for one burst, want 1:\n%s", n, logs.String())
				}
				if n := count("accepting connections again"); n != 0 {
					t.Fatalf("the burst was declared over while it went on:\n%s", logs.String())
				}
				time.Sleep(5100 * time.Millisecond) // the bubble's clock: no wall-clock wait
				get()
				if n := count("failed_accepts=12"); n != 1 {
					t.Fatalf("want one end line with the 12 failed accepts:\n%s", logs.String())
				}
			})
		})
	}
}

// TestKeepAcceptingOtherErrors shows that an error other than running out
// of descriptors ends Accept, as it would without KeepAccepting.
func TestKeepAcceptingOtherErrors(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	boom := errors.New("boom")
	fl := &flakyListener{Listener: ln}
	fl.failNext(1, boom)
	if _, err := gateway.KeepAccepting(fl, nil).Accept(); !errors.Is(err, boom) {
		t.Fatalf("Accept: %v, want %v", err, boom)
	}
}

// TestKeepAcceptingCloseDuringBackoff shows that Close ends an Accept that
// is waiting out a burst, with net.ErrClosed, so that a shutdown is not held
// up by the back-off. In a synctest bubble, synctest.Wait returns once the
// Accept is blocked in its back-off.
func TestKeepAcceptingCloseDuringBackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		fl := &flakyListener{Listener: newPipeListener()}
		fl.failNext(1<<30, fmt.Errorf("accept4: %w", syscall.EMFILE))
		var logs bytes.Buffer
		kl := gateway.KeepAccepting(fl, slog.New(slog.NewTextHandler(&logs, nil)))
		done := make(chan error, 1)
		go func() { _, err := kl.Accept(); done <- err }()
		synctest.Wait() // into the back-off
		_ = kl.Close()
		synctest.Wait()
		select {
		case err := <-done:
			if !errors.Is(err, net.ErrClosed) {
				t.Fatalf("Accept after Close: %v, want net.ErrClosed", err)
			}
		default:
			t.Fatal("Accept did not return after Close")
		}
	})
}
