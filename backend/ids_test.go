package backend

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"
)

// TestNewIDs shows upstream ids are never 0 and never repeat over many
// draws, and that two pools draw different sequences (each is seeded from
// crypto/rand).
func TestNewIDs(t *testing.T) {
	t.Parallel()
	a, b := &Pool{ids: newIDSource()}, &Pool{ids: newIDSource()}
	seen := make(map[uint64]bool, 20000)
	for range 10000 {
		for _, id := range []uint64{a.newID(), b.newID()} {
			if id == 0 || seen[id] {
				t.Fatalf("id %d drawn twice or zero", id)
			}
			seen[id] = true
		}
	}
	body := string(newBody(18446744073709551615, "m", nil))
	if want := `{"jsonrpc":"2.0","id":"18446744073709551615","method":"m"}`; body != want {
		t.Errorf("body %s, want %s (the id as a string: exact in every JSON parser)", body, want)
	}
}

// BenchmarkNewID measures the cost of an upstream id per call, from
// callers on every CPU at once.
func BenchmarkNewID(b *testing.B) {
	p := &Pool{ids: newIDSource()}
	b.RunParallel(func(pb *testing.PB) {
		var sum uint64
		for pb.Next() {
			sum += p.newID()
		}
		_ = strconv.FormatUint(sum, 10)
	})
}

// TestWriteChecksPeerClose shows the first write of a request on a
// kept-alive connection writes nothing once the backend has closed its end
// (the Transport then sends the request on another connection), while a
// connection the backend keeps open is written to.
func TestWriteChecksPeerClose(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	d := &dialer{}
	dial := func() (*conn, net.Conn) {
		nc, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c := nc.(*conn)
		srv := <-accepted
		// One exchange: the connection is kept-alive and idle after it.
		c.got()
		if _, err := c.Write([]byte("request 1")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		if _, err := srv.Read(buf); err != nil {
			t.Fatal(err)
		}
		c.release(false)
		return c, srv
	}

	open, openSrv := dial()
	defer open.Close()
	defer openSrv.Close()
	open.got()
	if n, err := open.Write([]byte("request 2")); err != nil || n != 9 {
		t.Errorf("write on an open connection: %d, %v", n, err)
	}

	closed, closedSrv := dial()
	defer closed.Close()
	_ = closedSrv.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !peekClosed(closed) { // the FIN crosses loopback
		if time.Now().After(deadline) {
			t.Fatal("the backend's close never reached the socket")
		}
		time.Sleep(time.Millisecond)
	}
	closed.got()
	if n, err := closed.Write([]byte("request 2")); n != 0 || !errors.Is(err, errPeerClosed) {
		t.Errorf("write on a connection the backend closed: %d, %v; want 0 and errPeerClosed", n, err)
	}
}

// peekClosed is peerClosed with the connection's lock held, as Write calls it.
func peekClosed(c *conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peerClosed()
}
