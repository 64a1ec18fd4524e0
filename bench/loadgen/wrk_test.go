package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// decodeLuaString reads back a quoted Lua string literal with the escapes
// luaString writes: \" \\ and \ddd.
func decodeLuaString(t *testing.T, lit string) string {
	t.Helper()
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		t.Fatalf("literal %q is not quoted", lit)
	}
	in := lit[1 : len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"':
			t.Fatalf("literal %q: unescaped quote at %d", lit, i)
		case c == '\n' || c == '\r':
			t.Fatalf("literal %q: raw line break at %d", lit, i)
		case c != '\\':
			b.WriteByte(c)
		case i+1 < len(in) && (in[i+1] == '"' || in[i+1] == '\\'):
			b.WriteByte(in[i+1])
			i++
		case i+3 < len(in):
			n, err := strconv.Atoi(in[i+1 : i+4])
			if err != nil || n > 255 {
				t.Fatalf("literal %q: bad escape at %d", lit, i)
			}
			b.WriteByte(byte(n))
			i += 3
		default:
			t.Fatalf("literal %q: dangling backslash", lit)
		}
	}
	return b.String()
}

func TestLuaString(t *testing.T) {
	t.Parallel()
	cases := []string{
		`{"a":1}`,
		`[{"a":"b\"c"}]`,
		`[[1]]`,
		"",
		"line\nbreaks\r\nand\rreturns",
		"\x08\xe8\x07\x10\x01\x00binary\xff",
		"digits after an escape: \x01" + "234",
	}
	for _, s := range cases {
		if got := decodeLuaString(t, luaString(s)); got != s {
			t.Errorf("luaString(%q) reads back as %q", s, got)
		}
	}
}

func TestLuaScript(t *testing.T) {
	t.Parallel()
	s := LuaScript(`[{"id":1}]`, "application/json")
	for _, want := range []string{`wrk.method = "POST"`, `wrk.headers["Content-Type"]`, `wrk.body = "[{\"id\":1}]"`, "done = function(summary, latency, requests)", resultMarker} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}

func TestParseWrkOutput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		out     string
		want    WrkResult
		wantErr bool
	}{
		{
			name: "summary then result line",
			out: "Running 10s test @ http://127.0.0.1:1/\n  1 threads and 32 connections\nRequests/sec: 100.0\n" +
				`BENCHJSON {"requests":1000,"duration_us":2000000,"bytes":5000,"err_connect":0,"err_read":1,"err_write":0,"err_status":2,"err_timeout":0,"p50":120,"p90":200,"p99":900,"p999":1500,"max":2000,"mean":150.5}` + "\n",
			want: WrkResult{Requests: 1000, DurationUS: 2000000, Bytes: 5000, ErrRead: 1, ErrStatus: 2, P50: 120, P90: 200, P99: 900, P999: 1500, Max: 2000, Mean: 150.5},
		},
		{name: "no result line", out: "Running 10s test\n", wantErr: true},
		{name: "broken result line", out: "BENCHJSON {\"requests\":\n", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseWrkOutput([]byte(tc.out))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestWrkResultRateAndErrors(t *testing.T) {
	t.Parallel()
	r := WrkResult{Requests: 500, DurationUS: 250000, ErrConnect: 1, ErrRead: 2, ErrWrite: 3, ErrStatus: 4, ErrTimeout: 5}
	if got := r.Rate(); got != 2000 {
		t.Errorf("Rate = %v, want 2000", got)
	}
	if got := r.Errors(); got != 15 {
		t.Errorf("Errors = %d, want 15", got)
	}
	if got := (WrkResult{}).Rate(); got != 0 {
		t.Errorf("zero Rate = %v", got)
	}
}

// TestRunWrk drives a real wrk against a server that accepts only the
// expected body: JSON, a batch and binary protobuf with a CR LF in it.
func TestRunWrk(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not installed (apt-get install wrk); the harness needs it")
	}
	cases := []struct{ name, body, ctype string }{
		{"single", dgpoCall, jsonType},
		{"batch", dgpoBatch(3), jsonType},
		{"binary", "\x08\xe8\x07\x10\x01\r\n\x00\xff", "application/proto"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if string(b) != tc.body || r.Header.Get("Content-Type") != tc.ctype || r.Method != http.MethodPost {
					http.Error(w, "unexpected request", http.StatusBadRequest)
					return
				}
				_, _ = io.WriteString(w, `{"ok":true}`)
			}))
			t.Cleanup(srv.Close)
			res, err := RunWrk(context.Background(), WrkSpec{
				Request: Request{URL: srv.URL, Body: tc.body, ContentType: tc.ctype},
				// 3 s, not 1: on a loaded machine the first answers can take a while.
				Threads: 1, Connections: 2, Duration: 3 * time.Second, Dir: t.TempDir(),
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests == 0 || res.Errors() != 0 || res.P50 <= 0 || res.P99 < res.P50 || res.CPU <= 0 {
				t.Errorf("implausible result %+v", res)
			}
		})
	}
}
