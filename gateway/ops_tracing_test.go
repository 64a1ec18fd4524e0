package gateway_test

import (
	"bytes"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an in-process OTLP/HTTP collector: it counts the POSTs
// to /v1/traces and keeps the spans they carry.
type otlpReceiver struct {
	srv      *httptest.Server
	mu       sync.Mutex
	posts    int
	spans    []*tracepb.Span
	services []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil || req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
			http.Error(w, "want POST /v1/traces", http.StatusNotFound)
			return
		}
		var msg coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.posts++
		for _, rs := range msg.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					r.services = append(r.services, a.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				r.spans = append(r.spans, ss.GetSpans()...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// snapshot returns the POST count, spans and service names received.
func (r *otlpReceiver) snapshot() (int, []*tracepb.Span, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts, append([]*tracepb.Span(nil), r.spans...), append([]string(nil), r.services...)
}

// spanAttr returns a span's string attribute.
func spanAttr(s *tracepb.Span, key string) string {
	for _, a := range s.GetAttributes() {
		if a.GetKey() == key {
			return a.GetValue().GetStringValue()
		}
	}
	return ""
}

// TestTracing turns tracing on (hivegate.tracing, every request sampled)
// and shows the spans exported to the collector when the gateway closes:
// a server span for a JSON-RPC request and one for a Connect call, each
// with a client span for its upstream call beneath it, whose context the
// backend receives in traceparent.
func TestTracing(t *testing.T) {
	t.Parallel()
	recv := newOTLPReceiver(t)
	node := newFakeNode(t)
	var rec idRecorder
	node.on("condenser_api.get_accounts", rec.handler(`[{"name":"alice"}]`))
	o := startOps(t, opsYAML(node, "  tracing: {otlp_endpoint: '"+recv.srv.URL+"', sample_ratio: 1, service_name: gw-test}\n"))
	o.post(rpc(1, "condenser_api.get_accounts", `[["alice"]]`), "Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	if _, err := o.jsonRPCService("condenser_api.get_accounts"); err != nil {
		t.Fatal(err)
	}
	o.gw.Close() // flushes the spans

	posts, spans, services := recv.snapshot()
	if posts == 0 {
		t.Fatal("no POST to /v1/traces")
	}
	for _, s := range services {
		if s != "gw-test" {
			t.Errorf("service.name %q, want gw-test", s)
		}
	}
	byName := map[string][]*tracepb.Span{}
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byName[s.GetName()] = append(byName[s.GetName()], s)
		byID[hex.EncodeToString(s.GetSpanId())] = s
	}
	jsonRPC, connectSpan := byName["POST /"], byName["hivegate.v1.JsonRpcService/Call"]
	if len(jsonRPC) != 1 || len(connectSpan) != 1 || len(byName["upstream hived"]) < 2 {
		t.Fatalf("spans by name: %v", names(spans))
	}
	if got := spanAttr(jsonRPC[0], "rpc.method"); got != "appbase.condenser_api.get_accounts" {
		t.Errorf("JSON-RPC span rpc.method = %q", got)
	}
	if jsonRPC[0].GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("JSON-RPC span kind %v, want server", jsonRPC[0].GetKind())
	}
	// The client's trace context is linked, not continued.
	if links := jsonRPC[0].GetLinks(); len(links) != 1 || hex.EncodeToString(links[0].GetTraceId()) != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("JSON-RPC span links %v, want the client's trace", links)
	}
	parents := map[string]bool{}
	for _, up := range byName["upstream hived"] {
		parent := byID[hex.EncodeToString(up.GetParentSpanId())]
		if parent == nil {
			t.Errorf("upstream span without a parent among the exported spans")
			continue
		}
		parents[parent.GetName()] = true
		if up.GetKind() != tracepb.Span_SPAN_KIND_CLIENT || spanAttr(up, "rpc.method") != "condenser_api.get_accounts" {
			t.Errorf("upstream span: kind %v, rpc.method %q", up.GetKind(), spanAttr(up, "rpc.method"))
		}
	}
	if !parents["POST /"] || !parents["hivegate.v1.JsonRpcService/Call"] {
		t.Errorf("upstream spans' parents: %v, want the JSON-RPC and the Connect spans", parents)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, tp := range rec.traceparent {
		if len(tp) != 55 || !bytes.HasPrefix([]byte(tp), []byte("00-")) {
			t.Errorf("the backend received traceparent %q", tp)
		}
	}
}

// TestTracingOff shows nothing is exported when tracing is off, even with
// the standard OTLP environment variables naming a collector, or when the
// sample ratio is 0.
func TestTracingOff(t *testing.T) {
	recv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.srv.URL)
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	node := newFakeNode(t)
	var rec idRecorder
	node.on("condenser_api.get_accounts", rec.handler(`[{"name":"alice"}]`))
	for i, settings := range []string{"", "  tracing: {otlp_endpoint: '" + recv.srv.URL + "', sample_ratio: 0}\n"} {
		o := startOps(t, opsYAML(node, settings))
		o.post(rpc(1, "condenser_api.get_accounts", `[["alice"]]`))
		if _, err := o.jsonRPCService("condenser_api.get_accounts"); err != nil {
			t.Fatal(err)
		}
		o.gw.Close()
		if posts, spans, _ := recv.snapshot(); posts != 0 || len(spans) != 0 {
			t.Errorf("case %d: %d POSTs, %d spans exported, want none", i, posts, len(spans))
		}
		rec.mu.Lock()
		if i == 0 && rec.traceparent[0] != "" {
			t.Errorf("tracing off, yet the backend received traceparent %q", rec.traceparent[0])
		}
		rec.mu.Unlock()
	}
}

func names(spans []*tracepb.Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.GetName()
	}
	return out
}
