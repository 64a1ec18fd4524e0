package h1serve_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/h1serve"
)

// fallbackMarker is the header the fallback server of a marked fixture adds
// to every answer, to prove which server answered.
const fallbackMarker = "X-Test-Fallback"

// ioWait bounds every wait of a test on the network.
const ioWait = 3 * time.Second

// fast is an h1serve.Server listening on 127.0.0.1 with its fallback.
type fast struct {
	srv  *h1serve.Server
	fb   *http.Server
	addr string
	done chan error // Serve's result
}

// fastConfig configures startFast: the options, a marker on the fallback's
// answers, and a hook to adjust the fallback server.
type fastConfig struct {
	opts   h1serve.Options
	marked bool
	fb     func(*http.Server)
}

// startFast starts an h1serve.Server for h with a fallback http.Server
// serving h too, and closes both when the test ends.
func startFast(t testing.TB, h http.Handler, cfg fastConfig) *fast {
	t.Helper()
	fh := h
	if cfg.marked {
		fh = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(fallbackMarker, "1")
			h.ServeHTTP(w, r)
		})
	}
	fb := &http.Server{Handler: fh, ErrorLog: discardLog()}
	if cfg.fb != nil {
		cfg.fb(fb)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fast{srv: h1serve.New(h, fb, cfg.opts), fb: fb, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { f.done <- f.srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = f.srv.Close()
		select {
		case err := <-f.done:
			if !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
			}
		case <-time.After(ioWait):
			t.Errorf("Serve did not return after Close")
		}
	})
	return f
}

// startPlain starts a plain http.Server for h and returns its address.
func startPlain(t testing.TB, h http.Handler, configure func(*http.Server)) string {
	t.Helper()
	s := &http.Server{Handler: h, ErrorLog: discardLog()}
	if configure != nil {
		configure(s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return ln.Addr().String()
}

// dial opens a TCP connection to addr, closed when the test ends.
func dial(t testing.TB, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, ioWait)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(ioWait))
	return c.(*net.TCPConn)
}

// send writes s to c.
func send(t testing.TB, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// exchange writes raw on a fresh connection to addr, half-closes it, and
// returns everything the server wrote until it closed (or wait passed).
func exchange(t testing.TB, addr string, raw []byte, wait time.Duration) []byte {
	t.Helper()
	return exchangeOn(t, func() (net.Conn, error) { return net.DialTimeout("tcp", addr, ioWait) }, raw, wait)
}

// exchangeOn is exchange on a connection from dial.
func exchangeOn(t testing.TB, dial func() (net.Conn, error), raw []byte, wait time.Duration) []byte {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write(raw); err != nil && !isReset(err) {
		t.Fatalf("write: %v", err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	out, _ := readAll(c)
	return out
}

// readAll reads c until EOF, a reset or its deadline, and says which.
func readAll(c net.Conn) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(c)
	if isReset(err) {
		err = nil // the server closed with unread input: what came is all
	}
	return buf.Bytes(), err
}

func isReset(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe"))
}

// waitClosed reads c until the server closes it and returns what came.
func waitClosed(t testing.TB, c net.Conn) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(ioWait))
	out, err := readAll(c)
	if err != nil {
		t.Fatalf("connection not closed by the server: %v (read %q)", err, out)
	}
	return out
}

// answer is one parsed response, Date and Content-Length left out.
type answer struct {
	Status int
	Header http.Header
	Body   string
	Close  bool   // Connection: close (http.ReadResponse takes it out of Header)
	Err    string // reading the body failed
}

// parseAnswers parses out as a sequence of responses; tail describes what
// follows the last one ("" when nothing).
func parseAnswers(out []byte) (as []answer, tail string) {
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		if _, err := br.Peek(1); err != nil {
			return as, ""
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			rest, _ := io.ReadAll(br)
			return as, fmt.Sprintf("unparsable (%v): %q", err, rest)
		}
		body, err := io.ReadAll(resp.Body)
		a := answer{Status: resp.StatusCode, Header: resp.Header.Clone(), Body: string(body), Close: resp.Close}
		// The framing (chunked or not, net/http's choice; never on the
		// fast path) is left out: the bodies are compared.
		delete(a.Header, "Date")
		delete(a.Header, "Content-Length")
		for k, v := range resp.Trailer {
			a.Header["Trailer-Value-"+k] = v
		}
		if err != nil {
			a.Err = err.Error()
		}
		as = append(as, a)
		if err != nil {
			return as, ""
		}
	}
}

// diffAnswers describes how two outputs differ, or returns "".
func diffAnswers(got, want []byte) string {
	ga, gt := parseAnswers(got)
	wa, wt := parseAnswers(want)
	var d []string
	if len(ga) != len(wa) {
		d = append(d, fmt.Sprintf("%d answers, want %d", len(ga), len(wa)))
	}
	for i := range min(len(ga), len(wa)) {
		g, w := ga[i], wa[i]
		if g.Status != w.Status {
			d = append(d, fmt.Sprintf("answer %d: status %d, want %d", i, g.Status, w.Status))
		}
		if g.Body != w.Body {
			d = append(d, fmt.Sprintf("answer %d: body\n%s\nwant\n%s", i, g.Body, w.Body))
		}
		// Connection: close on the last answer says no more than the
		// close that follows it.
		last := i == len(ga)-1 && i == len(wa)-1
		if g.Close != w.Close && !last {
			d = append(d, fmt.Sprintf("answer %d: Connection: close %v, want %v", i, g.Close, w.Close))
		}
		if g.Err != w.Err {
			d = append(d, fmt.Sprintf("answer %d: body error %q, want %q", i, g.Err, w.Err))
		}
		if hd := diffHeader(g.Header, w.Header); hd != "" {
			d = append(d, fmt.Sprintf("answer %d: headers %s", i, hd))
		}
	}
	if gt != wt {
		d = append(d, fmt.Sprintf("tail %q, want %q", gt, wt))
	}
	if len(d) == 0 {
		return ""
	}
	return strings.Join(d, "\n") + fmt.Sprintf("\n--- got:\n%s\n--- want:\n%s", got, want)
}

// diffHeader describes how two header sets differ, or returns "".
func diffHeader(got, want http.Header) string {
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	var d []string
	for _, k := range slices.Sorted(mapKeys(keys)) {
		if !slices.Equal(got[k], want[k]) {
			d = append(d, fmt.Sprintf("%s: %q, want %q", k, got[k], want[k]))
		}
	}
	return strings.Join(d, "; ")
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// echoHandler answers with what it saw of the request, so that a difference
// in parsing shows in the answer. The Host header is left out of the header
// list: the fast path keeps it in r.Header where net/http removes it (see
// TestBugHandlerDifferential/Host_in_r.Header); r.Host is echoed.
func echoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var b strings.Builder
		fmt.Fprintf(&b, "method=%q uri=%q path=%q proto=%q host=%q\n", r.Method, r.RequestURI, r.URL.Path, r.Proto, r.Host)
		fmt.Fprintf(&b, "content-length=%d transfer-encoding=%q close=%v\n", r.ContentLength, r.TransferEncoding, r.Close)
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range r.Header {
				if k != "Host" && !yield(k) {
					return
				}
			}
		}) {
			fmt.Fprintf(&b, "header %s=%q\n", k, r.Header[k])
		}
		fmt.Fprintf(&b, "body=%q err=%s\n", body, errKind(err))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Echo", "1")
		_, _ = io.WriteString(w, b.String())
	})
}

// errKind names an error without the addresses it may carry.
func errKind(err error) string {
	var ne net.Error
	switch {
	case err == nil:
		return "none"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected EOF"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "other"
}

// readAnswer reads one response from br, body included.
func readAnswer(t testing.TB, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, string(body)
}

// post is a fast-path request with body b and extra header lines.
func post(b string, extra ...string) string {
	var s strings.Builder
	s.WriteString("POST / HTTP/1.1\r\nHost: hivegate.test\r\n")
	for _, e := range extra {
		s.WriteString(e + "\r\n")
	}
	fmt.Fprintf(&s, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return s.String()
}

// recv receives from ch within ioWait.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(ioWait):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// discardLog is an http.Server error log that drops everything.
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }

// blocker is a handler that, for requests with X-Block, reports its arrival
// and waits for release before answering.
type blocker struct {
	arrived chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{arrived: make(chan struct{}, 8), release: make(chan struct{})}
}

func (b *blocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if r.Header.Get("X-Block") != "" {
		b.arrived <- struct{}{}
		<-b.release
	}
	_, _ = io.WriteString(w, "done "+r.Method)
}
