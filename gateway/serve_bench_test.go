//go:build unix

package gateway_test

// End-to-end benchmarks of the three paths ../shared/perf measures (a
// forwarded call, a batch of 10 forwarded calls, a cache hit), in one
// process: a real net/http client with 32 kept-alive connections, the
// server on 127.0.0.1 (hivegate's production handler tree on
// gateway.NewHTTPServer), and a loopback fake node. Beside each hivegate
// path runs its ceiling on net/http alone, as ../shared/perf's fakenode
// has them: netproxy (a minimal forwarding proxy: read the body, forward
// it with a tuned Transport, copy the answer back) for the forwarded
// paths, and a minimal server writing a fixed answer for the cache hit.
// The client and the node run in the same process and cost the same in
// both rows, so the ratio of two rows' ns/op understates the gap between
// the servers alone; run with -cpu 1 to read ns/op as CPU per request:
//
//	go test ./gateway -run '^$' -bench Serve -benchmem -cpu 1 -count 5

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// serveBenchConns is the client's connections and concurrent callers, as
// wrk -c32 in ../shared/perf.
const serveBenchConns = 32

// serveBenchConfig is ../shared/perf/conf/hivegate.yaml.
const serveBenchConfig = `hivegate:
  hostname: 127.0.0.1
  port: 0
  cache_max_capacity: 268435456
  middleware_connection_threads: 32
  access_log: false
  lib_poll_interval: 3
  metrics: {enabled: true, path: /metrics}
backends:
  node: %s
urls:
  appbase: node
  hived: node
ttls:
  appbase: NO_CACHE
  hived: NO_CACHE
  appbase.condenser_api.get_block: 3600
timeouts:
  appbase: 5
  hived: 5
retries:
  appbase: 0
  hived: 0
limits:
  max_batch_size: 50
`

// benchBlockResult is the fake node's ~300-byte result, as ../shared/perf's.
const benchBlockResult = `{"number":"0x100","hash":"0x8c7f1d3c7b0a6f9e8d2c4b6a19f0e3d2c1b0a99887766554433221100ffeeddcc","parentHash":"0x1d2c3b4a59687766554433221100ffeeddccbbaa99887766554433221100ffee","timestamp":"0x66d5f2a0","gasLimit":"0x1c9c380","gasUsed":"0x0","miner":"0x0000000000000000000000000000000000000000","transactions":[]}`

// benchNode is ../shared/perf's fake node: every call, single or in a
// batch, gets benchBlockResult with its id.
type benchNode struct{ bufs sync.Pool }

type benchNodeCall struct {
	ID json.RawMessage `json:"id"`
}

func (n *benchNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in := n.bufs.Get().(*bytes.Buffer)
	defer n.bufs.Put(in)
	in.Reset()
	if _, err := in.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body := bytes.TrimLeft(in.Bytes(), " \t\r\n")
	out := make([]byte, 0, 4096)
	answer := func(id json.RawMessage) {
		out = append(out, `{"jsonrpc":"2.0","id":`...)
		out = append(out, id...)
		out = append(out, `,"result":`...)
		out = append(out, benchBlockResult...)
		out = append(out, '}')
	}
	if len(body) > 0 && body[0] == '[' {
		var calls []benchNodeCall
		if err := json.Unmarshal(body, &calls); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out = append(out, '[')
		for i, c := range calls {
			if i > 0 {
				out = append(out, ',')
			}
			answer(c.ID)
		}
		out = append(out, ']')
	} else {
		var c benchNodeCall
		if err := json.Unmarshal(body, &c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer(c.ID)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// benchNetproxy is ../shared/perf's netproxy: the body forwarded as it is
// with a tuned Transport, the answer copied back.
type benchNetproxy struct {
	upstream string
	client   *http.Client
	bufs     sync.Pool
}

func (p *benchNetproxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in := p.bufs.Get().(*bytes.Buffer)
	defer p.bufs.Put(in)
	in.Reset()
	if _, err := in.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, p.upstream, bytes.NewReader(in.Bytes()))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	out := p.bufs.Get().(*bytes.Buffer)
	defer p.bufs.Put(out)
	out.Reset()
	if _, err := out.ReadFrom(resp.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out.Bytes())
}

// benchMinimal is ../shared/perf's minimal server: a fixed answer.
type benchMinimal struct{ body []byte }

func (m *benchMinimal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(m.body)
}

// serveBenchListen serves h on 127.0.0.1 with srv (a plain http.Server
// when nil) until the benchmark ends, and returns its URL.
func serveBenchListen(b *testing.B, h http.Handler, srv *http.Server) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	if srv == nil {
		srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	b.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return "http://" + ln.Addr().String() + "/"
}

// serveBenchTransport is a tuned client Transport of serveBenchConns
// kept-alive connections, as netproxy's and wrk's.
func serveBenchTransport() *http.Transport {
	return &http.Transport{
		MaxIdleConns: 2 * serveBenchConns, MaxIdleConnsPerHost: serveBenchConns, MaxConnsPerHost: serveBenchConns,
		IdleConnTimeout: 90 * time.Second, DisableCompression: true,
		WriteBufferSize: 16 << 10, ReadBufferSize: 16 << 10,
	}
}

// serveBenchSetup is the servers of one benchmark run.
type serveBenchSetup struct {
	node, hivegate, netproxy, minimal string
}

func newServeBenchSetup(b *testing.B) serveBenchSetup {
	b.Helper()
	var s serveBenchSetup
	n := &benchNode{}
	n.bufs.New = func() any { return new(bytes.Buffer) }
	s.node = serveBenchListen(b, n, nil)

	cfg, err := config.Parse("bench.yaml", fmt.Appendf(nil, serveBenchConfig, strings.TrimSuffix(s.node, "/")))
	if err != nil {
		b.Fatal(err)
	}
	gw, err := gateway.New(cfg, gateway.Options{Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(gw.Close)
	s.hivegate = serveBenchListen(b, nil, gateway.NewHTTPServer("", gw.Handler(), gateway.TimeoutsFromLimits(cfg.Limits), nil))

	pt := serveBenchTransport()
	b.Cleanup(pt.CloseIdleConnections)
	p := &benchNetproxy{upstream: s.node, client: &http.Client{Transport: pt, Timeout: 5 * time.Second}}
	p.bufs.New = func() any { return new(bytes.Buffer) }
	s.netproxy = serveBenchListen(b, p, nil)

	s.minimal = serveBenchListen(b, &benchMinimal{body: []byte(`{"jsonrpc":"2.0","id":1,"result":` + benchBlockResult + `}`)}, nil)
	return s
}

// serveBenchBodies are ../shared/perf's request bodies for hivegate.
func serveBenchBodies() (miss, hit, batch10 string) {
	el := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"condenser_api.get_transaction","params":["%061x"]}`, i, i)
	}
	els := make([]string, 10)
	for i := range els {
		els[i] = el(i + 1)
	}
	return el(1), `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[256]}`, "[" + strings.Join(els, ",") + "]"
}

// serveBenchLoad posts body to url from serveBenchConns goroutines until
// b.N requests are answered, each checked for status 200 and, when
// cacheWant is set, its x-hivegate-cache header.
func serveBenchLoad(b *testing.B, url, body, cacheWant string) {
	b.Helper()
	t := serveBenchTransport()
	defer t.CloseIdleConnections()
	client := &http.Client{Transport: t}
	data := []byte(body)
	post := func(buf *bytes.Buffer) error {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(data))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		buf.Reset()
		_, err = buf.ReadFrom(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d: %s", resp.StatusCode, buf.Bytes())
		}
		if cacheWant != "" && resp.Header.Get("X-Hivegate-Cache") != cacheWant {
			return fmt.Errorf("x-hivegate-cache %q, want %q", resp.Header.Get("X-Hivegate-Cache"), cacheWant)
		}
		if !bytes.Contains(buf.Bytes(), []byte(`"result":{"number":"0x100"`)) {
			return fmt.Errorf("answer without the result: %.200s", buf.Bytes())
		}
		return nil
	}
	// Warm up: fill the cache (one call first, so that the others hit),
	// then open the connections on both sides.
	var first bytes.Buffer
	if err := post(&first); err != nil && cacheWant == "" {
		b.Fatal(err)
	}
	var warm sync.WaitGroup
	errs := make(chan error, serveBenchConns)
	for range serveBenchConns {
		warm.Go(func() {
			var buf bytes.Buffer
			for range 4 {
				if err := post(&buf); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	warm.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := processCPU(b)
	b.ResetTimer()
	// RunParallel starts parallelism × GOMAXPROCS goroutines: 32 callers.
	b.SetParallelism(max(1, (serveBenchConns+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		var buf bytes.Buffer
		for pb.Next() {
			if err := post(&buf); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	// The process's CPU time per request (user and system, every
	// goroutine): on a shared machine it varies less than ns/op.
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkServe serves ../shared/perf's scenarios end to end, each
// beside its net/http ceiling: miss (one forwarded call) and batch10 (ten
// forwarded calls, sent upstream as one batch) against netproxy, hit (a
// cached get_block) against the minimal server.
func BenchmarkServe(b *testing.B) {
	s := newServeBenchSetup(b)
	miss, hit, batch10 := serveBenchBodies()
	cases := []struct{ name, url, body, cache string }{
		{"miss/hivegate", s.hivegate, miss, "bypass"},
		{"miss/netproxy", s.netproxy, miss, ""},
		{"batch10/hivegate", s.hivegate, batch10, ""},
		{"batch10/netproxy", s.netproxy, batch10, ""},
		{"hit/hivegate", s.hivegate, hit, "hit"},
		{"hit/minimal", s.minimal, hit, ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { serveBenchLoad(b, c.url, c.body, c.cache) })
	}
}
