package loadgen

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Machine describes where a run happened.
type Machine struct {
	Host       string
	NProc      int
	CPUModel   string
	Kernel     string
	MemTotal   string
	GoVersion  string
	WrkVersion string
}

// DescribeMachine collects the machine description.
func DescribeMachine(ctx context.Context) Machine {
	m := Machine{NProc: runtime.NumCPU(), GoVersion: runtime.Version(), WrkVersion: WrkVersion(ctx)}
	m.Host, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = procField(string(b), "model name")
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.MemTotal = procField(string(b), "MemTotal")
	}
	if out, err := exec.CommandContext(ctx, "uname", "-sr").Output(); err == nil {
		m.Kernel = strings.TrimSpace(string(out))
	}
	return m
}

// LoadAvg returns the 1-minute load average, or -1 when unknown.
func LoadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// cpuTimes returns the idle and total jiffies of /proc/stat's cpu line.
func cpuTimes() (idle, total int64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, false
	}
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return idle, total, true
}

// BusyFraction samples how busy the CPUs are over d (0..1), or -1 when
// unknown: work from other processes skews every figure of a run.
func BusyFraction(ctx context.Context, d time.Duration) float64 {
	i0, t0, ok := cpuTimes()
	if !ok {
		return -1
	}
	select {
	case <-ctx.Done():
		return -1
	case <-time.After(d):
	}
	i1, t1, ok := cpuTimes()
	if !ok || t1 <= t0 {
		return -1
	}
	return 1 - float64(i1-i0)/float64(t1-t0)
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(text, key string) string {
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
