//go:build soak

package soak_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/faults"
)

var (
	duration = flag.Duration("soak.duration", 60*time.Second, "how long the load runs (or HIVEGATE_SOAK_DURATION)")
	workers  = flag.Int("soak.workers", 32, "concurrent clients")
)

const (
	// cacheBudget is the cache_max_capacity of the soak gateway.
	cacheBudget = 32 << 20
	// heapMargin is what the heap may hold beyond the cache budget after a
	// GC: the cache's own bookkeeping (LRU nodes, map buckets, keys), pooled
	// buffers, HTTP connections of the clients and backends, and the test's
	// own counters.
	heapMargin = 48 << 20
	// rssMargin is the same for the process RSS after returning freed
	// memory to the OS: the heap margin plus the Go runtime, stacks and
	// the binary.
	rssMargin = 96 << 20
	// padding makes every cache-miss result about 2 KiB, so that the
	// misses of a run overflow the budget several times.
	padding = 2000
)

// kind is one sort of call in the mix.
type kind int

const (
	hit    kind = iota // a stable key from a small hot set
	miss               // a unique key
	live               // a NO_CACHE route: the result is lent, not copied
	flappy             // a call to the flapping backend
	absent             // a method no backend serves
	nKinds
)

var kindNames = [...]string{"hit", "miss", "live", "flappy", "no route"}

// want is what a call must be answered with.
type want struct {
	kind   kind
	id     string
	method string // upstream method, for the echo
	params string
}

// callFor builds call number i of worker w.
func callFor(r *rand.Rand, w, i int) (string, want) {
	id := strconv.Itoa(w*10_000_000 + i)
	if r.IntN(3) == 0 {
		id = `"s-` + id + `"` // string ids too
	}
	var k kind
	switch p := r.IntN(100); {
	case p < 45:
		k = hit
	case p < 65:
		k = miss
	case p < 80:
		k = live
	case p < 92:
		k = flappy
	default:
		k = absent
	}
	var method, params string
	switch k {
	case hit:
		method, params = "stable.test_api.get", `[`+strconv.Itoa(r.IntN(256))+`]`
	case miss:
		method, params = "stable.test_api.get", `["`+strconv.Itoa(w)+`-`+strconv.Itoa(i)+`-`+strings.Repeat("p", padding)+`"]`
	case live:
		// Some results are large enough to be written from the lent
		// buffer itself rather than copied into the answer.
		n := 10 + r.IntN(200)
		if r.IntN(8) == 0 {
			n = 40_000
		}
		method, params = "live.test_api.get", `["`+strconv.Itoa(w)+`-`+strconv.Itoa(i)+`-`+strings.Repeat("l", n)+`"]`
	case flappy:
		method, params = "flappy.test_api.get", `[`+strconv.Itoa(r.IntN(64))+`]`
	case absent:
		method, params = "nowhere.test_api.get", `[1]`
	}
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
	_, upstream, _ := strings.Cut(method, ".")
	return body, want{kind: k, id: id, method: upstream, params: params}
}

// answer is one JSON-RPC response.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// check reports what is wrong with a against w, or "".
func check(a answer, w want) string {
	if string(a.ID) != w.id {
		return fmt.Sprintf("id %s, want %s", a.ID, w.id)
	}
	if a.Error == nil {
		if w.kind == absent {
			return "a result for a method with no route"
		}
		if string(a.Result) != string(faults.Echo(w.method, json.RawMessage(w.params))) {
			return fmt.Sprintf("result %.120s is not the answer to %.120s", a.Result, w.params)
		}
		return ""
	}
	switch c := a.Error.Code; {
	case w.kind == absent && c == -32601:
	case w.kind == flappy && (c == -32010 || c == -32011 || c == -32012):
	default:
		return fmt.Sprintf("%s call: error %d", kindNames[w.kind], c)
	}
	return ""
}

type stats struct {
	requests, calls, batches, failed atomic.Int64
	upstreamErr                      atomic.Int64
	byKind                           [nKinds]atomic.Int64
}

func TestSoak(t *testing.T) {
	d := *duration
	if env := os.Getenv("HIVEGATE_SOAK_DURATION"); env != "" {
		var err error
		if d, err = time.ParseDuration(env); err != nil {
			t.Fatalf("HIVEGATE_SOAK_DURATION: %v", err)
		}
	}
	baseline := runtime.NumGoroutine()

	stable, err := faults.New(faults.Healthy, faults.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stable.Close()
	flap, err := faults.New(faults.Healthy, faults.Options{Stall: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer flap.Close()
	yaml := fmt.Sprintf(`hivegate:
  cache_max_capacity: %d
  middleware_connection_threads: 64
backends:
  stable: %s
  flappy: %s
urls:
  stable: stable
  live: stable
  flappy: flappy
ttls:
  stable: 30
  live: NO_CACHE
  flappy: 1
timeouts:
  stable: 10
  live: 10
  flappy: 1
retries:
  flappy: 1
`, cacheBudget, stable.URL, flap.URL)
	cfg, err := config.Parse("soak.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	g, err := faults.NewGateway(cfg, faults.GatewayOptions{HealthInterval: 200 * time.Millisecond, FailThreshold: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The production server, HTTP/1.1 fast path included.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := faults.MainServer(g.Handler, cfg.Settings, cfg.Limits)
	go func() { _ = srv.Serve(ln) }()
	srvURL := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	g.Start(ctx)

	// The flapping backend cycles through faults: up 400 ms, down 250 ms.
	flapDone := make(chan struct{})
	go func() {
		defer close(flapDone)
		cycle := []faults.Fault{faults.Reset, faults.Status5xx, faults.NoListener, faults.HTML, faults.SlowHeaders, faults.WrongID}
		for i := 0; ; i++ {
			flap.Set(faults.Healthy)
			if !sleep(ctx, 400*time.Millisecond) {
				break
			}
			flap.Set(cycle[i%len(cycle)])
			if !sleep(ctx, 250*time.Millisecond) {
				break
			}
		}
		flap.Set(faults.Healthy)
		flap.Release()
	}()

	tr := &http.Transport{MaxIdleConnsPerHost: *workers, MaxConnsPerHost: *workers}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var st stats
	var complaints atomic.Int64
	complain := func(format string, args ...any) {
		st.failed.Add(1)
		if complaints.Add(1) <= 20 {
			t.Errorf(format, args...)
		}
	}
	var peakGoroutines atomic.Int64
	start := time.Now()
	stop := start.Add(d)
	var wg sync.WaitGroup
	for w := range *workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 42))
			buf := new(bytes.Buffer)
			for i := 0; time.Now().Before(stop); i++ {
				var body string
				var wants []want
				if r.IntN(100) < 15 {
					n := 2 + r.IntN(9)
					parts := make([]string, n)
					for j := range parts {
						var wt want
						parts[j], wt = callFor(r, w, i*16+j)
						wants = append(wants, wt)
					}
					body = "[" + strings.Join(parts, ",") + "]"
					st.batches.Add(1)
				} else {
					var wt want
					body, wt = callFor(r, w, i*16)
					wants = append(wants, wt)
				}
				resp, err := client.Post(srvURL, "application/json", strings.NewReader(body))
				if err != nil {
					complain("POST: %v", err)
					continue
				}
				buf.Reset()
				_, err = io.Copy(buf, resp.Body)
				resp.Body.Close()
				if err != nil {
					complain("reading: %v", err)
					continue
				}
				st.requests.Add(1)
				var answers []answer
				if len(wants) > 1 || strings.HasPrefix(body, "[") {
					err = json.Unmarshal(buf.Bytes(), &answers)
				} else {
					answers = make([]answer, 1)
					err = json.Unmarshal(buf.Bytes(), &answers[0])
				}
				if err != nil || len(answers) != len(wants) {
					complain("answer %.200s to %.200s: %v", buf.Bytes(), body, err)
					continue
				}
				for j, a := range answers {
					st.calls.Add(1)
					st.byKind[wants[j].kind].Add(1)
					if a.Error != nil && wants[j].kind == flappy {
						st.upstreamErr.Add(1)
					}
					if msg := check(a, wants[j]); msg != "" {
						complain("%s", msg)
					}
				}
				if i%1000 == 0 {
					if n := int64(runtime.NumGoroutine()); n > peakGoroutines.Load() {
						peakGoroutines.Store(n)
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	cs := g.Cache.Stats()

	// Wind down: stop the flapping and the prober, close idle connections.
	cancel()
	<-flapDone
	tr.CloseIdleConnections()
	_ = srv.Close()
	g.Close()
	stable.Close()
	flap.Close()

	goroutines := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); goroutines > baseline+2 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		goroutines = runtime.NumGoroutine()
	}
	if goroutines > baseline+2 {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Errorf("goroutines: %d after the load, baseline %d\n%s", goroutines, baseline, buf[:n])
	}

	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, hwm := procStatus("VmRSS"), procStatus("VmHWM")
	runtime.KeepAlive(g) // the cache is live while measured
	if ms.HeapAlloc > cacheBudget+heapMargin {
		t.Errorf("heap %d MiB after GC, over the budget %d MiB + margin %d MiB", ms.HeapAlloc>>20, cacheBudget>>20, heapMargin>>20)
	}
	if rss > cacheBudget+rssMargin {
		t.Errorf("RSS %d MiB, over the budget %d MiB + margin %d MiB", rss>>20, cacheBudget>>20, rssMargin>>20)
	}
	if cs.Bytes > cs.Capacity {
		t.Errorf("cache holds %d bytes, over its capacity %d", cs.Bytes, cs.Capacity)
	}
	if st.calls.Load() == 0 || st.byKind[hit].Load() == 0 || st.byKind[live].Load() == 0 || cs.Evictions == 0 {
		t.Errorf("the mix did not happen: %d calls, %d hits, %d live, %d evictions", st.calls.Load(), st.byKind[hit].Load(), st.byKind[live].Load(), cs.Evictions)
	}
	t.Logf("soak: %s, %d workers, GOMAXPROCS %d", elapsed.Round(time.Millisecond), *workers, runtime.GOMAXPROCS(0))
	t.Logf("requests %d (%.0f/s), calls %d (%.0f/s), batches %d, wrong answers %d",
		st.requests.Load(), float64(st.requests.Load())/elapsed.Seconds(), st.calls.Load(),
		float64(st.calls.Load())/elapsed.Seconds(), st.batches.Load(), st.failed.Load())
	t.Logf("by kind: hit %d, miss %d, live %d, flappy %d (upstream errors %d), no route %d",
		st.byKind[hit].Load(), st.byKind[miss].Load(), st.byKind[live].Load(), st.byKind[flappy].Load(), st.upstreamErr.Load(), st.byKind[absent].Load())
	t.Logf("cache: %d entries, %d of %d bytes, %d hits, %d misses, %d evictions",
		cs.Entries, cs.Bytes, cs.Capacity, cs.Hits, cs.Misses, cs.Evictions)
	t.Logf("memory: heap %d MiB after GC (limit %d), RSS %d MiB (limit %d), peak RSS %d MiB; goroutines baseline %d, peak %d, end %d",
		ms.HeapAlloc>>20, (cacheBudget+heapMargin)>>20, rss>>20, (cacheBudget+rssMargin)>>20, hwm>>20,
		baseline, peakGoroutines.Load(), goroutines)
}

// procStatus reads a kB figure from /proc/self/status, in bytes.
func procStatus(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
