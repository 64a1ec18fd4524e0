package h1serve

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
)

// benchHead is a head as JSON-RPC clients send it.
const benchHead = "POST / HTTP/1.1\r\nHost: api.example:8090\r\nUser-Agent: beem/0.24\r\n" +
	"Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: 91\r\n\r\n"

func BenchmarkParseHead(b *testing.B) {
	buf := []byte(benchHead)
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		var h head
		st := new(request)
		if !parseHead(buf, "/", &h, st.vals[:], &st.url) {
			b.Fatal("not parsed")
		}
	}
}

// BenchmarkServe measures one request and answer on a kept-alive loopback
// connection through the fast path, with a handler that reads the body and
// answers a fixed JSON body, as a cache hit does.
func BenchmarkServe(b *testing.B) {
	answer := []byte(`{"jsonrpc":"2.0","result":{"head_block_number":1},"id":1}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header()["Content-Type"] = []string{"application/json"}
		_, _ = w.Write(answer)
	})
	s := New(h, &http.Server{Handler: h}, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = s.Serve(ln) }()
	b.Cleanup(func() { _ = s.Close() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","method":"condenser_api.get_dynamic_global_properties","params":[],"id":1}`
	req := []byte("POST / HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	br := bufio.NewReader(conn)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conn.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("HTTP %d, %v", resp.StatusCode, err)
		}
		resp.Body.Close()
	}
}
