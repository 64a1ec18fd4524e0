package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is one harness run.
type Config struct {
	// ServerBin is the benchserver binary.
	ServerBin string
	// WorkDir holds server logs and wrk scripts.
	WorkDir string
	// Duration is the measured load per scenario; Warmup runs before it
	// (same load, not reported); LatencyDuration is the one-connection
	// latency probe after it (0: none).
	Duration, Warmup, LatencyDuration time.Duration
	// Connections and Threads are wrk's -c and -t.
	Connections, Threads int
	// ServerCPUs, BackendCPUs and ClientCPUs pin the server under test,
	// the fake backend and wrk with taskset; empty: not pinned.
	ServerCPUs, BackendCPUs, ClientCPUs string
	// NodeCPUs is where the fake backend runs while it is the node behind
	// a gateway that is measured (scenario 3a): a CPU other than the
	// gateway's, as a real node runs on cores of its own. The backend is
	// moved there (taskset -p) for 3a and back to BackendCPUs for the rest.
	NodeCPUs string
	// UpstreamConns is the gateway's middleware_connection_threads.
	UpstreamConns int
	// Repeat runs this many passes over the scenarios (default 1) and
	// keeps, per scenario, the pass with the least interference from
	// other processes.
	Repeat int
	// WaitIdle, when positive, waits up to this long before each measured
	// load for the machine to be idle (other processes below
	// BusyThreshold), so that a shared machine skews fewer rows.
	WaitIdle time.Duration
	// Only lists the scenario IDs to run (empty: all); "mem" is the memory check.
	Only []string
	// Memory is the memory check; skipped when Capacity is 0.
	Memory MemoryConfig
	// ProfileDir, when set, receives a CPU and an allocation profile of the
	// minimal or gateway process of each scenario: <ID>.cpu.pprof,
	// <ID>.alloc.pprof (the shared backend is not profiled).
	ProfileDir string
	// Log receives progress lines.
	Log io.Writer
}

func (c Config) wants(id string) bool { return len(c.Only) == 0 || slices.Contains(c.Only, id) }

// ScenarioResult is one measured row.
type ScenarioResult struct {
	Scenario
	// Available is false when the endpoint does not exist yet (Note says why).
	Available bool
	Note      string
	Load      WrkResult
	// Probe is the one-connection latency probe (nil when not run).
	Probe *WrkResult
	// GOMAXPROCS of the server process that served the load.
	GOMAXPROCS int
	// RSS of that process after the load.
	RSS int64
	// CacheHits and CacheMisses are the gateway cache's counters during the load.
	CacheHits, CacheMisses uint64
	// CPU is where CPU time went during the load; CPUKnown is false when
	// /proc could not be read.
	CPU      CPUUse
	CPUKnown bool
	// Rounds is how many measurements this row was chosen from.
	Rounds int
}

// ServerCPUPerRequest is the server process's CPU time per request (per
// batch for batch scenarios): its cost, whatever limited the rate.
func (s ScenarioResult) ServerCPUPerRequest() time.Duration {
	if !s.CPUKnown || s.Load.Requests == 0 {
		return 0
	}
	return s.CPU.Server / time.Duration(s.Load.Requests)
}

// ServerUtil is the server's CPU time over the load's wall time: 1.0 is
// one CPU kept busy.
func (s ScenarioResult) ServerUtil() float64 {
	if !s.CPUKnown || s.Load.DurationUS == 0 {
		return 0
	}
	return s.CPU.Server.Seconds() / (float64(s.Load.DurationUS) / 1e6)
}

// Report is a whole run.
type Report struct {
	Machine   Machine
	Config    Config
	Started   time.Time
	Elapsed   time.Duration
	Scenarios []ScenarioResult
	Memory    *MemoryResult
	// LoadAvgStart and LoadAvgEnd are /proc/loadavg's 1-minute figure
	// before and after the run; BusyBefore is the fraction of CPU time
	// other processes used during one second before the run. Other work
	// on the machine skews every figure.
	LoadAvgStart, LoadAvgEnd, BusyBefore float64
}

// Result returns the row with id, or nil.
func (r *Report) Result(id string) *ScenarioResult {
	for i := range r.Scenarios {
		if r.Scenarios[i].ID == id {
			return &r.Scenarios[i]
		}
	}
	return nil
}

type runner struct {
	cfg     Config
	backend *Server
	n       int // servers started, for log names
	// backendCPUs is where the backend runs now.
	backendCPUs string
	pass        int // current pass over the scenarios, from 0
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, format+"\n", args...)
	}
}

func (r *runner) start(ctx context.Context, name, cpus string, env []string, args ...string) (*Server, error) {
	r.n++
	return StartServer(ctx, ServerSpec{
		Bin: r.cfg.ServerBin, Args: args, Env: env, CPUs: cpus,
		LogPath: filepath.Join(r.cfg.WorkDir, fmt.Sprintf("%02d-%s.log", r.n, name)),
	})
}

// startGateway starts a gateway in front of the run's backend. The
// profile name, when not empty, names its profiles in ProfileDir.
func (r *runner) startGateway(ctx context.Context, dgpoTTL string, capacity int64, profile string, env []string) (*Server, error) {
	args := []string{"--mode", "gateway", "--backend-url", r.backend.URL(),
		"--dgpo-ttl", dgpoTTL, "--cache-capacity", strconv.FormatInt(capacity, 10),
		"--upstream-conns", strconv.Itoa(r.cfg.UpstreamConns)}
	return r.start(ctx, "gateway-"+profile, r.cfg.ServerCPUs, env, r.profileArgs(profile, args)...)
}

// profileArgs adds the profile flags for name when ProfileDir is set.
func (r *runner) profileArgs(name string, args []string) []string {
	if r.cfg.ProfileDir == "" || name == "" {
		return args
	}
	if r.pass > 0 {
		name += fmt.Sprintf(".pass%d", r.pass+1)
	}
	return append(args,
		"--cpuprofile", filepath.Join(r.cfg.ProfileDir, name+".cpu.pprof"),
		"--memprofile", filepath.Join(r.cfg.ProfileDir, name+".alloc.pprof"))
}

// Run runs every wanted scenario and the memory check.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	rep := &Report{Config: cfg, Started: time.Now(), Machine: DescribeMachine(ctx), LoadAvgStart: LoadAvg()}
	rep.BusyBefore = BusyFraction(ctx, time.Second)
	r := &runner{cfg: cfg}
	if cfg.ProfileDir != "" {
		if err := os.MkdirAll(cfg.ProfileDir, 0o755); err != nil {
			return nil, err
		}
	}
	var err error
	r.logf("starting the fake backend (synthesizing answers)...")
	if r.backend, err = r.start(ctx, "backend", cfg.BackendCPUs, nil, "--mode", "backend"); err != nil {
		return nil, err
	}
	r.backendCPUs = cfg.BackendCPUs
	defer r.backend.Stop()

	// Repeats are whole passes over the scenarios, so that a burst of
	// other work rarely hits every round of one scenario.
	passes := max(1, cfg.Repeat)
	for pass := range passes {
		r.pass = pass
		i := 0
		for _, sc := range Scenarios() {
			if !cfg.wants(sc.ID) {
				continue
			}
			res, err := r.scenario(ctx, sc)
			if err != nil {
				return rep, fmt.Errorf("scenario %s: %w", sc.ID, err)
			}
			res.Rounds = passes
			if pass == 0 {
				rep.Scenarios = append(rep.Scenarios, res)
			} else if better(res, rep.Scenarios[i]) {
				rep.Scenarios[i] = res
			}
			i++
		}
	}
	if cfg.Memory.Capacity > 0 && cfg.wants("mem") {
		m, err := r.memory(ctx)
		if err != nil {
			return rep, fmt.Errorf("memory check: %w", err)
		}
		rep.Memory = m
	}
	rep.Elapsed = time.Since(rep.Started)
	rep.LoadAvgEnd = LoadAvg()
	return rep, nil
}

// scenario starts the server a scenario needs, checks one answer, warms
// up, measures and probes latency.
func (r *runner) scenario(ctx context.Context, sc Scenario) (ScenarioResult, error) {
	res := ScenarioResult{Scenario: sc, Available: true}
	var srv *Server
	var err error
	switch sc.On {
	case onMinimal, onMinimalLike:
		args := []string{"--mode", "minimal", "--batch", strconv.Itoa(BatchSize)}
		if sc.On == onMinimalLike {
			args = append(args, "--gateway-server")
		}
		srv, err = r.start(ctx, "minimal-"+sc.ID, r.cfg.ServerCPUs, nil, r.profileArgs(sc.ID, args)...)
	case onGatewayCache:
		srv, err = r.startGateway(ctx, "3600", 1<<30, sc.ID, nil)
	case onGatewayMiss:
		srv, err = r.startGateway(ctx, "NO_CACHE", 1<<30, sc.ID, nil)
	case onBackend:
		srv = r.backend
	default:
		err = fmt.Errorf("unknown server kind %q", sc.On)
	}
	if err != nil {
		return res, err
	}
	if srv != r.backend {
		defer srv.Stop()
	}
	if err := r.placeBackend(ctx, sc); err != nil {
		return res, err
	}
	res.GOMAXPROCS = srv.GOMAXPROCS
	ctype := sc.ContentType
	if ctype == "" {
		ctype = jsonType
	}
	req := Request{URL: srv.URL() + sc.Path, Body: sc.Body, ContentType: ctype}
	r.logf("[%s] %s: %s", sc.ID, sc.Title, req.URL)

	// Two calls: the first fills the cache, the second is the one checked.
	for i := range 2 {
		cerr := checkOnce(ctx, req, sc.Check)
		if cerr != nil && i == 1 {
			if sc.ID == "4a" || sc.ID == "4c" {
				res.Available, res.Note = false, "not available yet: "+cerr.Error()
				r.logf("[%s] %s", sc.ID, res.Note)
				return res, nil
			}
			return res, fmt.Errorf("checking the answer: %w", cerr)
		}
	}
	spec := WrkSpec{Request: req, Threads: r.cfg.Threads, Connections: r.cfg.Connections, CPUs: r.cfg.ClientCPUs, Dir: r.cfg.WorkDir}
	if r.cfg.Warmup > 0 {
		spec.Duration = r.cfg.Warmup
		if _, err := RunWrk(ctx, spec); err != nil {
			return res, fmt.Errorf("warm-up: %w", err)
		}
	}
	if res, err = r.measure(ctx, sc, srv, spec); err != nil {
		return res, err
	}
	r.logf("[%s] %.0f %s, p50 %s, p99 %s, errors %d, other CPU %s", sc.ID, res.Load.Rate(), sc.Unit,
		fmtUS(res.Load.P50), fmtUS(res.Load.P99), res.Load.Errors(), pct(res.CPU.OtherShare()))
	return res, nil
}

// placeBackend moves the fake backend to the CPUs scenario sc wants it
// on: NodeCPUs when sc.NodeApart, BackendCPUs otherwise.
func (r *runner) placeBackend(ctx context.Context, sc Scenario) error {
	cpus := r.cfg.BackendCPUs
	if sc.NodeApart {
		cpus = r.cfg.NodeCPUs
	}
	if cpus == "" || cpus == r.backendCPUs {
		return nil
	}
	if err := Repin(ctx, r.backend.PID, cpus); err != nil {
		return err
	}
	r.backendCPUs = cpus
	return nil
}

// better reports whether measurement a had less interference than b:
// a smaller share of the machine used by other processes, or (within one
// percentage point) a higher rate.
func better(a, b ScenarioResult) bool {
	oa, ob := a.CPU.OtherShare(), b.CPU.OtherShare()
	if d := oa - ob; d < -0.01 || d > 0.01 {
		return d < 0
	}
	return a.Load.Rate() > b.Load.Rate()
}

// measure runs one measured load and its latency probe.
func (r *runner) measure(ctx context.Context, sc Scenario, srv *Server, spec WrkSpec) (ScenarioResult, error) {
	res := ScenarioResult{Scenario: sc, Available: true, GOMAXPROCS: srv.GOMAXPROCS}
	if r.cfg.WaitIdle > 0 {
		if busy, ok := waitIdle(ctx, r.cfg.WaitIdle); !ok {
			r.logf("[%s] machine still %.0f %% busy after waiting %s; measuring anyway", sc.ID, 100*busy, r.cfg.WaitIdle)
		}
	}
	before, _ := srv.Stats(ctx)
	meter := startCPUMeter(srv.PID, r.backend.PID)
	spec.Duration = r.cfg.Duration
	var err error
	if res.Load, err = RunWrk(ctx, spec); err != nil {
		return res, err
	}
	res.CPU, res.CPUKnown = meter.stop(res.Load.CPU)
	after, _ := srv.Stats(ctx)
	res.CacheHits = after.Cache.Hits - before.Cache.Hits
	res.CacheMisses = after.Cache.Misses - before.Cache.Misses
	if m, err := ProcMemory(srv.PID); err == nil {
		res.RSS = m.RSS
	}
	if r.cfg.LatencyDuration > 0 {
		probe := spec
		probe.Threads, probe.Connections, probe.Duration = 1, 1, r.cfg.LatencyDuration
		p, err := RunWrk(ctx, probe)
		if err != nil {
			return res, fmt.Errorf("latency probe: %w", err)
		}
		res.Probe = &p
	}
	return res, nil
}

// waitIdle samples the machine's CPU use every half second until it is
// below BusyThreshold or max has passed; it returns the last sample and
// whether the machine became idle.
func waitIdle(ctx context.Context, max time.Duration) (float64, bool) {
	deadline := time.Now().Add(max)
	for {
		busy := BusyFraction(ctx, 500*time.Millisecond)
		if busy >= 0 && busy < BusyThreshold {
			return busy, true
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return busy, false
		}
	}
}

// checkOnce sends req once with a Go client and validates the answer.
func checkOnce(ctx context.Context, req Request, check func(*http.Response, []byte) error) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, req.URL, strings.NewReader(req.Body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", req.ContentType)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if check == nil {
		return errors.New("no check")
	}
	return check(resp, body)
}
