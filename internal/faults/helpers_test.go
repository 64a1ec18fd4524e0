package faults_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/faults"
)

// hangGuard bounds every wait so that a bug fails a test instead of hanging it.
const hangGuard = 10 * time.Second

// newServer starts a fault server that stops when t ends.
func newServer(t testing.TB, f faults.Fault, opts faults.Options) *faults.Server {
	t.Helper()
	s, err := faults.New(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// gw is a gateway on a loopback httptest server.
type gw struct {
	*faults.Gateway
	srv    *mainServer
	client *http.Client
}

// configYAML renders a modern config with one backend and one urls entry
// per namespace, a 60 s TTL and a 1 s timeout everywhere unless extra
// (appended verbatim) says otherwise.
func configYAML(backends map[string]string, extra string) string {
	var b strings.Builder
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	b.WriteString("hivegate:\n  cache_max_capacity: 16777216\nbackends:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %s: %s\n", n, backends[n])
	}
	b.WriteString("urls:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %s: %s\n", n, n)
	}
	b.WriteString(extra)
	return b.String()
}

func mustConfig(t testing.TB, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("faults.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("config: %v\n%s", err, yaml)
	}
	return cfg
}

// startGateway builds a gateway from yaml and serves it on 127.0.0.1.
func startGateway(t testing.TB, yaml string, opts faults.GatewayOptions) *gw {
	t.Helper()
	g, err := faults.NewGateway(mustConfig(t, yaml), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	srv := serveMain(t, g)
	return &gw{Gateway: g, srv: srv, client: &http.Client{Timeout: hangGuard}}
}

// reply is one HTTP answer of the gateway.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Name string `json:"name"`
	} `json:"data"`
}

// response is one JSON-RPC response.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func (g *gw) post(t testing.TB, body string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// single decodes the answer as one JSON-RPC response.
func (r reply) single(t testing.TB) response {
	t.Helper()
	var out response
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("answer: %v: %s", err, r.body)
	}
	return out
}

// call renders a JSON-RPC request.
func call(id, method, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`
}

// echo is what a fault server answers to a healthy call.
func echo(method, params string) string {
	return string(faults.Echo(method, json.RawMessage(params)))
}

// waitFor polls cond until it holds, failing the test after hangGuard.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
