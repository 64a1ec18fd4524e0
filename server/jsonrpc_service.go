package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hivegate/hivegate/dispatch"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/server/transcode"
)

// jsonRPCService implements hivegate.v1.JsonRpcService: any JSON-RPC method,
// with params and result as google.protobuf.Value, through the same
// dispatcher (router, cache, coalescing, backend pool) as POST /.
type jsonRPCService struct {
	d   *dispatch.Dispatcher
	log *slog.Logger
	obs Observer
}

// Call implements hivegatev1connect.JsonRpcServiceHandler.
func (s *jsonRPCService) Call(ctx context.Context, req *connect.Request[hivegatev1.CallRequest]) (*connect.Response[hivegatev1.CallResponse], error) {
	start := time.Now()
	frontend := req.Peer().Protocol // connect, grpc or grpcweb: the metrics' frontend values
	var params json.RawMessage
	if p := req.Msg.GetParams(); p != nil {
		b, err := transcode.Marshal(p)
		if err != nil {
			s.obs.Refused(ctx, frontend, jsonrpc.KindInvalidParams, time.Since(start))
			return nil, invalidArgument("params: %v", err)
		}
		params = b
	}
	if req.Msg.GetMethod() == "" {
		s.obs.Refused(ctx, frontend, jsonrpc.KindInvalidRequest, time.Since(start))
		return nil, invalidArgument("method: must be set")
	}
	res := s.d.Call(ctx, req.Msg.GetMethod(), params)
	s.obs.Served(ctx, frontend, req.Msg.GetMethod(), res, time.Since(start))
	if res.Err != nil {
		return nil, callError(ctx, res)
	}
	msg, err := s.decode(res)
	if err != nil {
		ce := connect.NewError(connect.CodeInternal, err)
		setCallHeaders(ce.Meta(), res)
		return nil, ce
	}
	out := connect.NewResponse(msg)
	setCallHeaders(out.Header(), res)
	return out, nil
}

// decode wraps the raw result in a CallResponse, reusing the one attached to
// the cache entry when there is one. The message is shared: read-only.
func (s *jsonRPCService) decode(res dispatch.Result) (*hivegatev1.CallResponse, error) {
	desc := (&hivegatev1.CallResponse{}).ProtoReflect().Descriptor()
	if res.Entry != nil {
		if a, ok := res.Entry.Decoded().(*cachedMessage); ok && a.desc == desc {
			if m, ok := a.msg.(*hivegatev1.CallResponse); ok {
				return m, nil
			}
		}
	}
	v := &structpb.Value{}
	if _, err := transcode.Unmarshal(res.Result, v); err != nil {
		s.log.Warn("result is not JSON", "key", res.Key, "error", err)
		return nil, fmt.Errorf("the backend's result is not valid JSON: %w", err)
	}
	m := &hivegatev1.CallResponse{Result: v}
	if res.Entry != nil {
		attach(res.Entry, &cachedMessage{desc: desc, msg: m})
	}
	return m, nil
}
