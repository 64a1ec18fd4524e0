// Command benchload is hivegate's load harness (issue 8): in one bounded
// run on loopback it measures the machine's ceiling (a minimal net/http
// server), hivegate's cache-hit, batch, miss and list paths and the fake
// backend directly, each server in its own process, with wrk as the load
// generator; then fills a gateway's cache past its capacity and reads its
// RSS. It prints a Markdown report and writes it to
// <out>/<date>-<host>.md and <out>/latest.md.
//
//	go run ./bench/cmd/benchload                   # everything, ~2.5 minutes
//	go run ./bench/cmd/benchload -only 2a,3a,3b -duration 5s -profile-dir /tmp/prof
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/hivegate/hivegate/bench/loadgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchload:", err)
		os.Exit(1)
	}
}

type options struct {
	cfg     loadgen.Config
	pin     bool
	outDir  string
	keep    bool
	memMiB  int64
	only    string
	noWrite bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	c := &o.cfg
	fs := flag.NewFlagSet("benchload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "measured load per scenario")
	fs.DurationVar(&c.Warmup, "warmup", time.Second, "warm-up load before each measurement (not reported)")
	fs.DurationVar(&c.LatencyDuration, "latency", 2*time.Second, "one-connection latency probe after each measurement; 0: none")
	fs.IntVar(&c.Connections, "conns", 32, "wrk connections")
	fs.IntVar(&c.Threads, "threads", 1, "wrk threads")
	fs.BoolVar(&o.pin, "pin", true, "pin processes to CPUs with taskset (needs 2 CPUs)")
	fs.StringVar(&c.ServerCPUs, "server-cpus", "0", "with -pin: CPUs of the server under test")
	fs.StringVar(&c.BackendCPUs, "backend-cpus", "", "with -pin: CPUs of the fake backend (default: -server-cpus)")
	fs.StringVar(&c.ClientCPUs, "client-cpus", "1", "with -pin: CPUs of wrk")
	fs.StringVar(&c.NodeCPUs, "node-cpus", "", "with -pin: CPUs of the fake backend in scenario 3a, where it is the node behind the gateway (default: -client-cpus)")
	fs.IntVar(&c.Repeat, "repeat", 1, "passes over the scenarios; each row keeps the pass with the least CPU taken by other processes")
	fs.DurationVar(&c.WaitIdle, "wait-idle", 0, "before each measurement, wait up to this long for other processes to leave the CPUs idle")
	fs.IntVar(&c.UpstreamConns, "upstream-conns", 0, "gateway middleware_connection_threads (default: -conns)")
	fs.StringVar(&o.only, "only", "", "comma-separated scenario IDs to run (1,1b,1c,2a,2b,3a,3b,3c,4a,4c,4b,mem); default all")
	fs.Int64Var(&o.memMiB, "mem-capacity-mib", 256, "memory check: cache_max_capacity in MiB; 0: skip the check")
	fs.Float64Var(&c.Memory.FillFactor, "mem-fill", 1.5, "memory check: answer bytes to send, as a multiple of the capacity")
	fs.StringVar(&c.Memory.Method, "mem-method", "block", "memory check: block (get_block batches), accounts (list_accounts pages) or typed (Connect ListAccounts pages)")
	fs.DurationVar(&c.Memory.Timeout, "mem-timeout", 60*time.Second, "memory check: time limit of the fill")
	fs.StringVar(&c.Memory.GOMEMLIMIT, "mem-gomemlimit", "", "memory check: GOMEMLIMIT for the gateway (e.g. 350MiB); default unset")
	fs.StringVar(&c.ProfileDir, "profile-dir", "", "write CPU and allocation profiles of each gateway here")
	fs.StringVar(&c.ServerBin, "server-bin", "", "benchserver binary (default: go build it)")
	fs.StringVar(&o.outDir, "out", "bench/results", "directory for <date>-<host>.md and latest.md")
	fs.BoolVar(&o.noWrite, "no-write", false, "print the report only")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (server logs)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.Connections < 1 || c.Threads < 1 || c.Threads > c.Connections {
		return o, errors.New("want 1 ≤ -threads ≤ -conns")
	}
	if c.Repeat < 1 {
		return o, errors.New("-repeat must be at least 1")
	}
	if c.Duration < time.Second {
		return o, errors.New("-duration must be at least 1s")
	}
	if o.memMiB < 0 {
		return o, errors.New("-mem-capacity-mib is negative")
	}
	if m := c.Memory.Method; m != "block" && m != "accounts" && m != "typed" {
		return o, fmt.Errorf("-mem-method %q: want block, accounts or typed", m)
	}
	c.Memory.Capacity = o.memMiB << 20
	if c.UpstreamConns == 0 {
		c.UpstreamConns = c.Connections
	}
	if c.BackendCPUs == "" {
		c.BackendCPUs = c.ServerCPUs
	}
	if c.NodeCPUs == "" {
		c.NodeCPUs = c.ClientCPUs
	}
	for id := range strings.SplitSeq(o.only, ",") {
		if id = strings.TrimSpace(id); id != "" {
			c.Only = append(c.Only, id)
		}
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	c := &o.cfg
	c.Log = stderr
	if _, err := exec.LookPath("wrk"); err != nil {
		return errors.New("wrk not found: apt-get install -y wrk")
	}
	if o.pin {
		if _, err := exec.LookPath("taskset"); err != nil {
			fmt.Fprintln(stderr, "taskset not found: running unpinned")
			o.pin = false
		} else if runtime.NumCPU() < 2 {
			fmt.Fprintln(stderr, "fewer than 2 CPUs: running unpinned")
			o.pin = false
		}
	}
	if !o.pin {
		c.ServerCPUs, c.BackendCPUs, c.ClientCPUs, c.NodeCPUs = "", "", "", ""
	}
	if c.WorkDir, err = os.MkdirTemp("", "benchload-"); err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(stderr, "work directory:", c.WorkDir)
	} else {
		defer func() { _ = os.RemoveAll(c.WorkDir) }()
	}
	if c.ServerBin == "" {
		c.ServerBin = filepath.Join(c.WorkDir, "benchserver")
		fmt.Fprintln(stderr, "building benchserver...")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", c.ServerBin, "github.com/hivegate/hivegate/bench/cmd/benchserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building benchserver: %w\n%s", err, out)
		}
	}
	rep, runErr := loadgen.Run(ctx, *c)
	if rep == nil {
		return runErr
	}
	var md bytes.Buffer
	if err := loadgen.WriteMarkdown(&md, rep); err != nil {
		return err
	}
	if _, err := stdout.Write(md.Bytes()); err != nil {
		return err
	}
	if runErr != nil {
		return runErr // a partial report is printed, not saved
	}
	if o.noWrite {
		return nil
	}
	if err := os.MkdirAll(o.outDir, 0o755); err != nil {
		return err
	}
	name := rep.Started.Format("2006-01-02") + "-" + safeName(rep.Machine.Host) + ".md"
	for _, f := range []string{name, "latest.md"} {
		if err := os.WriteFile(filepath.Join(o.outDir, f), md.Bytes(), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "wrote %s and %s\n", filepath.Join(o.outDir, name), filepath.Join(o.outDir, "latest.md"))
	return nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeName makes a host name usable in a file name.
func safeName(s string) string {
	s = unsafeChars.ReplaceAllString(s, "-")
	if s == "" {
		return "host"
	}
	return s
}
