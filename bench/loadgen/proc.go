package loadgen

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ServerSpec describes one benchserver process.
type ServerSpec struct {
	// Bin is the benchserver binary.
	Bin string
	// Args are benchserver's flags (--mode and the rest).
	Args []string
	// Env is added to the inherited environment (e.g. GOMEMLIMIT=...).
	Env []string
	// CPUs pins the process with taskset; empty: not pinned.
	CPUs string
	// LogPath receives the process's standard error.
	LogPath string
}

// Server is a running benchserver process.
type Server struct {
	// Mode, PID, Addr, Control and GOMAXPROCS come from its ready line.
	Mode       string `json:"mode"`
	PID        int    `json:"pid"`
	Addr       string `json:"addr"`
	Control    string `json:"control"`
	GOMAXPROCS int    `json:"gomaxprocs"`

	cmd  *exec.Cmd
	log  *os.File
	done chan error
}

// URL is the server's base URL.
func (s *Server) URL() string { return "http://" + s.Addr }

// StartServer starts a benchserver and waits for its ready line.
func StartServer(ctx context.Context, spec ServerSpec) (*Server, error) {
	name, args := spec.Bin, spec.Args
	if spec.CPUs != "" {
		name, args = "taskset", append([]string{"-c", spec.CPUs, spec.Bin}, spec.Args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), spec.Env...)
	logf, err := os.Create(spec.LogPath)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", spec.Bin, err)
	}
	s := &Server{cmd: cmd, log: logf, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, r)
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case line := <-lines:
		if err := json.Unmarshal([]byte(line), s); err != nil || s.Addr == "" {
			s.Stop()
			return nil, fmt.Errorf("benchserver %v: bad ready line %q (log %s)", spec.Args, line, spec.LogPath)
		}
	case <-time.After(60 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("benchserver %v: not ready after 60s (log %s)", spec.Args, spec.LogPath)
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
	// With taskset the ready line's pid is benchserver's own: taskset execs it.
	return s, nil
}

// Repin moves every thread of a running process to cpus (taskset -a -p).
// A Go process keeps the GOMAXPROCS it started with, so pinning moves
// between sets of the same size.
func Repin(ctx context.Context, pid int, cpus string) error {
	out, err := exec.CommandContext(ctx, "taskset", "-a", "-p", "-c", cpus, strconv.Itoa(pid)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset -a -p -c %s %d: %w: %s", cpus, pid, err, out)
	}
	return nil
}

// Stop sends SIGTERM (so profiles are written) and waits for the exit,
// killing the process after 30 seconds.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	_ = s.log.Close()
}

// Memory is a process's resident memory from /proc/PID/status, in bytes.
type Memory struct {
	RSS  int64 // VmRSS
	Peak int64 // VmHWM
}

// ProcMemory reads VmRSS and VmHWM of pid.
func ProcMemory(pid int) (Memory, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return Memory{}, err
	}
	return parseProcStatus(string(b))
}

func parseProcStatus(status string) (Memory, error) {
	var m Memory
	found := 0
	for line := range strings.Lines(status) {
		key, val, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return m, fmt.Errorf("/proc status %s: unexpected %q", key, val)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("/proc status %s: %w", key, err)
		}
		if key == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.Peak = kb << 10
		}
		found++
	}
	if found != 2 {
		return m, errors.New("/proc status: VmRSS or VmHWM missing")
	}
	return m, nil
}

// ServerStats is what a benchserver's control endpoint reports.
type ServerStats struct {
	Mem struct {
		HeapAlloc    int64  `json:"heap_alloc"`
		HeapInuse    int64  `json:"heap_inuse"`
		HeapIdle     int64  `json:"heap_idle"`
		HeapReleased int64  `json:"heap_released"`
		HeapSys      int64  `json:"heap_sys"`
		Sys          int64  `json:"sys"`
		NumGC        int64  `json:"num_gc"`
		GOMAXPROCS   int    `json:"gomaxprocs"`
		GOGC         string `json:"gogc"`
		MemoryLimit  int64  `json:"memory_limit"`
	} `json:"mem"`
	// GCPercent is the collector's percentage the gateway set for its
	// memory limit (cache.ApplyMemoryLimit); 0 when it set none.
	GCPercent int `json:"gc_percent"`
	Cache     struct {
		Entries   int64
		Bytes     int64
		Capacity  int64
		Hits      uint64
		Misses    uint64
		Evictions uint64
		Expired   uint64
	} `json:"cache"`
}

// Stats reads the server's control endpoint.
func (s *Server) Stats(ctx context.Context) (ServerStats, error) {
	var st ServerStats
	if s.Control == "" {
		return st, errors.New("no control endpoint")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.Control+"/stats", nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("/stats: %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}
