package backend

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestRedactedErr shows that the error of a failed WebSocket dial, which
// quotes the node URL as net/http's client does (password masked, query
// kept), holds no credential once redacted.
func TestRedactedErr(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // the port now refuses connections
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err = websocket.Dial(ctx, "ws://apiuser:pa55word@"+addr+"/?api_key=k3ysecret", &websocket.DialOptions{HTTPClient: &http.Client{}})
	if err == nil {
		t.Fatal("the dial to a closed port succeeded")
	}
	if !strings.Contains(err.Error(), "k3ysecret") {
		t.Fatalf("the dial error no longer quotes the URL (%v): the test shows nothing", err)
	}
	if !isNetError(redactedErr(err)) {
		t.Error("the redacted error lost its chain: no longer a network error")
	}
	got := redactedErr(err).Error()
	for _, s := range []string{"apiuser", "pa55word", "k3ysecret"} {
		if strings.Contains(got, s) {
			t.Errorf("redacted error shows %q: %s", s, got)
		}
	}
	if !strings.Contains(got, "xxxxx@"+addr+"/?api_key=REDACTED") {
		t.Errorf("redacted error lacks the redacted URL: %s", got)
	}
}
