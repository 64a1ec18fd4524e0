package faults_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/faults"
)

// TestSlowHeadCutFromConnectionStart shows that read_header_timeout bounds
// the whole head from the moment the connection is accepted: a client that
// trickles its head one byte every 100 ms does not get a new timer with each
// byte. With a 1 s timeout and a 60-byte head (6 s of trickling), the
// connection is closed long before the head is complete.
func TestSlowHeadCutFromConnectionStart(t *testing.T) {
	t.Parallel()
	g, _ := limitsGateway(t, "  read_header_timeout: 1\n", faults.Options{})
	conn, err := net.Dial("tcp", g.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST / HTTP/1.1\r\nHost: hivegate\r\nX-Slow: " + strings.Repeat("s", 24) + "\r\n\r\n"
	var sent atomic.Int64
	go func() {
		for i := range len(head) {
			if _, err := conn.Write([]byte{head[i]}); err != nil {
				return
			}
			sent.Add(1)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(hangGuard))
	_, err = io.ReadAll(conn)
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the slow connection open for %s", hangGuard)
	}
	if n := sent.Load(); n >= int64(len(head))/2 {
		t.Errorf("the server read %d of %d head bytes trickled at 10/s before closing: the 1 s header timeout was restarted", n, len(head))
	}
}

// TestHTTP2PrefaceAfterHTTP1Refused shows that a connection that began as
// HTTP/1.1 stays HTTP/1.1: an HTTP/2 connection preface sent after a
// request is not taken as a switch to HTTP/2 (no SETTINGS frame comes back).
func TestHTTP2PrefaceAfterHTTP1Refused(t *testing.T) {
	t.Parallel()
	g, _ := limitsGateway(t, "", faults.Options{})
	conn, err := net.Dial("tcp", g.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(hangGuard))
	body := call("1", "hived.test_api.get", `[1]`)
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: hivegate\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("first request: HTTP %d close=%v", resp.StatusCode, resp.Close)
	}
	// The client preface, then an empty SETTINGS frame.
	_, _ = io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
	rest, _ := io.ReadAll(br)
	if len(rest) >= 9 && rest[3] == 0x04 {
		t.Fatalf("the server answered the preface with an HTTP/2 SETTINGS frame: % x", rest[:9])
	}
	if len(rest) > 0 && !bytes.HasPrefix(rest, []byte("HTTP/1.1 4")) {
		t.Fatalf("after the preface the server sent %q, want an HTTP/1.1 4xx or a close", rest)
	}
}

// TestOversizedBodyAnswered413 shows that every client whose body exceeds
// max_body_bytes receives the 413 answer (-32014), whether the body
// declares its length or is chunked, and however much of it the client is
// still sending: the server reads on before closing (a lingering close), so
// no client meets a reset instead of the answer.
func TestOversizedBodyAnswered413(t *testing.T) {
	t.Parallel()
	g, s := limitsGateway(t, "  max_body_bytes: 65536\n", faults.Options{})
	params := `["` + strings.Repeat("x", 4<<20) + `"]`
	body := call("1", "hived.test_api.get", params)
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			t.Parallel()
			const clients = 10
			var wg sync.WaitGroup
			errs := make(chan string, clients)
			for i := range clients {
				wg.Go(func() {
					// A connection of its own for each client.
					c := &http.Client{Timeout: hangGuard, Transport: &http.Transport{DisableKeepAlives: true}}
					var r io.Reader = strings.NewReader(body)
					if chunked {
						r = io.MultiReader(r) // hides the length: sent chunked
					}
					req, _ := http.NewRequest(http.MethodPost, g.srv.URL, r)
					req.Header.Set("Content-Type", "application/json")
					resp, err := c.Do(req)
					if err != nil {
						errs <- fmt.Sprintf("client %d: %v", i, err)
						return
					}
					defer resp.Body.Close()
					b, err := io.ReadAll(resp.Body)
					var out struct {
						Error struct{ Code int } `json:"error"`
					}
					if err != nil || json.Unmarshal(b, &out) != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || out.Error.Code != -32014 {
						errs <- fmt.Sprintf("client %d: HTTP %d %q %v", i, resp.StatusCode, b, err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
		})
	}
	t.Cleanup(func() {
		if n := s.Calls(); n != 0 {
			t.Errorf("%d upstream calls for oversized bodies", n)
		}
	})
}

// TestContentLengthOverLimitRefusedUnread shows that a body whose declared
// length exceeds max_body_bytes is refused from its headers: the 413 comes
// back while the client has sent none of the body, and a client that asked
// "Expect: 100-continue" is never told to send it.
func TestContentLengthOverLimitRefusedUnread(t *testing.T) {
	t.Parallel()
	g, _ := limitsGateway(t, "  max_body_bytes: 65536\n", faults.Options{})
	for _, expect := range []string{"", "Expect: 100-continue\r\n"} {
		conn, err := net.Dial("tcp", g.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(hangGuard))
		_, _ = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: hivegate\r\nContent-Type: application/json\r\n"+expect+"Content-Length: "+strconv.Itoa(1<<30)+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "-32014") {
			t.Errorf("%q: HTTP %d %s", expect, resp.StatusCode, b)
		}
	}
}
