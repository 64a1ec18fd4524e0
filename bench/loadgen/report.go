package loadgen

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Verdict is the outcome of one target.
type Verdict string

// The verdicts.
const (
	Pass Verdict = "PASS"
	Miss Verdict = "MISS"
	NA   Verdict = "n/a" // a scenario it needs was not run or is not available
)

// TargetResult is one target next to what was measured.
type TargetResult struct {
	Name     string
	Measured string
	Verdict  Verdict
	// CostRatio is the same ratio computed from server CPU time per
	// request instead of rates (what the rates would be if each server
	// had its CPU to itself and the client were never the limit); empty
	// when not applicable.
	CostRatio string
}

// ratio returns a/b's rates, ok false when either is missing.
func ratio(rep *Report, a, b string) (float64, bool) {
	ra, rb := rep.Result(a), rep.Result(b)
	if ra == nil || rb == nil || !ra.Available || !rb.Available || rb.Load.Rate() == 0 {
		return 0, false
	}
	return ra.Load.Rate() / rb.Load.Rate(), true
}

// costRatio is cost(b)/cost(a) from server CPU per request; for 3a the
// gateway's own cost is used (in production the node runs elsewhere).
func costRatio(rep *Report, a, b string) (float64, bool) {
	ra, rb := rep.Result(a), rep.Result(b)
	if ra == nil || rb == nil || !ra.Available || !rb.Available {
		return 0, false
	}
	ca, cb := ra.ServerCPUPerRequest(), rb.ServerCPUPerRequest()
	if ca <= 0 || cb <= 0 {
		return 0, false
	}
	return float64(cb) / float64(ca), true
}

func ratioTarget(rep *Report, a, b string, want float64) TargetResult {
	t := TargetResult{Name: fmt.Sprintf("%s ≥ %.1f × %s (throughput)", a, want, b), Verdict: NA, Measured: "-", CostRatio: "-"}
	if r, ok := ratio(rep, a, b); ok {
		t.Measured = fmt.Sprintf("%.2f ×", r)
		t.Verdict = verdict(r >= want)
	} else if ra := rep.Result(a); ra != nil && !ra.Available {
		t.Measured = "not available yet"
	}
	if r, ok := costRatio(rep, a, b); ok {
		t.CostRatio = fmt.Sprintf("%.2f × (%s)", r, verdict(r >= want))
	}
	return t
}

func verdict(ok bool) Verdict {
	if ok {
		return Pass
	}
	return Miss
}

// P50Overhead is p50(3a) − p50(3b) in microseconds, from the
// one-connection probes when both ran (no queueing), else from the loaded
// runs. probe says which.
func P50Overhead(rep *Report) (us float64, probe, ok bool) {
	a, b := rep.Result("3a"), rep.Result("3b")
	if a == nil || b == nil {
		return 0, false, false
	}
	if a.Probe != nil && b.Probe != nil {
		return a.Probe.P50 - b.Probe.P50, true, true
	}
	return a.Load.P50 - b.Load.P50, false, true
}

// OverheadTargetUS is the target for the miss path's added p50 latency.
const OverheadTargetUS = 200

// Targets evaluates every target of issue 8.
func Targets(rep *Report) []TargetResult {
	ref := ratioTarget(rep, "2b", "1b", 0.5)
	ref.Name += " — reference: 1b returns the same bytes as 2b with no work"
	ts := []TargetResult{
		ratioTarget(rep, "2a", "1", 0.8),
		ratioTarget(rep, "2b", "1", 0.5),
		ref,
		ratioTarget(rep, "3a", "3b", 0.5),
	}
	ot := TargetResult{Name: fmt.Sprintf("p50(3a) − p50(3b) < %d µs", OverheadTargetUS), Measured: "-", Verdict: NA, CostRatio: "-"}
	if us, probe, ok := P50Overhead(rep); ok {
		where := "under load"
		if probe {
			where = "1 connection"
		}
		ot.Measured = fmt.Sprintf("%s (%s)", fmtUS(us), where)
		ot.Verdict = verdict(us < OverheadTargetUS)
	}
	ts = append(ts, ot, ratioTarget(rep, "4a", "4b", 0.5))
	if m := rep.Memory; m != nil {
		ts = append(ts, TargetResult{
			Name:      fmt.Sprintf("RSS after fill ≤ 1.3 × %d MiB + 64 MiB = %d MiB", m.Capacity>>20, m.Target>>20),
			Measured:  fmt.Sprintf("%d MiB", m.RSS>>20),
			Verdict:   verdict(m.RSS <= m.Target),
			CostRatio: "-",
		}, TargetResult{
			Name:      "peak RSS (VmHWM) within the same target",
			Measured:  fmt.Sprintf("%d MiB", m.Peak>>20),
			Verdict:   verdict(m.Peak <= m.Target),
			CostRatio: "-",
		})
	}
	return ts
}

// BusyThreshold is the CPU busy fraction before a run above which the
// report warns that the machine was not idle.
const BusyThreshold = 0.10

// fmtUS formats microseconds.
func fmtUS(us float64) string {
	switch {
	case us < 0:
		return "-" + fmtUS(-us)
	case us < 1000:
		return fmt.Sprintf("%.0f µs", us)
	case us < 1e6:
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.2f s", us/1e6)
}

func fmtRate(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

func mib(b int64) string { return fmt.Sprintf("%d MiB", b>>20) }

func orNone(s string) string {
	if s == "" {
		return "none (not pinned)"
	}
	return "CPU " + s
}

// WriteMarkdown writes the report as Markdown.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	m, c := rep.Machine, rep.Config
	fmt.Fprintf(&b, "# hivegate load benchmark — %s, %s\n\n", rep.Started.Format("2006-01-02 15:04 MST"), m.Host)
	b.WriteString("Produced by `make bench-load` (bench/cmd/benchload). Every server is a separate process\n")
	b.WriteString("(bench/cmd/benchserver) on 127.0.0.1; the load generator is wrk with a Lua script per scenario.\n\n")
	b.WriteString("## Machine\n\n| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| nproc | %d |\n| CPU | %s |\n| kernel | %s |\n| memory | %s |\n| Go | %s |\n| wrk | %s |\n",
		m.NProc, m.CPUModel, m.Kernel, m.MemTotal, m.GoVersion, m.WrkVersion)
	fmt.Fprintf(&b, "| GOMAXPROCS of the servers | %s |\n", gomaxprocs(rep))
	fmt.Fprintf(&b, "| CPU busy in the second before the run | %.0f %% |\n", 100*rep.BusyBefore)
	fmt.Fprintf(&b, "| load average (1 min) before / after | %.2f / %.2f |\n\n", rep.LoadAvgStart, rep.LoadAvgEnd)
	if rep.BusyBefore > BusyThreshold {
		fmt.Fprintf(&b, "**Warning: the machine was not idle (%.0f %% CPU busy before the run): other processes\n"+
			"competed for the CPUs, so rates are low and tails long. Re-run on an idle machine.**\n\n", 100*rep.BusyBefore)
	}
	b.WriteString("## Method\n\n")
	fmt.Fprintf(&b, "- Load: `wrk -t%d -c%d`, %s per scenario after a %s warm-up with the same load (not reported); then a\n",
		c.Threads, c.Connections, c.Duration, c.Warmup)
	if c.LatencyDuration > 0 {
		fmt.Fprintf(&b, "  %s probe at one connection (`wrk -t1 -c1`): latency without queueing, the \"@1 conn\" columns.\n", c.LatencyDuration)
	} else {
		b.WriteString("  no one-connection latency probe.\n")
	}
	fmt.Fprintf(&b, "- CPU pinning (taskset): server under test on %s, fake backend on %s, wrk on %s; in 3a, where the fake\n"+
		"  backend is the node behind the measured gateway, it is moved to %s, so that the gateway has a CPU of its own as the\n"+
		"  backend has in 3b (a real node runs on cores of its own); 3c keeps both on one CPU for reference.\n",
		orNone(c.ServerCPUs), orNone(c.BackendCPUs), orNone(c.ClientCPUs), orNone(c.NodeCPUs))
	b.WriteString("  Go sizes GOMAXPROCS to the affinity mask, so a server pinned to one CPU runs with GOMAXPROCS=1.\n")
	fmt.Fprintf(&b, "- Gateway: the production handler tree and server (`gateway.New` on `gateway.NewHTTPServer`, as `hivegate serve` runs it), one process per scenario,\n"+
		"  middleware_connection_threads %d. Scenario 1 serves the same get_dynamic_global_properties answer (%s) that the\n"+
		"  fake backend gives hivegate, so 1, 2a, 3a and 3b send and receive the same bytes.\n", c.UpstreamConns, "condenser shape, hivesim seed 1")
	if c.Repeat > 1 {
		fmt.Fprintf(&b, "- %d passes over the scenarios (fresh server processes each); each row is the pass in which other processes took the least CPU.\n", c.Repeat)
	}
	if c.WaitIdle > 0 {
		fmt.Fprintf(&b, "- Before each measurement the harness waited up to %s for the machine to be idle.\n", c.WaitIdle)
	}
	b.WriteString("- Latencies are wrk's (per HTTP request; a batch is one request). Rates are HTTP requests per second.\n\n")

	b.WriteString("## Results\n\n")
	b.WriteString("| # | scenario | rate | p50 | p99 | p50 @1 conn | p99 @1 conn | ratio to 1 | server CPU/req | server CPU | wrk CPU | other CPU | errors | server RSS | notes |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	base := rep.Result("1")
	for _, s := range rep.Scenarios {
		if !s.Available {
			fmt.Fprintf(&b, "| %s | %s | — | — | — | — | — | — | — | — | — | — | — | — | %s |\n", s.ID, s.Title, s.Note)
			continue
		}
		ratio1 := "-"
		if base != nil && base.Load.Rate() > 0 {
			ratio1 = fmt.Sprintf("%.2f", s.Load.Rate()/base.Load.Rate())
		}
		p50p, p99p := "-", "-"
		if s.Probe != nil {
			p50p, p99p = fmtUS(s.Probe.P50), fmtUS(s.Probe.P99)
		}
		notes := []string{}
		if s.Info {
			notes = append(notes, "for reference, no target")
		}
		if s.On == onGatewayCache {
			notes = append(notes, fmt.Sprintf("cache hits %d, misses %d", s.CacheHits, s.CacheMisses))
		}
		cpuReq, util, wrkUtil, other := "-", "-", "-", "-"
		if s.CPUKnown {
			wall := time.Duration(s.Load.DurationUS) * time.Microsecond
			cpuReq = fmtUS(float64(s.ServerCPUPerRequest().Nanoseconds()) / 1000)
			util = pct(s.ServerUtil())
			wrkUtil = pct(s.CPU.Client.Seconds() / wall.Seconds())
			other = pct(s.CPU.OtherShare())
			if s.On == onGatewayMiss && wall > 0 {
				notes = append(notes, fmt.Sprintf("backend CPU %s, %s/req", pct(s.CPU.Backend.Seconds()/wall.Seconds()),
					fmtUS(float64((s.CPU.Backend/time.Duration(max(1, s.Load.Requests))).Nanoseconds())/1000)))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |\n",
			s.ID, s.Title, fmtRate(s.Load.Rate()), s.Unit, fmtUS(s.Load.P50), fmtUS(s.Load.P99), p50p, p99p,
			ratio1, cpuReq, util, wrkUtil, other, s.Load.Errors(), mib(s.RSS), strings.Join(notes, "; "))
	}
	if us, probe, ok := P50Overhead(rep); ok {
		fmt.Fprintf(&b, "\np50 overhead of the miss path, p50(3a) − p50(3b): **%s**", fmtUS(us))
		if probe {
			a, bb := rep.Result("3a"), rep.Result("3b")
			fmt.Fprintf(&b, " at one connection; under load (%d connections) %s", c.Connections, fmtUS(a.Load.P50-bb.Load.P50))
		}
		b.WriteString(".\n")
	}

	b.WriteString(columnNotes)
	if busy := busyScenarios(rep); busy != "" {
		fmt.Fprintf(&b, "\n**Warning: other processes used more than %.0f %% of the machine during %s: those rows are skewed.**\n", 100*BusyThreshold, busy)
	}
	b.WriteString("\n## Targets\n\n| target | measured | result | same ratio from server CPU/req |\n|---|---:|---|---:|\n")
	for _, t := range Targets(rep) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Name, t.Measured, t.Verdict, t.CostRatio)
	}
	b.WriteString("\nThe verdict is on measured throughput. The last column divides server CPU time per request instead\n" +
		"(for 3a: the gateway process alone, without its node): it holds when the load generator, not the\n" +
		"server, limited a rate, or when other processes took CPU time.\n")
	if mr := rep.Memory; mr != nil {
		writeMemory(&b, mr)
	}
	fmt.Fprintf(&b, "\nTotal run time %s.\n", rep.Elapsed.Round(time.Second))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMemory(b *strings.Builder, mr *MemoryResult) {
	b.WriteString("\n## Memory\n\n")
	limit := "GOMEMLIMIT unset"
	switch {
	case mr.GOMEMLIMIT != "":
		limit = "GOMEMLIMIT " + mr.GOMEMLIMIT
	case mr.Stats.Mem.MemoryLimit > 0 && mr.Stats.Mem.MemoryLimit < math.MaxInt64:
		limit = "memory limit " + mib(mr.Stats.Mem.MemoryLimit) + " from cache.SuggestedMemoryLimit"
	}
	gogc := "GOGC default"
	switch {
	case mr.Stats.GCPercent > 0:
		gogc = "GOGC " + strconv.Itoa(mr.Stats.GCPercent) + " from cache.ApplyMemoryLimit"
	case mr.Stats.Mem.GOGC != "":
		gogc = "GOGC " + mr.Stats.Mem.GOGC
	}
	what := "batches of 50 `condenser_api.get_block` calls with distinct block numbers"
	switch mr.Method {
	case "accounts":
		what = "`database_api.list_accounts` pages (limit 1000) with distinct `start` values"
	case "typed":
		what = "Connect JSON `ListAccounts` pages (limit 1000) with distinct `start` values"
	}
	fmt.Fprintf(b, "A gateway with cache_max_capacity %s (%s, %s, GOMAXPROCS %d) received %s,\n",
		mib(mr.Capacity), gogc, limit, mr.GOMAXPROCS, what)
	fmt.Fprintf(b, "%d requests / %d calls / %s of answers (%.1f × capacity) in %s, %d failed",
		mr.Requests, mr.Calls, mib(mr.Bytes), float64(mr.Bytes)/float64(mr.Capacity), mr.Elapsed.Round(100*time.Millisecond), mr.Errors)
	if mr.FirstError != "" {
		fmt.Fprintf(b, " (the first: `%s`)", strings.ReplaceAll(mr.FirstError, "`", "'"))
	}
	b.WriteString(".\n\n")
	st := mr.Stats
	b.WriteString("| figure | value |\n|---|---:|\n")
	fmt.Fprintf(b, "| target: 1.3 × capacity + 64 MiB | %s |\n", mib(mr.Target))
	fmt.Fprintf(b, "| VmRSS right after the fill | %s |\n", mib(mr.RSS))
	fmt.Fprintf(b, "| VmHWM (peak RSS) | %s |\n", mib(mr.Peak))
	fmt.Fprintf(b, "| VmRSS after runtime.GC + FreeOSMemory | %s |\n", mib(mr.RSSAfterGC))
	fmt.Fprintf(b, "| cache entries / budget in use / evictions | %d / %s / %d |\n", st.Cache.Entries, mib(st.Cache.Bytes), st.Cache.Evictions)
	fmt.Fprintf(b, "| Go heap after the fill: alloc / in use / sys | %s / %s / %s |\n", mib(st.Mem.HeapAlloc), mib(st.Mem.HeapInuse), mib(st.Mem.HeapSys))
	ag := mr.StatsAfterGC
	fmt.Fprintf(b, "| Go heap after the collection (live): alloc / in use | %s / %s |\n", mib(ag.Mem.HeapAlloc), mib(ag.Mem.HeapInuse))
	fmt.Fprintf(b, "| GC cycles | %d |\n", st.Mem.NumGC)
}

// columnNotes explains the CPU columns.
const columnNotes = `
Columns: *server CPU/req* is the server process's CPU time (user + system, from /proc) during the load
divided by the requests served — its cost per request whatever limited the rate. *server CPU* and *wrk CPU*
are CPU time over wall time (100 % = one CPU busy). *other CPU* is the share of the whole machine that other
processes (anything but the server, the backend and wrk) used meanwhile.
`

func pct(f float64) string { return fmt.Sprintf("%.0f %%", 100*f) }

// busyScenarios lists the scenarios during which other processes used
// more than BusyThreshold of the machine.
func busyScenarios(rep *Report) string {
	var ids []string
	for _, s := range rep.Scenarios {
		if s.CPUKnown && s.CPU.OtherShare() > BusyThreshold {
			ids = append(ids, s.ID)
		}
	}
	return strings.Join(ids, ", ")
}

func gomaxprocs(rep *Report) string {
	seen := map[int]bool{}
	var out []string
	for _, s := range rep.Scenarios {
		if s.GOMAXPROCS > 0 && !seen[s.GOMAXPROCS] {
			seen[s.GOMAXPROCS] = true
			out = append(out, fmt.Sprint(s.GOMAXPROCS))
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}
