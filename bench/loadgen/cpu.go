package loadgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// userHZ is Linux's USER_HZ, the unit of /proc CPU times (100 on every
// mainstream architecture; getconf CLK_TCK prints it).
const userHZ = 100

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / userHZ }

// ProcCPU returns the user + system CPU time pid has used so far.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	return parseProcStat(string(b))
}

// parseProcStat reads utime and stime (fields 14 and 15) of /proc/PID/stat.
// The command name (field 2) may contain spaces, so fields are counted
// from its closing parenthesis.
func parseProcStat(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc stat %.40q: no command name", stat)
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc stat: %d fields", len(f)+2)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc stat: utime %q stime %q", f[11], f[12])
	}
	return ticks(ut + st), nil
}

// machineCPU is /proc/stat's cpu line: busy and total time over all CPUs.
type machineCPU struct{ busy, total time.Duration }

func readMachineCPU() (machineCPU, bool) {
	idle, total, ok := cpuTimes()
	if !ok {
		return machineCPU{}, false
	}
	return machineCPU{busy: ticks(total - idle), total: ticks(total)}, true
}

// CPUUse is where CPU time went during one measured load.
type CPUUse struct {
	// Server is the CPU time of the process that served the load;
	// Backend that of the fake backend (the same process in scenario 3b).
	Server, Backend time.Duration
	// Client is wrk's CPU time.
	Client time.Duration
	// Other is the busy CPU time of every other process on the machine
	// (the harness included); Capacity is CPUs × wall time.
	Other, Capacity time.Duration
}

// OtherShare is the fraction of the machine other processes used.
func (c CPUUse) OtherShare() float64 {
	if c.Capacity <= 0 {
		return 0
	}
	return float64(c.Other) / float64(c.Capacity)
}

// cpuMeter snapshots CPU counters around a load.
type cpuMeter struct {
	server, backend int // pids; equal in scenario 3b
	s0, b0          time.Duration
	m0              machineCPU
	ok              bool
}

func startCPUMeter(server, backend int) *cpuMeter {
	m := &cpuMeter{server: server, backend: backend}
	var err1, err2 error
	m.s0, err1 = ProcCPU(server)
	m.b0, err2 = ProcCPU(backend)
	var ok bool
	m.m0, ok = readMachineCPU()
	m.ok = ok && err1 == nil && err2 == nil
	return m
}

// stop returns the use since start; client is wrk's CPU time.
func (m *cpuMeter) stop(client time.Duration) (CPUUse, bool) {
	s1, err1 := ProcCPU(m.server)
	b1, err2 := ProcCPU(m.backend)
	m1, ok := readMachineCPU()
	if !m.ok || !ok || err1 != nil || err2 != nil {
		return CPUUse{}, false
	}
	u := CPUUse{Server: s1 - m.s0, Backend: b1 - m.b0, Client: client, Capacity: m1.total - m.m0.total}
	ours := u.Server + u.Backend + u.Client
	if m.server == m.backend {
		ours -= u.Backend
	}
	u.Other = max(0, m1.busy-m.m0.busy-ours)
	return u, true
}
