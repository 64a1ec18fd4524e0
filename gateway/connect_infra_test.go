package gateway_test

// The handler tree around the typed services: gRPC health checking,
// server reflection, CORS for browsers, and the `buf curl` command the
// docs/api.md shows.

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/hivegate/hivegate/gateway"
)

// healthFile is grpc/health/v1/health.proto's Check, built here: grpchealth
// registers its copy under a private package name.
func healthFile(t *testing.T) protoreflect.FileDescriptor {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("grpc/health/v1/health.proto"),
		Package: proto.String("grpc.health.v1"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("HealthCheckRequest"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("service"), Number: proto.Int32(1), JsonName: proto.String("service"),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
			}}},
			{Name: proto.String("HealthCheckResponse"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("status"), Number: proto.Int32(1), JsonName: proto.String("status"),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: descriptorpb.FieldDescriptorProto_TYPE_ENUM.Enum(),
				TypeName: proto.String(".grpc.health.v1.HealthCheckResponse.ServingStatus"),
			}}, EnumType: []*descriptorpb.EnumDescriptorProto{{
				Name: proto.String("ServingStatus"),
				Value: []*descriptorpb.EnumValueDescriptorProto{
					{Name: proto.String("UNKNOWN"), Number: proto.Int32(0)},
					{Name: proto.String("SERVING"), Number: proto.Int32(1)},
					{Name: proto.String("NOT_SERVING"), Number: proto.Int32(2)},
					{Name: proto.String("SERVICE_UNKNOWN"), Number: proto.Int32(3)},
				},
			}}},
		},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("Health"),
			Method: []*descriptorpb.MethodDescriptorProto{{
				Name: proto.String("Check"), InputType: proto.String(".grpc.health.v1.HealthCheckRequest"),
				OutputType: proto.String(".grpc.health.v1.HealthCheckResponse"),
			}},
		}},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// healthCheck asks the gRPC health service about service over gRPC.
func healthCheck(t *testing.T, g *typedGateway, service string) (string, error) {
	t.Helper()
	md := healthFile(t).Services().Get(0).Methods().Get(0)
	req := dynamicpb.NewMessage(md.Input())
	req.Set(md.Input().Fields().ByName("service"), protoreflect.ValueOfString(service))
	resp := dynamicpb.NewMessage(md.Output())
	if _, err := g.call(context.Background(), protocols()[2], md, req, resp); err != nil {
		return "", err
	}
	status := md.Output().Fields().ByName("status")
	return string(status.Enum().Values().ByNumber(resp.Get(status).Enum()).Name()), nil
}

// propsNode is a hived node whose head block was produced age ago: it
// answers get_dynamic_global_properties and nothing else.
func propsNode(age time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		result := `{}`
		if req.Method == "database_api.get_dynamic_global_properties" {
			at := time.Now().Add(-age).UTC().Format("2006-01-02T15:04:05")
			result = `{"head_block_number":1020,"time":"` + at + `","last_irreversible_block_num":1000}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`))
	})
}

// TestGRPCHealth checks that the gRPC health service follows GET /'s rule:
// SERVING while every backend has a node in service, NOT_SERVING when a
// backend has none (its node unreachable, or answering with a head block
// a minute old, so that calls could still be made to it), for the server
// and for every service; NOT_FOUND for an unknown service.
func TestGRPCHealth(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), typedHangGuard)
	defer cancel()
	g := startTypedGateway(t, propsNode(time.Second), gateway.Options{})
	g.gw.Dispatcher().Pool().Probe(ctx)
	for _, svc := range []string{"", "hive.database_api.v1.DatabaseApiService", "hivegate.v1.JsonRpcService", "grpc.health.v1.Health"} {
		got, err := healthCheck(t, g, svc)
		if err != nil || got != "SERVING" {
			t.Errorf("health %q = %s, %v; want SERVING", svc, got, err)
		}
	}
	if _, err := healthCheck(t, g, "no.such.Service"); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("unknown service: %v, want not_found", err)
	}

	stale := startTypedGateway(t, propsNode(time.Minute), gateway.Options{})
	stale.gw.Dispatcher().Pool().Probe(ctx)
	if !stale.gw.Dispatcher().Healthy() {
		t.Fatal("the stale node is not even reachable: the case tests nothing")
	}
	down := startTypedGateway(t, http.NotFoundHandler(), gateway.Options{})
	down.backend.srv.Close()
	for range 10 { // more than the pool's failure threshold
		down.gw.Dispatcher().Pool().Probe(ctx)
	}
	for name, gw := range map[string]*typedGateway{"a head block a minute old": stale, "the backend down": down} {
		for _, svc := range []string{"", "hive.condenser_api.v1.CondenserApiService"} {
			got, err := healthCheck(t, gw, svc)
			if err != nil || got != "NOT_SERVING" {
				t.Errorf("health %q with %s = %s, %v; want NOT_SERVING", svc, name, got, err)
			}
		}
	}
}

// TestReflection lists the services through gRPC server reflection, v1 and
// v1alpha, and resolves a typed service's file.
func TestReflection(t *testing.T) {
	t.Parallel()
	g := simGateway(t, gateway.Options{})
	want := []string{
		"hive.account_by_key_api.v1.AccountByKeyApiService",
		"hive.account_history_api.v1.AccountHistoryApiService",
		"hive.block_api.v1.BlockApiService",
		"hive.bridge.v1.BridgeApiService",
		"hive.condenser_api.v1.CondenserApiService",
		"hive.database_api.v1.DatabaseApiService",
		"hive.follow_api.v1.FollowApiService",
		"hive.hive_api.v1.HiveApiService",
		"hive.hivemind_api.v1.HivemindApiService",
		"hive.market_history_api.v1.MarketHistoryApiService",
		"hive.rc_api.v1.RcApiService",
		"hive.reputation_api.v1.ReputationApiService",
		"hive.search_api.v1.SearchApiService",
		"hive.stream.v1.StreamService", // streams.enabled is on by default
		"hive.tags_api.v1.TagsApiService",
		"hive.transaction_status_api.v1.TransactionStatusApiService",
		"hivegate.v1.JsonRpcService",
	}
	for _, alpha := range []bool{false, true} {
		client := g.h2c
		if alpha {
			// grpcreflect's client tries v1 first; send its v1 calls to
			// the v1alpha path (the messages are the same on the wire).
			client = &http.Client{Transport: pathRewriter{
				rt:   g.h2c.Transport,
				from: "/grpc.reflection.v1.ServerReflection/",
				to:   "/grpc.reflection.v1alpha.ServerReflection/",
			}}
		}
		ctx, cancel := context.WithTimeout(context.Background(), typedHangGuard)
		stream := grpcreflect.NewClient(client, g.srv.URL, connect.WithGRPC()).NewStream(ctx)
		names, err := stream.ListServices()
		if err != nil {
			cancel()
			t.Fatalf("ListServices (v1alpha %v): %v", alpha, err)
		}
		var got []string
		for _, n := range names {
			got = append(got, string(n))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("services (v1alpha %v) = %v, want %v", alpha, got, want)
		}
		files, err := stream.FileContainingSymbol("hive.database_api.v1.DatabaseApiService")
		if err != nil || len(files) == 0 {
			t.Errorf("FileContainingSymbol (v1alpha %v): %d files, %v", alpha, len(files), err)
		}
		_, _ = stream.Close()
		cancel()
	}
}

// pathRewriter replaces a URL path prefix before sending a request.
type pathRewriter struct {
	rt       http.RoundTripper
	from, to string
}

// RoundTrip implements http.RoundTripper.
func (p pathRewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, p.from) {
		r = r.Clone(r.Context())
		r.URL.Path = p.to + strings.TrimPrefix(r.URL.Path, p.from)
	}
	return p.rt.RoundTrip(r)
}

// TestCORS checks a browser preflight from another origin and the headers
// an actual cross-origin response exposes, with the default (any origin)
// and with a configured list.
func TestCORS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		allowed   []string
		origin    string
		wantAllow string // Access-Control-Allow-Origin; "" for refused
	}{
		{"any origin by default", nil, "https://wallet.example", "*"},
		{"listed origin", []string{"https://app.example"}, "https://app.example", "https://app.example"},
		{"unlisted origin", []string{"https://app.example"}, "https://evil.example", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := simGateway(t, gateway.Options{CORSAllowedOrigins: tt.allowed})
			for _, path := range []string{"/hive.database_api.v1.DatabaseApiService/ListAccounts", "/"} {
				req, err := http.NewRequest(http.MethodOptions, g.srv.URL+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Origin", tt.origin)
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "connect-protocol-version,content-type,x-grpc-web,x-user-agent")
				resp, err := g.h1.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.wantAllow {
					t.Errorf("%s: preflight Access-Control-Allow-Origin = %q, want %q", path, got, tt.wantAllow)
				}
				if tt.wantAllow != "" {
					if resp.StatusCode/100 != 2 {
						t.Errorf("%s: preflight status %d", path, resp.StatusCode)
					}
					if h := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")); !strings.Contains(h, "connect-protocol-version") || !strings.Contains(h, "x-grpc-web") {
						t.Errorf("%s: preflight allows headers %q", path, h)
					}
				}
			}
			// An actual Connect call from the browser's origin.
			req, err := http.NewRequest(http.MethodPost, g.srv.URL+"/hive.database_api.v1.DatabaseApiService/ListAccounts",
				strings.NewReader(`{"limit":2,"order":"LIST_ACCOUNTS_ORDER_BY_NAME"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", tt.origin)
			resp, err := g.h1.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("Connect JSON call: status %d", resp.StatusCode)
			}
			if tt.wantAllow != "" {
				exposed := strings.ToLower(resp.Header.Get("Access-Control-Expose-Headers"))
				for _, h := range []string{"x-hivegate-cache", "grpc-status", "grpc-message"} {
					if !strings.Contains(exposed, h) {
						t.Errorf("response does not expose %s: %q", h, exposed)
					}
				}
			}
		})
	}
}

// bufCurlArgs are the arguments of docs/api.md's `buf curl` example, after
// the buf command, for a gateway at addr.
func bufCurlArgs(addr string) []string {
	return []string{"curl",
		"--protocol", "grpc", "--http2-prior-knowledge",
		"--data", `{"limit": 2, "order": "LIST_ACCOUNTS_ORDER_BY_NAME"}`,
		"http://" + addr + "/hive.database_api.v1.DatabaseApiService/ListAccounts"}
}

// bufEnv names a buf binary for TestBufCurl; without it the test uses the
// one npm installs from tests/package.json (@bufbuild/buf ships buf's
// release binary), so that no test builds buf from source.
const bufEnv = "HIVEGATE_BUF"

// prebuiltBuf returns the buf binary TestBufCurl runs: $HIVEGATE_BUF, or
// tests/node_modules/.bin/buf after `npm ci` in tests/ (.ci/run does it).
// Without either, the test skips on a developer's machine (a plain
// `go test ./...` needs no Node) and fails under CI=true, where .ci/run has
// installed it: CI never passes without running the command.
func prebuiltBuf(t *testing.T, repo string) string {
	t.Helper()
	if p := os.Getenv(bufEnv); p != "" {
		return p
	}
	p := filepath.Join(repo, "tests", "node_modules", ".bin", "buf")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but no buf binary: %s is unset and %s is missing (.ci/run runs `npm ci` in tests/ before the Go tests)", bufEnv, p)
	}
	t.Skipf("buf curl not run: no prebuilt buf (run `npm ci` in tests/, or set %s to a buf %s binary); CI runs it", bufEnv, pinnedBufVersion(t, repo))
	return ""
}

// pinnedBufVersion is the buf release tools/buf/go.mod pins (what
// `go tool -modfile=tools/buf/go.mod buf` runs), without its "v".
func pinnedBufVersion(t *testing.T, repo string) string {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(repo, "tools", "buf", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(mod)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/bufbuild/buf" {
			return strings.TrimPrefix(f[1], "v")
		}
	}
	t.Fatal("tools/buf/go.mod does not require github.com/bufbuild/buf")
	return ""
}

// TestBufCurl runs the `buf curl` command of docs/api.md (gRPC over h2c, schema
// from server reflection) against a test gateway, with a prebuilt buf of
// the release tools/buf/go.mod pins (prebuiltBuf): the test also fails when
// tests/package.json and tools/buf/go.mod pin different releases.
func TestBufCurl(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(file))
	buf := prebuiltBuf(t, repo)
	vctx, vcancel := context.WithTimeout(context.Background(), 5*typedHangGuard)
	defer vcancel()
	ver, err := exec.CommandContext(vctx, buf, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", buf, err, ver)
	}
	if got, want := strings.TrimSpace(string(ver)), pinnedBufVersion(t, repo); got != want {
		t.Fatalf("%s is buf %s, tools/buf/go.mod pins %s: pin the same release in tests/package.json", buf, got, want)
	}
	g := simGateway(t, gateway.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*typedHangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, buf, bufCurlArgs(g.addr())...)
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("buf curl: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, `"accounts"`) || !strings.Contains(s, `"nextStart"`) {
		t.Errorf("buf curl output has no accounts and nextStart:\n%s", s)
	}
}
