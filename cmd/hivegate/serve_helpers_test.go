package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

// startServe runs serveWith in the background until ctx ends, waits for its
// main listener and returns the listener's address and the channel
// serveWith's result arrives on. o.ready is set here.
func startServe(t *testing.T, ctx context.Context, cfg *config.Config, logger *slog.Logger, o serveOptions) (string, <-chan error) {
	t.Helper()
	addrc := make(chan string, 1)
	served := make(chan error, 1)
	o.ready = func(a string) { addrc <- a }
	go func() { served <- serveWith(ctx, cfg, logger, o) }()
	select {
	case addr := <-addrc:
		return addr, served
	case err := <-served:
		t.Fatalf("serve ended before listening: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not listen within 10s")
	}
	return "", nil
}
