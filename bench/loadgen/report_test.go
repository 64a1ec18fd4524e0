package loadgen

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
)

func result(id string, rate, p50 float64, probeP50 float64) ScenarioResult {
	sc := Scenario{ID: id, Title: "scenario " + id, Unit: "req/s", On: onGatewayCache}
	r := ScenarioResult{Scenario: sc, Available: true,
		Load: WrkResult{Requests: int64(rate), DurationUS: 1e6, P50: p50, P99: 2 * p50}}
	if probeP50 > 0 {
		r.Probe = &WrkResult{Requests: 10, DurationUS: 1e6, P50: probeP50, P99: 2 * probeP50}
	}
	return r
}

func TestTargets(t *testing.T) {
	t.Parallel()
	full := &Report{Scenarios: []ScenarioResult{
		result("1", 1000, 100, 50),
		result("2a", 850, 100, 60),
		result("1b", 700, 100, 80),
		result("2b", 400, 100, 80),
		result("3a", 300, 500, 250),
		result("3b", 500, 300, 100),
		result("4a", 60, 100, 0),
		result("4b", 100, 100, 0),
	}, Memory: &MemoryResult{MemoryConfig: MemoryConfig{Capacity: 100 << 20}, Target: MemoryTarget(100 << 20), RSS: 190 << 20, Peak: 200 << 20}}
	unavailable := &Report{Scenarios: []ScenarioResult{result("4b", 100, 100, 0), {Scenario: Scenario{ID: "4a"}, Available: false}}}
	noProbe := &Report{Scenarios: []ScenarioResult{result("3a", 300, 350, 0), result("3b", 500, 300, 0)}}
	cases := []struct {
		name string
		rep  *Report
		want map[string]Verdict // by target name prefix
		meas map[string]string
	}{
		{
			name: "all scenarios",
			rep:  full,
			want: map[string]Verdict{
				"2a ≥ 0.8": Pass, "2b ≥ 0.5 × 1 (": Miss, "2b ≥ 0.5 × 1b": Pass, "3a ≥ 0.5": Pass, "p50(3a)": Pass, "4a ≥ 0.5": Pass,
				"RSS after fill": Pass, "peak RSS": Miss, // target 194 MiB
			},
			meas: map[string]string{"2a ≥ 0.8": "0.85 ×", "p50(3a)": "150 µs (1 connection)", "RSS after fill": "190 MiB"},
		},
		{
			name: "connect not available",
			rep:  unavailable,
			want: map[string]Verdict{"4a ≥ 0.5": NA, "2a ≥ 0.8": NA, "p50(3a)": NA},
			meas: map[string]string{"4a ≥ 0.5": "not available yet"},
		},
		{
			name: "overhead from loaded runs without probes",
			rep:  noProbe,
			want: map[string]Verdict{"p50(3a)": Pass, "3a ≥ 0.5": Pass},
			meas: map[string]string{"p50(3a)": "50 µs (under load)"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := map[string]TargetResult{}
			for _, tr := range Targets(tc.rep) {
				for prefix := range tc.want {
					if strings.HasPrefix(tr.Name, prefix) {
						got[prefix] = tr
					}
				}
			}
			for prefix, want := range tc.want {
				if got[prefix].Verdict != want {
					t.Errorf("%s: verdict %q, want %q (%+v)", prefix, got[prefix].Verdict, want, got[prefix])
				}
			}
			for prefix, want := range tc.meas {
				if got[prefix].Measured != want {
					t.Errorf("%s: measured %q, want %q", prefix, got[prefix].Measured, want)
				}
			}
		})
	}
}

func TestMemoryTarget(t *testing.T) {
	t.Parallel()
	if got, want := MemoryTarget(256<<20), int64(256<<20)*13/10+64<<20; got != want {
		t.Errorf("MemoryTarget(256 MiB) = %d, want %d", got, want)
	}
}

func TestWriteMarkdown(t *testing.T) {
	t.Parallel()
	rep := &Report{
		Machine: Machine{Host: "h", NProc: 2, CPUModel: "cpu", GoVersion: "go1.x", WrkVersion: "wrk 4"},
		Config:  Config{Connections: 32, Threads: 1, Duration: 10 * time.Second, Warmup: time.Second, LatencyDuration: 2 * time.Second, ServerCPUs: "0", BackendCPUs: "0", ClientCPUs: "1"},
		Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), BusyBefore: 0.5,
		Scenarios: []ScenarioResult{
			result("1", 1000, 100, 50), result("3a", 300, 500, 250), result("3b", 500, 300, 100),
			{Scenario: Scenario{ID: "4a", Title: "connect"}, Available: false, Note: "not available yet: HTTP 404"},
		},
		Memory: &MemoryResult{MemoryConfig: MemoryConfig{Capacity: 64 << 20, Method: "block"}, Target: MemoryTarget(64 << 20), RSS: 80 << 20},
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"# hivegate load benchmark — 2026-01-02 03:04 UTC, h",
		"| nproc | 2 |", "| wrk | wrk 4 |", "Warning: the machine was not idle",
		"| 1 | scenario 1 | 1000 req/s | 100 µs |",
		"| 4a | connect | — |", "not available yet: HTTP 404",
		"p50 overhead of the miss path, p50(3a) − p50(3b): **150 µs**",
		"| p50(3a) − p50(3b) < 200 µs | 150 µs (1 connection) | PASS |",
		"| VmRSS right after the fill | 80 MiB |",
		"server under test on CPU 0, fake backend on CPU 0, wrk on CPU 1",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestFmtUS(t *testing.T) {
	t.Parallel()
	cases := map[float64]string{0: "0 µs", 999: "999 µs", 1500: "1.50 ms", 2.5e6: "2.50 s", -40: "-40 µs"}
	for in, want := range cases {
		if got := fmtUS(in); got != want {
			t.Errorf("fmtUS(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestChecks(t *testing.T) {
	t.Parallel()
	batch2 := `[{"jsonrpc":"2.0","result":{},"id":1},{"jsonrpc":"2.0","result":{},"id":2}]`
	accounts := func(n int) string {
		a := make([]map[string]string, n)
		for i := range a {
			a[i] = map[string]string{"name": "x"}
		}
		b, _ := json.Marshal(map[string]any{"accounts": a})
		return string(b)
	}
	protoAccounts := func(n int) string {
		m := &dbv1.ListAccountsResponse{}
		for range n {
			m.Accounts = append(m.Accounts, &typesv1.Account{Name: "x"})
		}
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct {
		name    string
		check   func(*http.Response, []byte) error
		status  int
		ctype   string
		cache   string
		body    string
		wantErr bool
	}{
		{"single ok", checkSingle("hit"), 200, jsonType, "hit", `{"jsonrpc":"2.0","result":{"a":1},"id":1}`, false},
		{"single wrong cache status", checkSingle("hit"), 200, jsonType, "miss", `{"jsonrpc":"2.0","result":{"a":1},"id":1}`, true},
		{"single error answer", checkSingle(""), 200, jsonType, "", `{"jsonrpc":"2.0","error":{"code":-32603},"id":1}`, true},
		{"single wrong id", checkSingle(""), 200, jsonType, "", `{"jsonrpc":"2.0","result":1,"id":2}`, true},
		{"single null result", checkSingle(""), 200, jsonType, "", `{"jsonrpc":"2.0","result":null,"id":1}`, true},
		{"single HTTP 500", checkSingle(""), 500, jsonType, "", `{}`, true},
		{"batch ok", checkBatch(2), 200, jsonType, "", batch2, false},
		{"batch too short", checkBatch(3), 200, jsonType, "", batch2, true},
		{"batch ids swapped", checkBatch(2), 200, jsonType, "", `[{"jsonrpc":"2.0","result":{},"id":2},{"jsonrpc":"2.0","result":{},"id":1}]`, true},
		{"connect ok", checkConnectAccounts, 200, "application/json", "", accounts(1000), false},
		{"connect short page", checkConnectAccounts, 200, "application/json", "", accounts(3), true},
		{"connect 404", checkConnectAccounts, 404, "text/plain", "", "404 page not found", true},
		{"connect proto ok", checkConnectProto, 200, protoType, "", protoAccounts(1000), false},
		{"connect proto short page", checkConnectProto, 200, protoType, "", protoAccounts(2), true},
		{"connect proto answered as JSON", checkConnectProto, 200, jsonType, "", accounts(1000), true},
		{"JSON-RPC front end answered instead", checkConnectAccounts, 200, jsonType, "", `{"jsonrpc":"2.0","error":{"code":-32600},"id":null}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			rec.Header().Set("Content-Type", tc.ctype)
			if tc.cache != "" {
				rec.Header().Set("X-Hivegate-Cache", tc.cache)
			}
			rec.WriteHeader(tc.status)
			err := tc.check(rec.Result(), []byte(tc.body))
			if (err != nil) != tc.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tc.wantErr)
			}
		})
	}
}

func TestScenarioBodies(t *testing.T) {
	t.Parallel()
	ids := map[string]bool{}
	for _, sc := range Scenarios() {
		if ids[sc.ID] {
			t.Errorf("scenario ID %s twice", sc.ID)
		}
		ids[sc.ID] = true
		switch sc.ContentType {
		case "", jsonType:
			if !json.Valid([]byte(sc.Body)) {
				t.Errorf("scenario %s: body is not JSON: %.80s", sc.ID, sc.Body)
			}
		case protoType:
			var m dbv1.ListAccountsRequest
			if err := proto.Unmarshal([]byte(sc.Body), &m); err != nil || m.GetLimit() != 1000 {
				t.Errorf("scenario %s: body is not a ListAccountsRequest of limit 1000: %v", sc.ID, err)
			}
		default:
			t.Errorf("scenario %s: content type %q", sc.ID, sc.ContentType)
		}
		if sc.Check == nil {
			t.Errorf("scenario %s has no check", sc.ID)
		}
	}
	var batch []map[string]any
	if err := json.Unmarshal([]byte(dgpoBatch(BatchSize)), &batch); err != nil || len(batch) != BatchSize {
		t.Errorf("dgpoBatch: %d elements, err %v", len(batch), err)
	}
}

func TestFillBody(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method    string
		wantCalls int64
	}{{"block", BatchSize}, {"accounts", 1}, {"typed", 1}}
	for _, tc := range cases {
		seen := map[string]bool{}
		for n := range int64(3) {
			body, calls := fillBody(tc.method, n)
			if calls != tc.wantCalls {
				t.Errorf("%s: %d calls, want %d", tc.method, calls, tc.wantCalls)
			}
			if !json.Valid([]byte(body)) {
				t.Fatalf("%s: not JSON: %.80s", tc.method, body)
			}
			var elems []json.RawMessage
			if tc.method == "block" {
				if err := json.Unmarshal([]byte(body), &elems); err != nil {
					t.Fatal(err)
				}
			} else {
				elems = []json.RawMessage{json.RawMessage(body)}
			}
			for _, e := range elems {
				var c struct {
					Params json.RawMessage `json:"params"`
					Start  json.RawMessage `json:"start"` // Connect's ListAccountsRequest
				}
				if err := json.Unmarshal(e, &c); err != nil {
					t.Fatal(err)
				}
				if tc.method == "typed" {
					c.Params = c.Start
				}
				if seen[string(c.Params)] {
					t.Errorf("%s: params %s repeat: keys must be distinct", tc.method, c.Params)
				}
				seen[string(c.Params)] = true
			}
		}
	}
}

func TestParseProcStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      string
		want    Memory
		wantErr bool
	}{
		{"both", "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n", Memory{RSS: 1 << 20, Peak: 2 << 20}, false},
		{"missing", "Name:\tx\nVmRSS:\t  1024 kB\n", Memory{RSS: 1 << 20}, true},
		{"bad unit", "VmHWM:\t 1 MB\nVmRSS:\t 1 kB\n", Memory{}, true},
	}
	for _, tc := range cases {
		got, err := parseProcStatus(tc.in)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v, err %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestBetter(t *testing.T) {
	t.Parallel()
	mk := func(rate float64, other time.Duration) ScenarioResult {
		r := result("x", rate, 100, 0)
		r.CPU = CPUUse{Other: other, Capacity: 100 * time.Second}
		r.CPUKnown = true
		return r
	}
	cases := []struct {
		name string
		a, b ScenarioResult
		want bool
	}{
		{"less interference wins over a higher rate", mk(100, 1*time.Second), mk(200, 30*time.Second), true},
		{"more interference loses", mk(200, 30*time.Second), mk(100, 1*time.Second), false},
		{"equal interference: higher rate wins", mk(200, 1*time.Second), mk(100, 1500*time.Millisecond), true},
		{"equal interference: lower rate loses", mk(100, 1*time.Second), mk(200, 1*time.Second), false},
	}
	for _, tc := range cases {
		if got := better(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: better = %v, want %v", tc.name, got, tc.want)
		}
	}
}
