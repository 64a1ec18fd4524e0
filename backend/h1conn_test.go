package backend

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// serveRaw accepts connections on 127.0.0.1 and hands each to serve on a
// goroutine of its own; when the test ends it closes the listener and every
// connection and waits for serve to return. It returns the server's URL.
func serveRaw(t testing.TB, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []net.Conn
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			all = append(all, conn)
			mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				serve(conn)
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range all {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/"
}

// rawListener accepts connections on 127.0.0.1 and answers each request
// read on them with result 1; every server-side connection is handed to
// the test on conns when its first request arrives.
func rawListener(t *testing.T, conns chan<- net.Conn) string {
	t.Helper()
	return serveRaw(t, func(conn net.Conn) {
		br := bufio.NewReader(conn)
		for first := true; ; first = false {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(req.Body)
			var rpc struct{ ID json.RawMessage }
			_ = json.Unmarshal(body, &rpc)
			id := rpc.ID
			if first {
				conns <- conn // before answering: the client sees it once answered
			}
			answer := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":1}`
			_, _ = io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(answer))+"\r\n\r\n"+answer)
		}
	})
}

// idleConns returns a copy of cp's idle stack.
func idleConns(cp *connPool) []*h1conn {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return append([]*h1conn(nil), cp.idle...)
}

// waitNotAlive waits until c's peek sees what the server did to it; the
// wait is bounded only to fail instead of hanging.
func waitNotAlive(t *testing.T, c *h1conn) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); c.alive(); {
		if time.Now().After(end) {
			t.Fatal("the idle connection still looks alive")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestIdleConnectionCheckedBeforeReuse shows a connection idle past
// staleAfter is peeked at before reuse: one the backend closed, or on which
// it sent something unasked (here a 408, which would otherwise be read as
// the next call's answer), is dropped without sending on it.
func TestIdleConnectionCheckedBeforeReuse(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name string
		kill func(server net.Conn)
	}{
		{"closed by the backend", func(c net.Conn) { _ = c.Close() }},
		{"unsolicited answer", func(c net.Conn) {
			_, _ = io.WriteString(c, "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n")
		}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conns := make(chan net.Conn, 4)
			url := rawListener(t, conns)
			p, err := New(map[string]string{"n": url}, Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(p.Close)
			cp := p.backends["n"].conns
			cp.staleAfter = 0 // check every reuse
			ctx := context.Background()
			if _, err := p.Call(ctx, "n", Request{Method: "m"}); err != nil {
				t.Fatal(err)
			}
			idle := idleConns(cp)
			if len(idle) != 1 || !idle[0].alive() {
				t.Fatalf("after one call: %d idle connections, want 1 alive", len(idle))
			}
			if _, err := p.Call(ctx, "n", Request{Method: "m"}); err != nil {
				t.Fatal(err) // a checked, healthy connection is reused
			}
			tc.kill(<-conns)
			waitNotAlive(t, idle[0])
			resp, err := p.Call(ctx, "n", Request{Method: "m"})
			if err != nil || string(resp.Result) != "1" || resp.Attempts != 1 {
				t.Fatalf("call after the close: %s, %v, %d attempts; want 1 attempt", resp.Result, err, resp.Attempts)
			}
			select {
			case <-conns:
			default:
				t.Error("the dead connection was not replaced by a new one")
			}
		})
	}
}

// TestIdleStack shows idle connections are reused most recent first and
// expire after idleTimeout.
func TestIdleStack(t *testing.T) {
	t.Parallel()
	conns := make(chan net.Conn, 4)
	url := rawListener(t, conns)
	p, err := New(map[string]string{"n": url}, Options{MaxConnsPerBackend: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	cp := p.backends["n"].conns
	ctx := context.Background()
	var held []*h1conn
	for range 3 {
		c, _, err := cp.roundTrip(ctx, p.backends["n"].probe, false)
		if err != nil {
			t.Fatal(err)
		}
		p.drain(c)
		held = append(held, c)
	}
	for _, c := range held {
		cp.release(c)
	}
	if got := cp.takeIdle(false); got != held[2] {
		t.Error("the most recently released connection was not reused first")
	} else {
		cp.put(got)
	}
	cp.mu.Lock()
	cp.idle[0].idleAt = cp.idle[0].idleAt.Add(-idleTimeout)
	cp.idle[1].idleAt = cp.idle[1].idleAt.Add(-idleTimeout)
	cp.mu.Unlock()
	cp.prune()
	if idle := idleConns(cp); len(idle) != 1 || idle[0] != held[2] {
		t.Errorf("after pruning: %d idle connections, want only the recent one", len(idle))
	}
	one := make([]byte, 1)
	if _, err := held[0].conn.Read(one); err == nil {
		t.Error("an expired connection was not closed")
	}
	cp.closeIdle()
	if len(idleConns(cp)) != 0 {
		t.Error("closeIdle left idle connections")
	}
}
