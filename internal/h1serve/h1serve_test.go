package h1serve_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/internal/h1serve"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// TestFastPathServes shows that a POST / is answered by the fast path with
// the handler's status, headers and body, a Date and a Content-Length, and
// that the handler sees the request as net/http would build it.
func TestFastPathServes(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, uri, host, proto, body string
		length                         int64
		ctype                          []string
	}
	seenc := make(chan seen, 1)
	f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seenc <- seen{r.Method, r.RequestURI, r.Host, r.Proto, string(b), r.ContentLength, r.Header["Content-Type"]}
		w.Header().Set("X-Answer", "yes")
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"result":1}`)
	}), fastConfig{marked: true})
	c := dial(t, f.addr)
	send(t, c, post(`{"id":1}`, "Content-Type: application/json"))
	resp, body := readAnswer(t, bufio.NewReader(c))
	got := recv(t, seenc, "the handler")
	want := seen{"POST", "/", "hivegate.test", "HTTP/1.1", `{"id":1}`, 8, []string{"application/json"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("handler saw %+v, want %+v", got, want)
	}
	if resp.StatusCode != http.StatusCreated || body != `{"result":1}` {
		t.Errorf("answer %d %q, want 201 %q", resp.StatusCode, body, `{"result":1}`)
	}
	if resp.Header.Get("X-Answer") != "yes" || strings.Join(resp.Header["X-Multi"], ",") != "a,b" {
		t.Errorf("handler headers lost: %v", resp.Header)
	}
	if resp.Header.Get(fallbackMarker) != "" {
		t.Errorf("answered by the fallback server")
	}
	if d, err := http.ParseTime(resp.Header.Get("Date")); err != nil || time.Since(d).Abs() > time.Minute {
		t.Errorf("Date %q: %v", resp.Header.Get("Date"), err)
	}
	if resp.Header.Get("Content-Length") != "12" || resp.Close {
		t.Errorf("Content-Length %q close %v, want 12 and keep-alive", resp.Header.Get("Content-Length"), resp.Close)
	}
	if s := f.srv.Stats(); s != (h1serve.Stats{Served: 1}) {
		t.Errorf("Stats %+v, want 1 served, 0 handed over", s)
	}
}

// counterHandler answers each request with its body and a sequence number.
func counterHandler() http.Handler {
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n++ // one connection at a time in these tests
		fmt.Fprintf(w, "%d:%s", n, b)
	})
}

// TestFastPathKeepAliveAndPipelining shows many requests served in order on
// one connection, sent one by one or several in one write.
func TestFastPathKeepAliveAndPipelining(t *testing.T) {
	t.Parallel()
	for _, batch := range []int{1, 2, 7} {
		t.Run(fmt.Sprintf("%d per write", batch), func(t *testing.T) {
			t.Parallel()
			f := startFast(t, counterHandler(), fastConfig{})
			c := dial(t, f.addr)
			br := bufio.NewReader(c)
			const total = 42
			for i := 0; i < total; i += batch {
				var w strings.Builder
				for j := i; j < i+batch; j++ {
					w.WriteString(post("req" + strconv.Itoa(j)))
				}
				send(t, c, w.String())
				for j := i; j < i+batch; j++ {
					resp, body := readAnswer(t, br)
					if want := fmt.Sprintf("%d:req%d", j+1, j); body != want || resp.Close {
						t.Fatalf("answer %d: %q close=%v, want %q on a kept connection", j, body, resp.Close, want)
					}
				}
			}
			if s := f.srv.Stats(); s != (h1serve.Stats{Served: total}) {
				t.Errorf("Stats %+v, want %d served", s, total)
			}
		})
	}
}

// TestFastPathClientClose shows that a client's Connection: close gets a
// Connection: close answer and the server's close, and that a request
// pipelined after it is not served.
func TestFastPathClientClose(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"close", "Close", "CLOSE"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			f := startFast(t, counterHandler(), fastConfig{})
			c := dial(t, f.addr)
			send(t, c, post("a", "Connection: "+v)+post("b"))
			out := waitClosed(t, c)
			as, tail := parseAnswers(out)
			if len(as) != 1 || as[0].Body != "1:a" || !as[0].Close || tail != "" {
				t.Errorf("got %q, want one answer 1:a with Connection: close", out)
			}
		})
	}
}

// piecesHandler declares (or not) a Content-Length and writes body in the
// given pieces, reporting each Write's error.
func piecesHandler(declare bool, body []byte, pieces []int, errs chan<- []error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if declare {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		var es []error
		rest := body
		for _, n := range pieces {
			n = min(n, len(rest))
			_, err := w.Write(rest[:n])
			es = append(es, err)
			rest = rest[n:]
		}
		errs <- es
	})
}

// TestFastPathBodyPieces shows exact bytes and one correct Content-Length
// for bodies written in pieces around and beyond the 16 KiB flush size,
// with and without a Content-Length from the handler, and the connection
// still usable afterwards.
func TestFastPathBodyPieces(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		pieces []int
	}{
		{"one small", []int{100}},
		{"small then huge", []int{10, 40 << 10, 5, 1}},
		{"exactly 16 KiB", []int{16 << 10}},
		{"16 KiB plus one", []int{16<<10 - 200, 201}},
		{"many mid pieces", []int{9000, 9000, 9000, 9000, 9000, 9000}},
		{"huge pieces", []int{100 << 10, 70 << 10, 3}},
	}
	for _, declare := range []bool{true, false} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("declared=%v/%s", declare, tc.name), func(t *testing.T) {
				t.Parallel()
				total := 0
				for _, n := range tc.pieces {
					total += n
				}
				body := make([]byte, total)
				for i := range body {
					body[i] = byte('a' + i%23)
				}
				errs := make(chan []error, 2)
				f := startFast(t, piecesHandler(declare, body, tc.pieces, errs), fastConfig{})
				c := dial(t, f.addr)
				br := bufio.NewReader(c)
				for i := range 2 {
					send(t, c, post("x"))
					resp, got := readAnswer(t, br)
					if got != string(body) {
						t.Fatalf("request %d: body of %d bytes differs from the %d written", i, len(got), len(body))
					}
					if cl := resp.Header["Content-Length"]; len(cl) != 1 || cl[0] != strconv.Itoa(total) || resp.TransferEncoding != nil {
						t.Errorf("request %d: Content-Length %q, Transfer-Encoding %q; want one %d", i, cl, resp.TransferEncoding, total)
					}
					for j, err := range recv(t, errs, "the handler") {
						if err != nil {
							t.Errorf("request %d: Write %d: %v", i, j, err)
						}
					}
				}
			})
		}
	}
}

// TestFastPathNoBodyStatuses shows that 204 and 304 answers carry neither
// body nor Content-Length, that Write then fails with
// http.ErrBodyNotAllowed, and that the connection stays in sync.
func TestFastPathNoBodyStatuses(t *testing.T) {
	t.Parallel()
	for _, code := range []int{http.StatusNoContent, http.StatusNotModified} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			t.Parallel()
			errc := make(chan error, 1)
			f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Status") == "" {
					_, _ = io.WriteString(w, "next")
					return
				}
				w.WriteHeader(code)
				_, err := io.WriteString(w, "must not be sent")
				errc <- err
			}), fastConfig{})
			c := dial(t, f.addr)
			send(t, c, post("", "X-Status: 1")+post(""))
			_ = c.CloseWrite()
			out := waitClosed(t, c)
			head, rest, _ := strings.Cut(string(out), "\r\n\r\n")
			if !strings.HasPrefix(head, "HTTP/1.1 "+strconv.Itoa(code)+" ") || strings.Contains(head, "Content-Length") {
				t.Errorf("head %q: want status %d without Content-Length", head, code)
			}
			if !strings.HasPrefix(rest, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(rest, "\r\n\r\nnext") {
				t.Errorf("after the %d answer: %q, want the next request's answer alone", code, rest)
			}
			if err := recv(t, errc, "the handler"); !errors.Is(err, http.ErrBodyNotAllowed) {
				t.Errorf("Write after %d: %v, want http.ErrBodyNotAllowed", code, err)
			}
		})
	}
}

// TestFastPathWriteBeyondContentLength shows that a Write past the declared
// Content-Length fails with http.ErrContentLength and sends nothing of it.
func TestFastPathWriteBeyondContentLength(t *testing.T) {
	t.Parallel()
	errc := make(chan []error, 1)
	f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5")
		_, e1 := io.WriteString(w, "abc")
		_, e2 := io.WriteString(w, "def")
		_, e3 := io.WriteString(w, "de")
		errc <- []error{e1, e2, e3}
	}), fastConfig{})
	c := dial(t, f.addr)
	send(t, c, post("")+post(""))
	br := bufio.NewReader(c)
	for i := range 2 {
		resp, body := readAnswer(t, br)
		if body != "abcde" || resp.ContentLength != 5 {
			t.Errorf("answer %d: %q (length %d), want abcde", i, body, resp.ContentLength)
		}
		errs := recv(t, errc, "the handler")
		if errs[0] != nil || !errors.Is(errs[1], http.ErrContentLength) || errs[2] != nil {
			t.Errorf("answer %d: Write errors %v, want nil, ErrContentLength, nil", i, errs)
		}
	}
}

// TestFastPathUnreadBody shows a handler that leaves the body unread: the
// rest is skipped when it was read already (the connection goes on), and
// the connection is closed after the answer when it was not.
func TestFastPathUnreadBody(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ignored "+r.Header.Get("X-N"))
	})
	t.Run("buffered", func(t *testing.T) {
		t.Parallel()
		f := startFast(t, h, fastConfig{})
		c := dial(t, f.addr)
		send(t, c, post(strings.Repeat("b", 1000), "X-N: 1")+post("", "X-N: 2"))
		br := bufio.NewReader(c)
		for i := 1; i <= 2; i++ {
			resp, body := readAnswer(t, br)
			if body != "ignored "+strconv.Itoa(i) || resp.Close {
				t.Errorf("answer %q close=%v, want %q on a kept connection", body, resp.Close, "ignored "+strconv.Itoa(i))
			}
		}
	})
	t.Run("not arrived", func(t *testing.T) {
		t.Parallel()
		f := startFast(t, h, fastConfig{})
		c := dial(t, f.addr)
		send(t, c, "POST / HTTP/1.1\r\nHost: a\r\nX-N: 1\r\nContent-Length: 100000\r\n\r\npartial")
		as, tail := parseAnswers(waitClosed(t, c))
		if len(as) != 1 || as[0].Body != "ignored 1" || !as[0].Close || tail != "" {
			t.Errorf("got %+v %q, want one answer with Connection: close, then the close", as, tail)
		}
		if s := f.srv.Stats(); s.Served != 1 {
			t.Errorf("Stats %+v, want 1 served", s)
		}
	})
}

// TestFastPathBodyReadErrors shows the body's io.Reader contract: a body cut
// by the client's close reads io.ErrUnexpectedEOF, and Read after Close
// fails with http.ErrBodyReadAfterClose.
func TestFastPathBodyReadErrors(t *testing.T) {
	t.Parallel()
	type result struct {
		body        string
		err, closed error
	}
	res := make(chan result, 1)
	f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		_, closed := r.Body.Read(make([]byte, 1))
		res <- result{string(b), err, closed}
	}), fastConfig{})
	c := dial(t, f.addr)
	send(t, c, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
	_ = c.CloseWrite()
	r := recv(t, res, "the handler")
	if r.body != "abc" || !errors.Is(r.err, io.ErrUnexpectedEOF) || !errors.Is(r.closed, http.ErrBodyReadAfterClose) {
		t.Errorf("got %q, %v, %v; want abc, unexpected EOF, ErrBodyReadAfterClose", r.body, r.err, r.closed)
	}
	out := waitClosed(t, c)
	if !bytes.Contains(out, []byte("Connection: close")) {
		t.Errorf("answer %q: want Connection: close", out)
	}
}

// TestTimeouts shows the idle, read-header and write timeouts closing the
// connection without an answer, and the read timeout failing a body that
// never completes.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	const d = 150 * time.Millisecond
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Sleep") != "" {
			time.Sleep(3 * d) // the scenario: a handler slower than WriteTimeout
		}
		_, _ = io.WriteString(w, "ok")
	})
	cases := []struct {
		name string
		opts h1serve.Options
		// first is answered before the timed wait starts; then is sent
		// and must get no answer.
		first, then string
	}{
		{"idle", h1serve.Options{IdleTimeout: d, ReadHeaderTimeout: 10 * d}, post("a"), ""},
		{"read header, no byte", h1serve.Options{ReadHeaderTimeout: d, IdleTimeout: 10 * d}, "", ""},
		{"read header, partial head", h1serve.Options{ReadHeaderTimeout: d, IdleTimeout: 10 * d}, "", "POST / HTTP/1.1\r\nHost: a\r\n"},
		{"read header, on a kept connection", h1serve.Options{ReadHeaderTimeout: d, IdleTimeout: 10 * d}, post("a"), "POST / HTTP/1.1\r\nHo"},
		{"read timeout bounds the head", h1serve.Options{ReadTimeout: d}, "", "POST / HTTP/1.1\r\n"},
		{"write", h1serve.Options{WriteTimeout: d}, "", post("a", "X-Sleep: 1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFast(t, slow, fastConfig{opts: tc.opts})
			c := dial(t, f.addr)
			if tc.first != "" {
				send(t, c, tc.first)
				if _, body := readAnswer(t, bufio.NewReader(c)); body != "ok" {
					t.Fatalf("first answer %q", body)
				}
			}
			start := time.Now()
			send(t, c, tc.then)
			out := waitClosed(t, c)
			if el := time.Since(start); len(out) != 0 || el < d-d/32 || el > 10*d {
				t.Errorf("closed after %v with %q; want a close after about %v, no bytes", el, out, d)
			}
		})
	}
}

// TestReadTimeoutBody shows a body that never completes: the handler's Read
// fails with a timeout by ReadTimeout, and the connection ends after the
// answer, as with net/http.
func TestReadTimeoutBody(t *testing.T) {
	t.Parallel()
	const d = 150 * time.Millisecond
	errs := make(chan string, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		errs <- errKind(err)
		http.Error(w, "body: "+errKind(err), http.StatusBadRequest)
	})
	f := startFast(t, h, fastConfig{opts: h1serve.Options{ReadTimeout: d}})
	plain := startPlain(t, h, func(s *http.Server) { s.ReadTimeout = d })
	var outs [2][]byte
	for i, addr := range []string{f.addr, plain} {
		c := dial(t, addr)
		start := time.Now()
		send(t, c, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
		if got := recv(t, errs, "the handler"); got != "timeout" {
			t.Errorf("server %d: body read error %s, want timeout", i, got)
		}
		outs[i] = waitClosed(t, c)
		if el := time.Since(start); el < d-d/32 || el > 10*d {
			t.Errorf("server %d: the body timed out after %v, want about %v", i, el, d)
		}
	}
	if diff := diffAnswers(outs[0], outs[1]); diff != "" {
		t.Errorf("fast path and net/http differ:\n%s", diff)
	}
}

// TestShutdown shows Shutdown closing idle connections (fast and handed
// over), refusing new ones, letting an in-flight request finish with its
// answer, and returning after it.
func TestShutdown(t *testing.T) {
	t.Parallel()
	b := newBlocker()
	f := startFast(t, b, fastConfig{})
	busy := dial(t, f.addr)
	send(t, busy, post("x", "X-Block: 1"))
	recv(t, b.arrived, "the in-flight request")
	var idle []net.Conn
	for _, req := range []string{post("y"), "GET / HTTP/1.1\r\nHost: a\r\n\r\n"} {
		c := dial(t, f.addr)
		send(t, c, req)
		readAnswer(t, bufio.NewReader(c))
		idle = append(idle, c)
	}
	shut := make(chan error, 1)
	go func() { shut <- f.srv.Shutdown(context.Background()) }()
	for i, c := range idle {
		if out := waitClosed(t, c); len(out) != 0 {
			t.Errorf("idle connection %d got %q", i, out)
		}
	}
	if c, err := net.DialTimeout("tcp", f.addr, ioWait); err == nil {
		_ = c.Close()
		t.Errorf("a new connection was accepted during Shutdown")
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v before the in-flight request ended", err)
	default:
	}
	close(b.release)
	as, _ := parseAnswers(waitClosed(t, busy))
	if len(as) != 1 || as[0].Body != "done POST" {
		t.Errorf("in-flight request got %+v, want its answer", as)
	}
	if err := recv(t, shut, "Shutdown"); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := recv(t, f.done, "Serve"); !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
	}
	f.done <- http.ErrServerClosed // for the cleanup
}

// TestClose shows Close ending every connection at once, in-flight or idle,
// on the fast path and on the fallback.
func TestClose(t *testing.T) {
	t.Parallel()
	b := newBlocker()
	defer close(b.release)
	f := startFast(t, b, fastConfig{})
	var conns []net.Conn
	for _, req := range []string{post("x", "X-Block: 1"), "GET / HTTP/1.1\r\nHost: a\r\nX-Block: 1\r\n\r\n"} {
		c := dial(t, f.addr)
		send(t, c, req)
		recv(t, b.arrived, "an in-flight request")
		conns = append(conns, c)
	}
	idle := dial(t, f.addr)
	send(t, idle, post("y"))
	readAnswer(t, bufio.NewReader(idle))
	conns = append(conns, idle)
	if err := f.srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for i, c := range conns {
		if out := waitClosed(t, c); len(out) != 0 {
			t.Errorf("connection %d got %q after Close", i, out)
		}
	}
}

// TestContextCancelledOnDisconnect shows a handler waiting on its request
// context, after reading the body, cancelled when the client goes away:
// whether it asks for Done before the client leaves, or only after (as the
// backend client does once a call has run for a while).
func TestContextCancelledOnDisconnect(t *testing.T) {
	t.Parallel()
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("Done asked after the client left=%v", late), func(t *testing.T) {
			t.Parallel()
			ready := make(chan struct{}, 1)
			left := make(chan struct{})
			res := make(chan error, 1)
			f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				ready <- struct{}{}
				if late {
					<-left
					time.Sleep(2 * h1serve.WatchDelay)
				}
				select {
				case <-r.Context().Done():
					res <- r.Context().Err()
				case <-time.After(ioWait):
					res <- nil
				}
			}), fastConfig{})
			c := dial(t, f.addr)
			send(t, c, post(`{"method":"upstream"}`))
			recv(t, ready, "the handler")
			_ = c.Close()
			close(left)
			if err := recv(t, res, "the handler's context"); !errors.Is(err, context.Canceled) {
				t.Errorf("context error %v after the client left, want context.Canceled", err)
			}
		})
	}
}

// TestContextLifetime shows a request context not cancelled while its
// handler runs and cancelled once it returned, whether or not the handler
// looked at Done.
func TestContextLifetime(t *testing.T) {
	t.Parallel()
	type seen struct {
		ctx    context.Context
		during error
	}
	for _, useDone := range []bool{false, true} {
		t.Run(fmt.Sprintf("Done called=%v", useDone), func(t *testing.T) {
			t.Parallel()
			ch := make(chan seen, 1)
			f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if useDone {
					select {
					case <-r.Context().Done():
					default:
					}
				}
				ch <- seen{r.Context(), r.Context().Err()}
			}), fastConfig{})
			c := dial(t, f.addr)
			send(t, c, post("a"))
			readAnswer(t, bufio.NewReader(c))
			s := recv(t, ch, "the handler")
			if s.during != nil {
				t.Errorf("context cancelled while the handler ran: %v", s.during)
			}
			if err := s.ctx.Err(); !errors.Is(err, context.Canceled) {
				t.Errorf("context error %v after the handler returned, want context.Canceled", err)
			}
			select {
			case <-s.ctx.Done():
			default:
				t.Errorf("Done not closed after the handler returned")
			}
		})
	}
}

// TestHandlerPanic shows a handler panic closing its connection without an
// answer and being logged (http.ErrAbortHandler silently), while the server
// goes on serving other connections.
func TestHandlerPanic(t *testing.T) {
	t.Parallel()
	var logs syncbuf.Buffer
	f := startFast(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("X-Panic") {
		case "boom":
			panic("boom")
		case "abort":
			panic(http.ErrAbortHandler)
		}
		_, _ = io.WriteString(w, "fine")
	}), fastConfig{opts: h1serve.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
	for _, kind := range []string{"boom", "abort"} {
		c := dial(t, f.addr)
		send(t, c, post("", "X-Panic: "+kind)+post(""))
		if out := waitClosed(t, c); len(out) != 0 {
			t.Errorf("panic %s: got %q, want the connection closed without an answer", kind, out)
		}
		c2 := dial(t, f.addr)
		send(t, c2, post(""))
		if _, body := readAnswer(t, bufio.NewReader(c2)); body != "fine" {
			t.Errorf("after panic %s: %q", kind, body)
		}
	}
	if l := logs.String(); strings.Count(l, "panic serving request") != 1 || !strings.Contains(l, "boom") {
		t.Errorf("log %q: want the one panic that is not ErrAbortHandler", l)
	}
}
