package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// maxLogLine is the most a log line may take in TestLogLinesBounded: a
// line carries a handful of values of at most logval.MaxValueBytes (512)
// each, and only one or two of them come from a client or a node.
const maxLogLine = 2 << 10

// broadcastOps returns the params of a condenser_api.broadcast_transaction
// with n vote operations (about 70 bytes each).
func broadcastOps(n int) string {
	op := `["vote",{"voter":"alice","author":"bob","permlink":"a-post","weight":10000}]`
	ops := strings.Repeat(op+",", n-1) + op
	return `[{"ref_block_num":1,"ref_block_prefix":2,"expiration":"2030-01-01T00:00:00","operations":[` +
		ops + `],"extensions":[],"signatures":[]}]`
}

// TestLogLinesBounded sends what made hivegate write huge log lines: an
// 8,000-operation broadcast (560 KB of params) the node fails, and a
// Connect request whose path is 50 KB long. Every line the gateway logs
// (the upstream failure with the call's key, the access log) stays under
// maxLogLine, and a cut value says how much was left out.
func TestLogLinesBounded(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.on("condenser_api.broadcast_transaction", func(w http.ResponseWriter, _ *http.Request, _ nodeRequest) {
		http.Error(w, strings.Repeat("node trouble ", 4000), http.StatusInternalServerError)
	})
	o := startOps(t, opsYAML(node, ""))

	status, _, body := o.post(rpc(1, "condenser_api.broadcast_transaction", broadcastOps(8000)))
	if status != http.StatusBadGateway || !strings.Contains(string(body), `"code":-32011`) {
		t.Fatalf("broadcast: status %d: %.300s", status, body)
	}
	req, err := http.NewRequest(http.MethodPost, o.srv.URL+"/hive.database_api.v1.DatabaseApiService/"+strings.Repeat("X", 50_000), strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if status, _, _ := o.do(req); status != http.StatusNotFound {
		t.Fatalf("long path: status %d, want 404", status)
	}
	// The access log line of the second request is written after its
	// answer; wait for it (bounded).
	waitFor(t, "the access log lines", func() bool { return len(o.logs.lines(t, "request")) >= 2 })

	lines := strings.Split(strings.TrimSpace(o.logs.String()), "\n")
	var failed, cut int
	for _, line := range lines {
		if len(line) > maxLogLine {
			t.Errorf("log line of %d bytes (want at most %d): %.200s…", len(line), maxLogLine, line)
		}
		if strings.Contains(line, `"upstream call failed"`) {
			failed++
		}
		if strings.Contains(line, " bytes)") && strings.Contains(line, "…(+") {
			cut++
		}
	}
	if failed == 0 || cut < 2 {
		t.Errorf("%d lines say the upstream call failed, %d cut a value, want at least 1 and 2:\n%s", failed, cut, o.logs.String())
	}
}
