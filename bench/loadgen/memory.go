package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MemoryConfig is the memory check: a gateway with cache_max_capacity
// Capacity is filled past its budget with distinct keys while its RSS is
// watched.
type MemoryConfig struct {
	// Capacity is cache_max_capacity in bytes (0: no memory check).
	Capacity int64
	// FillFactor is how many times Capacity of answer bytes to send
	// through the cache (default 1.5).
	FillFactor float64
	// Timeout bounds the fill (default 60s).
	Timeout time.Duration
	// Method is "block" (condenser_api.get_block batches, ~1.6 KB values,
	// many small entries), "accounts" (list_accounts pages of 1000
	// accounts, ~2.8 MB values) or "typed" (the same pages through Connect
	// ListAccounts: each entry also keeps its decoded message and its
	// encoding, charged to the budget).
	Method string
	// Workers is the number of concurrent fill clients (default 8).
	Workers int
	// GOMEMLIMIT, when set, is passed to the gateway's environment.
	GOMEMLIMIT string
}

// MemoryTarget is the RSS a gateway with capacity may use: 1.3 × capacity + 64 MiB.
func MemoryTarget(capacity int64) int64 { return capacity*13/10 + 64<<20 }

// MemoryResult is what the memory check measured.
type MemoryResult struct {
	MemoryConfig
	Target int64
	// RSS is VmRSS right after the fill; Peak is VmHWM; SampledMax the
	// largest VmRSS seen every 100 ms during the fill.
	RSS, Peak, SampledMax int64
	// RSSAfterGC is VmRSS after a forced collection that returns free
	// memory to the OS (how much of RSS was collector headroom).
	RSSAfterGC int64
	// Requests and Calls are HTTP requests and JSON-RPC calls sent;
	// Bytes is the answer bytes received; Errors counts failed requests.
	Requests, Calls, Bytes, Errors int64
	// FirstError is what the first failed request got.
	FirstError string
	Elapsed    time.Duration
	// Stats is the gateway's control report after the fill; StatsAfterGC
	// after the forced collection (the live heap).
	Stats, StatsAfterGC ServerStats
	GOMAXPROCS          int
}

func (m *MemoryConfig) withDefaults() {
	if m.FillFactor <= 0 {
		m.FillFactor = 1.5
	}
	if m.Timeout <= 0 {
		m.Timeout = 60 * time.Second
	}
	if m.Method == "" {
		m.Method = "block"
	}
	if m.Workers <= 0 {
		m.Workers = 8
	}
}

// fillPath is the path the fill requests of method go to.
func fillPath(method string) string {
	if method == "typed" {
		return ConnectListAccountsPath
	}
	return "/"
}

// fillBody returns the request for fill step n and its number of calls.
func fillBody(method string, n int64) (string, int64) {
	if method == "typed" {
		return `{"limit":1000,"order":"LIST_ACCOUNTS_ORDER_BY_NAME","start":{"byName":{"account":"fill-` +
			strconv.FormatInt(n, 10) + `"}}}`, 1
	}
	if method == "accounts" {
		return `{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start":"fill-` +
			strconv.FormatInt(n, 10) + `","limit":1000,"order":"by_name"}}`, 1
	}
	var b strings.Builder
	b.WriteByte('[')
	for i := range int64(BatchSize) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"condenser_api.get_block","params":[%d]}`, i+1, n*BatchSize+i+1)
	}
	b.WriteByte(']')
	return b.String(), BatchSize
}

func (r *runner) memory(ctx context.Context) (*MemoryResult, error) {
	mc := r.cfg.Memory
	mc.withDefaults()
	var env []string
	if mc.GOMEMLIMIT != "" {
		env = append(env, "GOMEMLIMIT="+mc.GOMEMLIMIT)
	}
	gw, err := r.startGateway(ctx, "3600", mc.Capacity, "mem", env)
	if err != nil {
		return nil, err
	}
	defer gw.Stop()
	res := &MemoryResult{MemoryConfig: mc, Target: MemoryTarget(mc.Capacity), GOMAXPROCS: gw.GOMAXPROCS}
	r.logf("[mem] filling a %d MiB cache with %.1fx its size of %s answers (at most %s)...",
		mc.Capacity>>20, mc.FillFactor, mc.Method, mc.Timeout)

	fctx, cancel := context.WithTimeout(ctx, mc.Timeout)
	defer cancel()
	goal := int64(float64(mc.Capacity) * mc.FillFactor)
	var next, bytesIn, reqs, calls, errs atomic.Int64
	var firstErr sync.Once
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: mc.Workers}}
	var wg sync.WaitGroup
	for range mc.Workers {
		wg.Go(func() {
			for fctx.Err() == nil && bytesIn.Load() < goal {
				body, n := fillBody(mc.Method, next.Add(1)-1)
				got, err := post(fctx, client, gw.URL()+fillPath(mc.Method), body)
				reqs.Add(1)
				calls.Add(n)
				bytesIn.Add(int64(got))
				if err != nil && fctx.Err() == nil {
					errs.Add(1)
					firstErr.Do(func() { res.FirstError = err.Error() })
				}
			}
		})
	}
	done := make(chan struct{})
	var sampled atomic.Int64
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if m, err := ProcMemory(gw.PID); err == nil && m.RSS > sampled.Load() {
				sampled.Store(m.RSS)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	start := time.Now()
	wg.Wait()
	res.Elapsed = time.Since(start)
	close(done)
	client.CloseIdleConnections()

	m, err := ProcMemory(gw.PID)
	if err != nil {
		return nil, err
	}
	res.RSS, res.Peak, res.SampledMax = m.RSS, m.Peak, max(sampled.Load(), m.RSS)
	res.Requests, res.Calls, res.Bytes, res.Errors = reqs.Load(), calls.Load(), bytesIn.Load(), errs.Load()
	if res.Stats, err = gw.Stats(ctx); err != nil {
		return nil, err
	}
	if err := gcServer(ctx, gw); err == nil {
		if m, err := ProcMemory(gw.PID); err == nil {
			res.RSSAfterGC = m.RSS
		}
		res.StatsAfterGC, _ = gw.Stats(ctx)
	}
	if res.Bytes < goal {
		r.logf("[mem] warning: sent %d MiB of %d MiB before the time limit", res.Bytes>>20, goal>>20)
	}
	r.logf("[mem] RSS %d MiB (peak %d MiB, after GC %d MiB), target %d MiB; cache %d entries, %d MiB, %d evictions",
		res.RSS>>20, res.Peak>>20, res.RSSAfterGC>>20, res.Target>>20,
		res.Stats.Cache.Entries, res.Stats.Cache.Bytes>>20, res.Stats.Cache.Evictions)
	return res, nil
}

// post sends one fill request and returns the answer's size.
func post(ctx context.Context, c *http.Client, url, body string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", jsonType)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return len(b), err
	}
	if resp.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"error":{`)) {
		return len(b), fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)
	}
	return len(b), nil
}

// gcServer asks a benchserver to collect garbage and return it to the OS.
func gcServer(ctx context.Context, s *Server) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+s.Control+"/gc", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("/gc: %s", resp.Status)
	}
	return nil
}
