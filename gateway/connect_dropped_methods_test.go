package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hivegate/hivegate/gateway"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	tagsv1 "github.com/hivegate/hivegate/gen/hive/tags_api/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
)

// droppedAnswers are what current API nodes answer for the methods their
// software dropped (issue 28 item 6), from the sources: hivemind cab9e32
// (get_api_method.sql's ELSE branches and exceptions.sql's
// raise_method_not_found_exception: -32602, with "tags_api" and the method
// joined without a dot) and HAfAH (hafah_endpoints.sql: -32601 "Method not
// found" with the method as data).
var droppedAnswers = map[string]string{
	"condenser_api.get_discussions_by_promoted": `{"code":-32602,"message":"Assert Exception:unknown method: condenser_api.get_discussions_by_promoted","data":{"code":10,"name":"assert_exception","message":"Assert Exception","stack":[{"context":{"level":"error","file":"","line":0,"method":"","hostname":"","thread_name":"","timestamp":"2026-05-04T10:00:00"},"format":"","data":{"category":"hivemind"}}],"extension":{"assertion_expression":"unknown method: condenser_api.get_discussions_by_promoted"},"assert_hash":"3c4d5e6f7a8b9c0d1e2f"}}`,
	"tags_api.get_discussions_by_promoted":      `{"code":-32602,"message":"Assert Exception:unknown method: tags_apiget_discussions_by_promoted","data":{"code":10,"name":"assert_exception","message":"Assert Exception","stack":[],"extension":{"assertion_expression":"unknown method: tags_apiget_discussions_by_promoted"},"assert_hash":"3c4d5e6f7a8b9c0d1e2f"}}`,
	"condenser_api.enum_virtual_ops":            `{"code":-32601,"message":"Method not found","data":"condenser_api.enum_virtual_ops"}`,
}

// droppedBackend answers the dropped methods as current nodes do, or, with
// old set, as the last hivemind that kept promoted did (PostgREST hivemind
// before 0f025fc: []).
func droppedBackend(old bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		member := `"error":` + droppedAnswers[req.Method]
		if old && strings.HasSuffix(req.Method, ".get_discussions_by_promoted") {
			member = `"result":[]`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+member+`}`)
	})
}

// droppedRPCs are the typed RPCs of the dropped methods, with a request.
func droppedRPCs() []struct {
	md  protoreflect.MethodDescriptor
	req proto.Message
} {
	tags := tagsv1.File_hive_tags_api_v1_tags_api_proto.Services().Get(0).Methods().ByName("GetDiscussionsByPromoted")
	return []struct {
		md  protoreflect.MethodDescriptor
		req proto.Message
	}{
		{condenserMethod("GetDiscussionsByPromoted"), &condv1.GetDiscussionsByPromotedRequest{Query: &typesv1.DiscussionQuery{Limit: proto.Uint32(5)}}},
		{tags, &tagsv1.GetDiscussionsByPromotedRequest{Limit: proto.Uint32(5)}},
		{condenserMethod("EnumVirtualOps"), &condv1.EnumVirtualOpsRequest{BlockRangeBegin: 1, BlockRangeEnd: 100, Limit: proto.Uint32(5)}},
	}
}

// TestTypedDroppedMethods checks how the current nodes' refusals of the
// deprecated RPCs reach a typed client: hivemind's -32602 is
// invalid_argument, HAfAH's -32601 unimplemented, each with the node's
// code in the JsonRpcError detail, over every protocol.
func TestTypedDroppedMethods(t *testing.T) {
	t.Parallel()
	g := startTypedGateway(t, droppedBackend(false), gateway.Options{})
	want := map[protoreflect.Name]connect.Code{}
	for _, rpc := range droppedRPCs() {
		want[rpc.md.Parent().Name()+"."+rpc.md.Name()] = connect.CodeInvalidArgument
	}
	want["CondenserApiService.EnumVirtualOps"] = connect.CodeUnimplemented
	for _, rpc := range droppedRPCs() {
		if !rpc.md.Options().(interface{ GetDeprecated() bool }).GetDeprecated() {
			t.Errorf("%s is not deprecated", rpc.md.FullName())
		}
		key := rpc.md.Parent().Name() + "." + rpc.md.Name()
		wantDetail := int32(-32602)
		if want[key] == connect.CodeUnimplemented {
			wantDetail = -32601
		}
		for _, p := range protocols() {
			_, err := g.call(context.Background(), p, rpc.md, rpc.req, dynamicResponse(rpc.md))
			if connect.CodeOf(err) != want[key] {
				t.Errorf("%s over %s: %v, want %v", key, p.name, err, want[key])
				continue
			}
			if d := jsonRPCDetail(t, err); d == nil || d.GetCode() != wantDetail {
				t.Errorf("%s over %s: JsonRpcError detail %v, want code %d", key, p.name, d, wantDetail)
			}
		}
	}
}

// TestTypedPromotedOldHivemind checks the promoted lists against the last
// hivemind that kept them (it answered []): an empty page and no cursor.
func TestTypedPromotedOldHivemind(t *testing.T) {
	t.Parallel()
	g := startTypedGateway(t, droppedBackend(true), gateway.Options{})
	for _, rpc := range droppedRPCs()[:2] {
		resp := dynamicResponse(rpc.md)
		if _, err := g.call(context.Background(), protocols()[0], rpc.md, rpc.req, resp); err != nil {
			t.Fatalf("%s: %v", rpc.md.FullName(), err)
		}
		m := resp.ProtoReflect()
		fields := m.Descriptor().Fields()
		if n := m.Get(fields.ByName("posts")).List().Len(); n != 0 || m.Has(fields.ByName("next_start")) {
			t.Errorf("%s: %d posts, next_start set %v; want none", rpc.md.FullName(), n, m.Has(fields.ByName("next_start")))
		}
	}
}
