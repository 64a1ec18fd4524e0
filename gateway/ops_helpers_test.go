package gateway_test

// The harness of the operations tests (metrics, access log, request ids,
// admin endpoints, reload, tracing): a gateway whose config is a real file
// (so that it can be reloaded), its main and admin listeners on loopback,
// and the fake nodes of proxy_test.go behind it.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	dbv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/gen/hive/database_api/v1/database_apiv1connect"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/internal/syncbuf"
	"github.com/hivegate/hivegate/metrics"
)

// opsConfig is the base config of the operations tests; {{hived}} is the
// fake node's URL and {{settings}} extra hivegate settings lines.
const opsConfig = `
hivegate:
  cache_max_capacity: 16777216
  lib_poll_interval: 1
{{settings}}
backends:
  hived: {{hived}}
urls:
  appbase: hived
ttls:
  appbase: 60
  appbase.test_api: NO_CACHE
timeouts:
  appbase: 5
retries:
  appbase: 0
`

// logBuffer collects JSON log lines; safe for concurrent use.
type logBuffer struct{ syncbuf.Buffer }

// lines returns the decoded log lines whose msg is msg.
func (l *logBuffer) lines(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// opsGateway is a running gateway under test.
type opsGateway struct {
	t     *testing.T
	gw    *gateway.Gateway
	srv   *httptest.Server // main listener
	admin *httptest.Server // admin listener
	file  string           // the config file
	logs  *logBuffer
}

// opsYAML renders opsConfig for node with the given settings lines.
func opsYAML(node *fakeNode, settings string) string {
	y := strings.ReplaceAll(opsConfig, "{{hived}}", node.srv.URL)
	return strings.ReplaceAll(y, "{{settings}}", settings)
}

// startOps writes yaml to a config file, loads it and serves the gateway
// (background work started) on a main and an admin httptest server.
func startOps(t *testing.T, yaml string) *opsGateway {
	t.Helper()
	o := &opsGateway{t: t, file: filepath.Join(t.TempDir(), "hivegate.yaml"), logs: &logBuffer{}}
	o.write(yaml)
	cfg, err := config.Load(o.file)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	logger := slog.New(slog.NewJSONHandler(o.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.gw, err = gateway.New(cfg, gateway.Options{Version: "9.9.9-test", Logger: logger})
	if err != nil {
		t.Fatalf("NewGateway: %v", err)
	}
	t.Cleanup(o.gw.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	o.gw.Start(ctx)
	o.srv = httptest.NewUnstartedServer(nil)
	o.srv.Config = gateway.NewHTTPServer("", o.gw.Handler(), gateway.Timeouts{}, nil)
	o.srv.Start()
	t.Cleanup(o.srv.Close)
	o.admin = httptest.NewServer(o.gw.AdminHandler())
	t.Cleanup(o.admin.Close)
	return o
}

// write replaces the config file.
func (o *opsGateway) write(yaml string) {
	o.t.Helper()
	if err := os.WriteFile(o.file, []byte(yaml), 0o600); err != nil {
		o.t.Fatal(err)
	}
}

// do sends a request and returns the status, headers and body.
func (o *opsGateway) do(req *http.Request) (int, http.Header, []byte) {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(req.Context(), 3*hangGuard)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		o.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		o.t.Fatalf("%s %s: reading: %v", req.Method, req.URL, err)
	}
	return resp.StatusCode, resp.Header, body
}

// post sends a JSON-RPC body to the main listener with extra headers
// (name, value pairs).
func (o *opsGateway) post(body string, headers ...string) (int, http.Header, []byte) {
	o.t.Helper()
	req, err := http.NewRequest(http.MethodPost, o.srv.URL, strings.NewReader(body))
	if err != nil {
		o.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return o.do(req)
}

// adminReq sends a request to the admin listener with an optional token.
func (o *opsGateway) adminReq(method, path, token string) (int, []byte) {
	o.t.Helper()
	req, err := http.NewRequest(method, o.admin.URL+path, nil)
	if err != nil {
		o.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	status, _, body := o.do(req)
	return status, body
}

// metric returns one series' value from the gateway's registry (-1 when
// absent).
func (o *opsGateway) metric(name, labels string) float64 {
	v, ok := metrics.Value(o.gw.Metrics().Registry(), name, labels)
	if !ok {
		return -1
	}
	return v
}

// jsonRPCService calls hivegate.v1.JsonRpcService/Call over Connect JSON.
func (o *opsGateway) jsonRPCService(method string) (*connect.Response[hivegatev1.CallResponse], error) {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c := hivegatev1connect.NewJsonRpcServiceClient(http.DefaultClient, o.srv.URL, connect.WithProtoJSON())
	return c.Call(ctx, connect.NewRequest(&hivegatev1.CallRequest{Method: method}))
}

// typedDGPO calls DatabaseApiService/GetDynamicGlobalProperties over gRPC-Web.
func (o *opsGateway) typedDGPO() (*connect.Response[dbv1.GetDynamicGlobalPropertiesResponse], error) {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c := database_apiv1connect.NewDatabaseApiServiceClient(http.DefaultClient, o.srv.URL, connect.WithGRPCWeb())
	return c.GetDynamicGlobalProperties(ctx, connect.NewRequest(&dbv1.GetDynamicGlobalPropertiesRequest{}))
}

// rpc is a JSON-RPC 2.0 request body.
func rpc(id int, method, params string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": json.RawMessage(params)})
	return string(b)
}
