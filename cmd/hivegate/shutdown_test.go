package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/faults"
)

// TestSIGTERMDrainsInFlightRequests sends the process a real SIGTERM while a
// request waits on a slow backend: the gateway stops accepting connections,
// the in-flight request still gets its answer, and serve returns nil.
func TestSIGTERMDrainsInFlightRequests(t *testing.T) {
	node, err := faults.New(faults.SlowHeaders, faults.Options{Stall: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(node.Close)
	cfg, err := config.Parse("shutdown.yaml", fmt.Appendf(nil, `hivegate:
  hostname: 127.0.0.1
  port: 0
  admin_listen: ""
backends:
  hived: %s
urls:
  appbase: hived
ttls:
  appbase: NO_CACHE
timeouts:
  appbase: 30
`, node.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	addr, served := startServe(t, ctx, cfg, slog.New(slog.DiscardHandler), serveOptions{})

	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.Post("http://"+addr, "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_accounts","params":[["alice"]]}`))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- answer{status: resp.StatusCode, body: string(b), err: err}
	}()
	waitFor(t, "the request to reach the backend", func() bool { return node.CallsOf("condenser_api.get_accounts") == 1 && node.Stalled() >= 1 })

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the listener to close", func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	node.Release()

	select {
	case a := <-answered:
		if a.err != nil || a.status != http.StatusOK || !strings.Contains(a.body, `"result":{"method":"condenser_api.get_accounts"`) {
			t.Fatalf("in-flight request: status %d, body %q, err %v; want its answer", a.status, a.body, a.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the in-flight request got no answer within 20s of the release")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve returned %v after SIGTERM, want nil", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not return within 20s of SIGTERM")
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
