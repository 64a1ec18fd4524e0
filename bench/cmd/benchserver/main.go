// Command benchserver is one server process of hivegate's load harness
// (bench/cmd/benchload): the ceiling (--mode minimal), a fast fake hived
// (--mode backend) or hivegate itself (--mode gateway) in front of a
// backend URL. It runs in its own process so that the load generator and
// the server under test never share one Go runtime.
//
// Once listening it prints one JSON line on standard output:
//
//	{"mode":"gateway","pid":123,"addr":"127.0.0.1:40001","control":"127.0.0.1:40002","gomaxprocs":1}
//
// addr serves the load; control serves GET /stats (Go memory statistics,
// the gateway's cache statistics) and POST /gc (collect and return memory
// to the OS) on a separate listener, so the measured handler is untouched.
// SIGTERM or SIGINT stop it, writing --cpuprofile and --memprofile first.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/hivegate/hivegate/bench/fakenode"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchserver:", err)
		os.Exit(1)
	}
}

// flags are benchserver's command-line options.
type flags struct {
	mode          string
	listen        string
	control       string
	backendURL    string
	cacheCapacity int64
	dgpoTTL       string
	upstreamConns int
	accounts      int
	batch         int
	gatewayServer bool
	cpuProfile    string
	memProfile    string
	memoryLimit   bool
}

func parseFlags(args []string, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("benchserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.mode, "mode", "minimal", "minimal, backend or gateway")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "HOST:PORT for the load")
	fs.StringVar(&f.control, "control", "127.0.0.1:0", "HOST:PORT for /stats and /gc; empty: none")
	fs.StringVar(&f.backendURL, "backend-url", "", "gateway: the backend every route goes to")
	fs.Int64Var(&f.cacheCapacity, "cache-capacity", 256<<20, "gateway: cache_max_capacity in bytes")
	fs.StringVar(&f.dgpoTTL, "dgpo-ttl", "3600", "gateway: TTL of condenser_api.get_dynamic_global_properties (seconds, NO_CACHE, NO_EXPIRE)")
	fs.IntVar(&f.upstreamConns, "upstream-conns", 64, "gateway: middleware_connection_threads")
	fs.IntVar(&f.accounts, "accounts", 1000, "minimal, backend: accounts in the list_accounts answer")
	fs.BoolVar(&f.gatewayServer, "gateway-server", false, "minimal: serve on hivegate's http.Server (gateway.NewHTTPServer) with its response headers")
	fs.IntVar(&f.batch, "batch", 50, "minimal: elements of the batch body served on "+fakenode.BatchPath)
	fs.BoolVar(&f.memoryLimit, "memory-limit", true, "gateway: apply the memory limit and collector percentage hivegate sets for the cache capacity (cache.ApplyMemoryLimit), unless GOMEMLIMIT or GOGC is set")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	fs.StringVar(&f.memProfile, "memprofile", "", "write an allocation profile to this file on exit")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.mode == "gateway" && f.backendURL == "" {
		return f, errors.New("--mode gateway needs --backend-url")
	}
	return f, nil
}

// ready is the line printed once the server accepts connections.
type ready struct {
	Mode       string `json:"mode"`
	PID        int    `json:"pid"`
	Addr       string `json:"addr"`
	Control    string `json:"control,omitempty"`
	GOMAXPROCS int    `json:"gomaxprocs"`
}

func run(args []string, stdout, stderr io.Writer) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = pf.Close()
		}()
	}
	if f.memProfile != "" {
		defer writeAllocProfile(f.memProfile, logger)
	}

	srv, stats, cleanup, err := newServer(ctx, f, logger)
	if err != nil {
		return err
	}
	defer cleanup()

	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return err
	}
	r := ready{Mode: f.mode, PID: os.Getpid(), Addr: ln.Addr().String(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	if f.control != "" {
		cln, err := net.Listen("tcp", f.control)
		if err != nil {
			return err
		}
		ctl := &http.Server{Handler: controlHandler(stats), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = ctl.Serve(cln) }()
		defer func() { _ = ctl.Close() }()
		r.Control = cln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return err
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	_ = srv.Close()
	return nil
}

func writeAllocProfile(path string, logger *slog.Logger) {
	f, err := os.Create(path)
	if err != nil {
		logger.Error("memprofile", "error", err)
		return
	}
	defer func() { _ = f.Close() }()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		logger.Error("memprofile", "error", err)
	}
}
