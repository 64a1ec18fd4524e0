// Package loadgen is hivegate's load harness: it starts the servers under
// test as separate processes (bench/cmd/benchserver), drives them with wrk
// on loopback, and reports throughput and latency next to the machine's
// ceiling, with the project's speed and memory targets.
package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Request is one HTTP request wrk repeats.
type Request struct {
	// URL is the whole target URL (http://127.0.0.1:port/path).
	URL string
	// Body is sent with POST and Content-Type ContentType.
	Body        string
	ContentType string
}

// WrkSpec is one wrk run.
type WrkSpec struct {
	Request
	Threads     int
	Connections int
	Duration    time.Duration
	// CPUs pins wrk with taskset (e.g. "1"); empty: not pinned.
	CPUs string
	// Dir holds the generated Lua script.
	Dir string
}

// WrkResult is what one wrk run measured. Latencies are in microseconds.
type WrkResult struct {
	Requests   int64   `json:"requests"`
	DurationUS int64   `json:"duration_us"`
	Bytes      int64   `json:"bytes"`
	ErrConnect int64   `json:"err_connect"`
	ErrRead    int64   `json:"err_read"`
	ErrWrite   int64   `json:"err_write"`
	ErrStatus  int64   `json:"err_status"`
	ErrTimeout int64   `json:"err_timeout"`
	P50        float64 `json:"p50"`
	P90        float64 `json:"p90"`
	P99        float64 `json:"p99"`
	P999       float64 `json:"p999"`
	Max        float64 `json:"max"`
	Mean       float64 `json:"mean"`
	// CPU is wrk's own CPU time (user + system).
	CPU time.Duration `json:"-"`
}

// Rate is requests per second.
func (r WrkResult) Rate() float64 {
	if r.DurationUS <= 0 {
		return 0
	}
	return float64(r.Requests) / (float64(r.DurationUS) / 1e6)
}

// Errors is the sum of every error wrk counted (non-2xx/3xx statuses
// included).
func (r WrkResult) Errors() int64 {
	return r.ErrConnect + r.ErrRead + r.ErrWrite + r.ErrStatus + r.ErrTimeout
}

// resultMarker starts the line the Lua done() hook prints.
const resultMarker = "BENCHJSON "

// luaDone prints wrk's summary and latency histogram as one JSON line.
const luaDone = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('` + resultMarker + `{"requests":%d,"duration_us":%d,"bytes":%d,"err_connect":%d,"err_read":%d,"err_write":%d,"err_status":%d,"err_timeout":%d,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max, latency.mean))
end
`

// LuaScript returns a wrk script that POSTs body with contentType and
// reports through done().
func LuaScript(body, contentType string) string {
	var b strings.Builder
	b.WriteString("wrk.method = \"POST\"\n")
	fmt.Fprintf(&b, "wrk.headers[\"Content-Type\"] = %s\n", luaString(contentType))
	fmt.Fprintf(&b, "wrk.body = %s\n", luaString(body))
	b.WriteString(luaDone)
	return b.String()
}

// luaString quotes s as a Lua string literal. Every byte outside
// printable ASCII, the quote and the backslash become three-digit decimal
// escapes, so any body (binary protobuf included) arrives unchanged: a Lua
// long string would turn CR and CR LF into LF.
func luaString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ParseWrkOutput finds the done() line in wrk's standard output.
func ParseWrkOutput(out []byte) (WrkResult, error) {
	var r WrkResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, resultMarker); ok {
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				return r, fmt.Errorf("wrk result line %q: %w", line, err)
			}
			return r, nil
		}
	}
	return r, fmt.Errorf("no %q line in wrk output:\n%s", strings.TrimSpace(resultMarker), out)
}

// RunWrk runs wrk for spec and returns what it measured.
func RunWrk(ctx context.Context, spec WrkSpec) (WrkResult, error) {
	script := filepath.Join(spec.Dir, "wrk-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".lua")
	if err := os.WriteFile(script, []byte(LuaScript(spec.Body, spec.ContentType)), 0o644); err != nil {
		return WrkResult{}, err
	}
	defer os.Remove(script)
	secs := max(1, int(spec.Duration.Round(time.Second)/time.Second))
	args := []string{
		"-t", strconv.Itoa(spec.Threads),
		"-c", strconv.Itoa(spec.Connections),
		"-d", strconv.Itoa(secs) + "s",
		"--timeout", "5s",
		"-s", script,
		spec.URL,
	}
	name := "wrk"
	if spec.CPUs != "" {
		args = append([]string{"-c", spec.CPUs, "wrk"}, args...)
		name = "taskset"
	}
	cctx, cancel := context.WithTimeout(ctx, time.Duration(secs)*time.Second+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return WrkResult{}, fmt.Errorf("wrk: %w: %s%s", err, stderr.Bytes(), stdout.Bytes())
	}
	if stderr.Len() > 0 { // wrk reports Lua errors here and still exits 0
		return WrkResult{}, fmt.Errorf("wrk: %s", bytes.TrimSpace(stderr.Bytes()))
	}
	res, err := ParseWrkOutput(stdout.Bytes())
	res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return res, err
}

// WrkVersion returns wrk's version line.
func WrkVersion(ctx context.Context) string {
	out, _ := exec.CommandContext(ctx, "wrk", "-v").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	if i := strings.Index(line, " Copyright"); i > 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}
