// Package clientlib_test measures the two well-kept HTTP clients hivegate
// could call its nodes with, on the miss path's exchange: one JSON-RPC POST
// of a small call and its ~300-byte answer over a kept-alive loopback
// connection, from 32 concurrent callers (as the load harness's wrk -c32).
// Both use their libraries' tuned settings and the same fake node
// (bench/fakenode). The backend package uses net/http's Transport (see its
// doc and docs/performance.md for why); this is the measurement the
// choice rests on:
//
//	cd bench/compare && go test -run '^$' -bench . -benchmem ./clientlib
//
// It lives in the module bench/compare so that hivegate's own module does
// not require fasthttp.
package clientlib_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/hivegate/hivegate/bench/fakenode"
	"github.com/hivegate/hivegate/hivesim"
)

const call = `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_dynamic_global_properties","params":[]}`

// startNode serves the fake node (the harness's backend) on 127.0.0.1.
func startNode(b *testing.B) string {
	b.Helper()
	a, err := fakenode.NewAnswers(fakenode.Options{Accounts: hivesim.DefaultAccounts})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: fakenode.NewBackend(a), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

func BenchmarkNetHTTPTransport(b *testing.B) {
	addr := startNode(b)
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	tr := &http.Transport{
		Protocols: &protocols, MaxConnsPerHost: 32, MaxIdleConnsPerHost: 32,
		DisableCompression: true, WriteBufferSize: 16 << 10, ReadBufferSize: 16 << 10,
	}
	b.Cleanup(tr.CloseIdleConnections)
	url := "http://" + addr + "/"
	body := []byte(call)
	b.SetParallelism(16) // 32 callers on 2 CPUs
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 0, 4096)
		for pb.Next() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, io.NopCloser(bytes.NewReader(body)))
			req.ContentLength = int64(len(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := tr.RoundTrip(req)
			if err != nil {
				cancel()
				b.Error(err)
				return
			}
			buf = buf[:0]
			for {
				if len(buf) == cap(buf) {
					buf = append(buf, 0)[:len(buf)]
				}
				n, err := resp.Body.Read(buf[len(buf):cap(buf)])
				buf = buf[:len(buf)+n]
				if err != nil {
					break
				}
			}
			resp.Body.Close()
			cancel()
			if resp.StatusCode != http.StatusOK || !bytes.Contains(buf, []byte(`"result"`)) {
				b.Errorf("HTTP %d %q", resp.StatusCode, buf)
				return
			}
		}
	})
}

func BenchmarkFasthttpHostClient(b *testing.B) {
	addr := startNode(b)
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: 32, ReadBufferSize: 16 << 10, WriteBufferSize: 16 << 10}
	b.SetParallelism(16)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		for pb.Next() {
			req.Reset()
			req.SetRequestURI("http://" + addr + "/")
			req.Header.SetMethod(fasthttp.MethodPost)
			req.Header.SetContentType("application/json")
			req.SetBodyString(call)
			if err := hc.DoDeadline(req, resp, time.Now().Add(5*time.Second)); err != nil {
				b.Error(err)
				return
			}
			if resp.StatusCode() != fasthttp.StatusOK || !bytes.Contains(resp.Body(), []byte(`"result"`)) {
				b.Errorf("HTTP %d %q", resp.StatusCode(), resp.Body())
				return
			}
		}
	})
}
