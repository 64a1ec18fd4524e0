package gateway_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hivegate/hivegate/gateway"
	hivemindv1 "github.com/hivegate/hivegate/gen/hive/hivemind_api/v1"
	"github.com/hivegate/hivegate/hivesim"
)

// lockedBuffer is a log sink safe for the gateway's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTypedDriftCounted: keys of a node's answer that the typed message
// does not know are counted per method in
// hivegate_typed_unknown_keys_total and the first of each method and key is
// logged, once (issue 28 item 5; on a85e8cd they were dropped with no
// trace).
func TestTypedDriftCounted(t *testing.T) {
	t.Parallel()
	node := hivesim.New(hivesim.Options{Seed: 1})
	// The node's hive.db_head_state answers a key the schema lacks.
	drifting := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"hive.db_head_state"`)) {
			node.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		node.ServeHTTP(rec, r)
		out := bytes.Replace(rec.Body.Bytes(), []byte(`"result":{`), []byte(`"result":{"db_head_shard":7,`), 1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
	logs := &lockedBuffer{}
	g := startTypedGateway(t, drifting, gateway.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	d, err := protoregistry.GlobalFiles.FindDescriptorByName("hive.hivemind_api.v1.HivemindApiService.DbHeadState")
	if err != nil {
		t.Fatal(err)
	}
	md := d.(protoreflect.MethodDescriptor)
	for _, p := range protocols() {
		resp := &hivemindv1.DbHeadStateResponse{}
		if _, err := g.call(context.Background(), p, md, &hivemindv1.DbHeadStateRequest{}, resp); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if resp.GetDbHeadBlock() == 0 {
			t.Fatalf("%s: no head block in %v", p.name, resp)
		}
	}
	families, err := g.gw.Metrics().Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var counted float64
	for _, f := range families {
		if f.GetName() != "hivegate_typed_unknown_keys_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "method" && l.GetValue() == "hive.db_head_state" {
					counted += m.GetCounter().GetValue()
				}
			}
		}
	}
	if counted < 1 {
		t.Errorf("hivegate_typed_unknown_keys_total{method=\"hive.db_head_state\"} = %v, want at least 1", counted)
	}
	if n := strings.Count(logs.String(), "key=db_head_shard"); n != 1 {
		t.Errorf("the unknown key is logged %d times, want once:\n%s", n, logs.String())
	}
}
