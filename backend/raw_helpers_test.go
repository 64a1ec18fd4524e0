package backend_test

import (
	"net"
	"sync"
	"testing"
)

// serveRaw accepts connections on 127.0.0.1 and hands each to serve on a
// goroutine of its own; when the test ends it closes the listener and every
// connection and waits for serve to return. It returns the server's URL.
// Tests use it for backends that misbehave on purpose, writing bytes that
// net/http's server would not.
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
