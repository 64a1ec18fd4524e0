package gateway_test

// Harness of the typed-API tests: a real Gateway served by the production
// http.Server setup (HTTP/1.1 and h2c) on 127.0.0.1, in front of a backend
// (the simulated node, a replay of recorded fixtures, or a test handler)
// that counts the upstream calls it receives, and Connect clients for the
// four protocols the typed API speaks.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// typedHangGuard bounds every call of these tests so that a bug fails a
// test instead of hanging it. It is never a speed claim.
const typedHangGuard = 60 * time.Second

// typedConfig routes every namespace to one backend and caches for a
// minute. {{backend}} is replaced by the backend's URL.
const typedConfig = `
hivegate:
  operator_message: "typed test gateway"
  cache_max_capacity: 67108864
  middleware_connection_threads: 16
backends:
  node: {{backend}}
urls:
  appbase: node
  hived: node
  bridge: node
  hive: node
ttls:
  appbase: 60
  hived: 60
  appbase.test_api.no_cache: NO_CACHE
timeouts:
  appbase: 5
  appbase.database_api.list_savings_withdrawals: 1
`

// countingBackend wraps a JSON-RPC backend handler and counts the calls
// per method it receives (batch elements included).
type countingBackend struct {
	h     http.Handler
	srv   *httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func newCountingBackend(t testing.TB, h http.Handler) *countingBackend {
	t.Helper()
	b := &countingBackend{h: h, calls: map[string]int{}}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *countingBackend) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var one struct {
		Method string `json:"method"`
	}
	var many []struct {
		Method string `json:"method"`
	}
	b.mu.Lock()
	if json.Unmarshal(body, &one) == nil {
		b.calls[one.Method]++
	} else if json.Unmarshal(body, &many) == nil {
		for _, m := range many {
			b.calls[m.Method]++
		}
	}
	b.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	b.h.ServeHTTP(w, r)
}

// count returns how many calls of method the backend received.
func (b *countingBackend) count(method string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls[method]
}

// total returns how many calls the backend received, health probes and
// LIB polls excluded.
func (b *countingBackend) total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for m, c := range b.calls {
		if m != "jsonrpc.get_methods" {
			n += c
		}
	}
	return n
}

// typedGateway is a gateway under test and its clients.
type typedGateway struct {
	t       testing.TB
	gw      *gateway.Gateway
	srv     *httptest.Server
	backend *countingBackend
	h1      *http.Client // HTTP/1.1
	h2c     *http.Client // HTTP/2 with prior knowledge, for gRPC
}

// startTypedGateway serves a gateway in front of backend h.
func startTypedGateway(t testing.TB, h http.Handler, opts gateway.Options) *typedGateway {
	t.Helper()
	return startTypedGatewayWith(t, h, opts, nil)
}

// startTypedGatewayWith is startTypedGateway with the config changed by
// edit (when not nil) first.
func startTypedGatewayWith(t testing.TB, h http.Handler, opts gateway.Options, edit func(*config.Config)) *typedGateway {
	t.Helper()
	b := newCountingBackend(t, h)
	yaml := strings.ReplaceAll(typedConfig, "{{backend}}", b.srv.URL)
	cfg, err := config.Parse("typed_test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if edit != nil {
		edit(cfg)
	}
	if opts.Version == "" {
		opts.Version = "1.0.0-test"
	}
	gw, err := gateway.New(cfg, opts)
	if err != nil {
		t.Fatalf("NewGateway: %v", err)
	}
	t.Cleanup(gw.Close)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = gateway.NewHTTPServer("", gw.Handler(), gateway.Timeouts{}, nil)
	srv.Start()
	t.Cleanup(srv.Close)
	var h2 http.Protocols
	h2.SetUnencryptedHTTP2(true)
	g := &typedGateway{
		t: t, gw: gw, srv: srv, backend: b,
		h1:  &http.Client{Transport: &http.Transport{}, Timeout: typedHangGuard},
		h2c: &http.Client{Transport: &http.Transport{Protocols: &h2}, Timeout: typedHangGuard},
	}
	t.Cleanup(g.h1.CloseIdleConnections)
	t.Cleanup(g.h2c.CloseIdleConnections)
	return g
}

// protocol is one way a client reaches the typed API.
type protocol struct {
	name string
	opts []connect.ClientOption
	h2c  bool
}

// protocols returns the four wire protocols of the typed API. Connect JSON
// and gRPC-Web go over HTTP/1.1, Connect binary and gRPC over h2c.
func protocols() []protocol {
	return []protocol{
		{name: "connect+json", opts: []connect.ClientOption{connect.WithProtoJSON()}},
		{name: "connect+proto", h2c: true},
		{name: "grpc", opts: []connect.ClientOption{connect.WithGRPC()}, h2c: true},
		{name: "grpc-web", opts: []connect.ClientOption{connect.WithGRPCWeb()}},
	}
}

// client returns the HTTP client a protocol needs.
func (g *typedGateway) client(p protocol) *http.Client {
	if p.h2c {
		return g.h2c
	}
	return g.h1
}

// anyMsg lets one generic connect client carry any message type, like the
// server's own box: its ProtoReflect is the boxed message's.
type anyMsg struct{ proto.Message }

// ProtoReflect returns the boxed message's reflection.
func (b *anyMsg) ProtoReflect() protoreflect.Message { return b.Message.ProtoReflect() }

// call makes one unary call of procedure over protocol p; resp is the
// message the response is decoded into.
func (g *typedGateway) call(ctx context.Context, p protocol, md protoreflect.MethodDescriptor, req, resp proto.Message) (http.Header, error) {
	procedure := "/" + string(md.Parent().FullName()) + "/" + string(md.Name())
	opts := append([]connect.ClientOption{
		connect.WithSchema(md),
		connect.WithResponseInitializer(func(_ connect.Spec, msg any) error {
			msg.(*anyMsg).Message = resp
			return nil
		}),
	}, p.opts...)
	c := connect.NewClient[anyMsg, anyMsg](g.client(p), g.srv.URL+procedure, opts...)
	ctx, cancel := context.WithTimeout(ctx, typedHangGuard)
	defer cancel()
	r, err := c.CallUnary(ctx, connect.NewRequest(&anyMsg{Message: req}))
	if err != nil {
		return nil, err
	}
	return r.Header(), nil
}

// postJSONRPC sends one JSON-RPC body to POST / and returns the answer.
func (g *typedGateway) postJSONRPC(body string) (http.Header, []byte) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), typedHangGuard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.srv.URL, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := g.h1.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp.Header, b
}

// addr is the gateway's host:port.
func (g *typedGateway) addr() string { return g.srv.Listener.Addr().(*net.TCPAddr).String() }

// jsonDiff describes the first difference between two decoded JSON values
// ("" when equal). A json.Number and a string equal it as integers (hived
// writes large 64-bit integers as strings); numbers compare exactly.
func jsonDiff(want, got any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %.80v", path, got)
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inW && isNeverTimeJSON(gv), !inG && isNeverTimeJSON(wv):
				continue // hived's never-time equals an unset (absent) time
			case !inW:
				return fmt.Sprintf("%s.%s: unexpected member %.80v", path, k, gv)
			case !inG:
				return fmt.Sprintf("%s.%s: missing (want %.80v)", path, k, wv)
			}
			if d := jsonDiff(wv, gv, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: want an array of %d, got %.80v", path, len(w), got)
		}
		for i := range w {
			if d := jsonDiff(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case json.Number, string:
		if sameNumber(want, got) {
			return ""
		}
	}
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("%s: want %.80v, got %.80v", path, want, got)
}

// sameNumber reports two scalars holding the same number, each a
// json.Number or a numeric string.
func sameNumber(a, b any) bool {
	x, ok1 := asRat(a)
	y, ok2 := asRat(b)
	return ok1 && ok2 && x.Cmp(y) == 0
}

func asRat(v any) (*big.Rat, bool) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = string(v)
	case string:
		s = v
		if s == "" || strings.ContainsAny(s, " eE") {
			return nil, false
		}
	default:
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// isNeverTimeJSON reports one of hived's never-times, 1969-12-31T23:59:59
// (not scheduled) and 1970-01-01T00:00:00 (never happened), in hived's or
// hivemind's spelling. The typed API holds them as an unset Timestamp, which
// hivegate leaves out of the objects it writes, so an object member holding
// one equals an absent member (proto/README.md, "Times"); every other value,
// and a never-time anywhere but an object member, is compared as it is.
func isNeverTimeJSON(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	switch strings.TrimSuffix(strings.Replace(s, " ", "T", 1), "Z") {
	case "1969-12-31T23:59:59", "1970-01-01T00:00:00":
		return true
	}
	return false
}
