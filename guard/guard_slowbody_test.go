package guard_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/guard"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// TestGuardSlowBodyHoldsNoPlace shows that a request whose body is still
// arriving does not hold a max_in_flight place: with one place and a slow
// body pending, another request is served. On f967f52 the slow body held
// the place and the other request got 503 -32018.
func TestGuardSlowBodyHoldsNoPlace(t *testing.T) {
	t.Parallel()
	g := guard.New(jsonrpchttp.NewHandler(&echoCaller{}, jsonrpchttp.HandlerOptions{}), guard.Options{MaxInFlight: 1})
	// reading is closed at the first read of a request body: the Guard has
	// taken the request in (and, had it taken a place first, holds it).
	reading := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &onRead{ReadCloser: r.Body, f: func() { once.Do(func() { close(reading) }) }}
		g.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	slow, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	body := `{"jsonrpc":"2.0","id":7,"method":"slow"}`
	if _, err := io.WriteString(slow, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n"+body[:10]); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reading: // the slow request is in the Guard
	case <-time.After(10 * time.Second):
		t.Fatal("the Guard never read the slow body")
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"fast"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"m":"fast"`) {
		t.Fatalf("with a slow body pending: HTTP %d %s", resp.StatusCode, b)
	}
	// The slow body, once in, is served as usual.
	if _, err := io.WriteString(slow, body[10:]); err != nil {
		t.Fatal(err)
	}
	_ = slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	sresp, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(sresp.Body)
	if sresp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"m":"slow"`) || !strings.Contains(string(b), `"id":7`) {
		t.Errorf("the slow request: HTTP %d %s", sresp.StatusCode, b)
	}
}

// onRead calls f before each Read of the body it wraps.
type onRead struct {
	io.ReadCloser
	f func()
}

func (b *onRead) Read(p []byte) (int, error) {
	b.f()
	return b.ReadCloser.Read(p)
}
