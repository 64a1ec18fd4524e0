package gateway_test

import (
	"bytes"
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

// TestKeepAcceptingSurvivesFDExhaustion shows that the server keeps serving
// through bursts of EMFILE and ENFILE from Accept, and logs a burst once
// when it starts and once when it is over (at the first accept 5 s after the
// last failure), however many accepts fail and however they alternate with
// successful ones.
func TestKeepAcceptingSurvivesFDExhaustion(t *testing.T) {
	t.Parallel()
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE} {
		t.Run(errno.Error(), func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			fl := &flakyListener{Listener: ln}
			var logs syncbuf.Buffer
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })}
			go func() { _ = srv.Serve(gateway.KeepAccepting(fl, slog.New(slog.NewTextHandler(&logs, nil)))) }()
			t.Cleanup(func() { _ = srv.Close() })
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			get := func() {
				t.Helper()
				resp, err := client.Get("http://" + ln.Addr().String())
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
			time.Sleep(5100 * time.Millisecond)
			get()
			if n := count("failed_accepts=12"); n != 1 {
				t.Fatalf("want one end line with the 12 failed accepts:\n%s", logs.String())
			}
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
// up by the back-off.
func TestKeepAcceptingCloseDuringBackoff(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.failNext(1<<30, fmt.Errorf("accept4: %w", syscall.EMFILE))
	var logs bytes.Buffer
	kl := gateway.KeepAccepting(fl, slog.New(slog.NewTextHandler(&logs, nil)))
	done := make(chan error, 1)
	go func() { _, err := kl.Accept(); done <- err }()
	time.Sleep(50 * time.Millisecond) // into the back-off
	_ = kl.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept did not return after Close")
	}
}
