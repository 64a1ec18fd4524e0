package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/hivegate/hivegate/dispatch"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
	"github.com/hivegate/hivegate/server/transcode"
)

// jsonRPCService implements hivegate.v1.JsonRpcService: any JSON-RPC method,
// with params and result as google.protobuf.Value, through the same
// dispatcher (router, cache, coalescing, backend pool) as POST /.
type jsonRPCService struct {
	d     *dispatch.Dispatcher
	log   *slog.Logger
	hooks *dispatch.Hooks
}

// Call implements hivegatev1connect.JsonRpcServiceHandler.
func (s *jsonRPCService) Call(ctx context.Context, req *connect.Request[hivegatev1.CallRequest]) (*connect.Response[hivegatev1.CallResponse], error) {
	var params json.RawMessage
	if p := req.Msg.GetParams(); p != nil {
		b, err := transcode.Marshal(p)
		if err != nil {
			refuse(ctx, s.d, s.hooks, req.Msg.GetMethod(), jsonrpc.NewError(jsonrpc.KindInvalidParams, "", nil))
			return nil, invalidArgument("params: %v", err)
		}
		params = b
	}
	if req.Msg.GetMethod() == "" {
		refuse(ctx, s.d, s.hooks, "", jsonrpc.NewError(jsonrpc.KindInvalidRequest, "", nil))
		return nil, invalidArgument("method: must be set")
	}
	var call [1]dispatch.Call
	c := &call[0]
	if _, err := s.d.Router().ParseKey(&c.Call, nil, req.Msg.GetMethod(), params); err != nil {
		c.Call = router.Call{UpstreamMethod: req.Msg.GetMethod()}
		c.Invalid = dispatch.InvalidMethod(err)
	}
	var results [1]dispatch.Result
	s.d.Serve(ctx, s.hooks, call[:], results[:])
	res := &results[0]
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

// callResponseDesc is the descriptor JsonRpcService's decoded answers are
// kept under.
var callResponseDesc = (&hivegatev1.CallResponse{}).ProtoReflect().Descriptor()

// decode wraps the raw result in a CallResponse, reusing the one kept with
// the cache entry when there is one. The message is shared: read-only.
func (s *jsonRPCService) decode(res *dispatch.Result) (*hivegatev1.CallResponse, error) {
	if a := cachedForm(res, callResponseDesc, 0); a != nil {
		if m, ok := a.msg.(*hivegatev1.CallResponse); ok {
			return m, nil
		}
	}
	v := &structpb.Value{}
	if _, err := transcode.Unmarshal(res.Result, v); err != nil {
		s.log.Warn("result is not JSON", "key", res.Key, "error", err)
		return nil, fmt.Errorf("the backend's result is not valid JSON: %w", err)
	}
	m := &hivegatev1.CallResponse{Result: v}
	keep(res, &cachedMessage{desc: callResponseDesc, msg: m})
	return m, nil
}
