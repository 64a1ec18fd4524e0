package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
	"github.com/hivegate/hivegate/server/transcode"
)

// anyMessage carries a generated message through connect's generic handler.
// connect needs one static Go type per handler; anyMessage is that type for every
// typed RPC, and its ProtoReflect hands connect's codecs the generated
// message inside, so binary and JSON (de)serialisation take the generated
// fast paths. The request initializer puts the RPC's input type in it.
type anyMessage struct {
	proto.Message
	// cached is set when Message came from a cache entry: the codecs keep the
	// encoded bytes there (codec.go).
	cached *cachedMessage
}

// ProtoReflect returns the boxed message's reflection, making *anyMessage a
// proto.Message for connect's codecs.
func (b *anyMessage) ProtoReflect() protoreflect.Message { return b.Message.ProtoReflect() }

// cachedMessage is the decoded form of a cache entry's JSON result, kept
// with the entry (dispatch.Result.Forms) so that a hit is served without
// decoding. It is kept under its message type: one JSON result can be
// wanted as a typed response and as JsonRpcService's generic Value, and
// each is kept beside the other. msg is read-only.
type cachedMessage struct {
	desc protoreflect.MessageDescriptor
	msg  proto.Message
	// skip is the next_start skip the message was cut by (typed_page.go).
	skip uint64
	// encoded holds msg's wire encodings, made on first use (codec.go).
	// Like the message, they live as long as the entry and are charged to
	// cache_max_capacity with it (through grow).
	encoded encodedArray
	// grow charges n more bytes to the entry the message is kept with
	// (Forms.GrowDerived); false: keep nothing more. nil when the message
	// is no entry's (the call was not cached).
	grow func(n int) bool
}

// messageForm is the key a decoded message is kept under in its result's
// Forms: one per message type and next_start skip (the page a message is
// cut to depends on the request's skip, which its params do not carry).
type messageForm struct {
	desc protoreflect.MessageDescriptor
	skip uint64
}

// cachedForm returns the message of type desc cut by skip kept with res,
// nil when none is.
func cachedForm(res *dispatch.Result, desc protoreflect.MessageDescriptor, skip uint64) *cachedMessage {
	if res.Forms == nil {
		return nil
	}
	a, _ := res.Forms.Derived(messageForm{desc, skip}).(*cachedMessage)
	return a
}

// cachedMessageOverhead is what a cachedMessage costs beside its message:
// the struct itself and its slot among the entry's forms.
const cachedMessageOverhead = 96

// keep keeps a, made from res's result, with res's cache entry, charged to
// the cache budget with its message's estimated heap size (typed_size.go);
// a message the budget has no room for is served and not kept. A result
// with no entry keeps nothing.
func keep(res *dispatch.Result, a *cachedMessage) {
	forms := res.Forms
	if forms == nil {
		return
	}
	k := messageForm{a.desc, a.skip}
	a.grow = func(n int) bool { return forms.GrowDerived(k, a, n) } // set before a is shared
	forms.SetDerived(k, a, cachedMessageOverhead+heapSize(a.msg.ProtoReflect()))
}

// typedServer serves the typed RPCs through the dispatcher.
type typedServer struct {
	d     *dispatch.Dispatcher
	log   *slog.Logger
	hooks *dispatch.Hooks
	drift *driftLog
}

// handler returns the connect handler of one typed RPC: Connect (JSON and
// binary), gRPC and gRPC-Web, all through serve.
func (s *typedServer) handler(tm *typedMethod, opts ...connect.HandlerOption) *connect.Handler {
	input := tm.Request
	return connect.NewUnaryHandler(tm.Procedure,
		func(ctx context.Context, r *connect.Request[anyMessage]) (*connect.Response[anyMessage], error) {
			return s.serve(ctx, tm, r)
		},
		connect.WithSchema(tm.Desc),
		connect.WithRequestInitializer(func(_ connect.Spec, msg any) error {
			b, ok := msg.(*anyMessage)
			if !ok {
				return fmt.Errorf("request initializer: unexpected %T", msg)
			}
			b.Message = input.New().Interface()
			return nil
		}),
		connect.WithIdempotency(idempotency(tm.Desc)),
		connect.WithHandlerOptions(opts...),
	)
}

// serve validates the request, builds its router call, serves it through
// the dispatcher (token policy, cache, coalescing, backend pool: the path
// JSON-RPC clients take) and answers the typed response.
func (s *typedServer) serve(ctx context.Context, tm *typedMethod, r *connect.Request[anyMessage]) (*connect.Response[anyMessage], error) {
	params, order, err := tm.prepare(r.Msg.ProtoReflect())
	if err != nil {
		refuse(ctx, s.d, s.hooks, tm.JSONRPC, jsonrpc.NewError(jsonrpc.KindInvalidParams, "", nil))
		return nil, err
	}
	var call [1]dispatch.Call
	if _, err := s.d.Router().ParseKey(&call[0].Call, nil, tm.JSONRPC, params); err != nil {
		// The method comes from the schema and the params from the codec:
		// the router rejecting them is a bug.
		s.log.Error("typed call rejected by the router", "procedure", tm.Procedure, "error", err)
		return nil, connect.NewError(connect.CodeInternal, errors.New("hivegate could not route "+tm.JSONRPC))
	}
	var results [1]dispatch.Result
	s.d.Serve(ctx, s.hooks, call[:], results[:])
	res := &results[0]
	if res.Err != nil {
		return nil, callError(ctx, res)
	}
	cm, err := s.decode(tm, res, order, r.Msg.ProtoReflect())
	if err != nil {
		ce := connect.NewError(connect.CodeInternal, err)
		setCallHeaders(ce.Meta(), res)
		return nil, ce
	}
	out := connect.NewResponse(&anyMessage{Message: cm.msg, cached: cm})
	setCallHeaders(out.Header(), res)
	return out, nil
}

// refuse tells the hooks' observer of a call the front end refused itself
// (a request message that fails validation): it goes through the
// dispatcher's one door like any other call, answered as it is, with the
// Observe hook only (such a request is no call a quota counts).
func refuse(ctx context.Context, d *dispatch.Dispatcher, h *dispatch.Hooks, method string, e *jsonrpc.Error) {
	if h == nil || h.Observe == nil {
		return
	}
	call := [1]dispatch.Call{{Call: router.Call{UpstreamMethod: method}, Invalid: e}}
	var res [1]dispatch.Result
	d.Serve(ctx, &dispatch.Hooks{Observe: h.Observe}, call[:], res[:])
}

// decode returns the typed response of a result: from the cache entry when
// an earlier call decoded it, otherwise decoded now (with next_start, which
// may compare with the request req) and attached to the entry. The message
// is shared and must not be modified: calls sharing an entry sent the same
// params. Without a cache entry the cachedMessage is this call's alone.
func (s *typedServer) decode(tm *typedMethod, res *dispatch.Result, order protoreflect.EnumNumber, req protoreflect.Message) (*cachedMessage, error) {
	desc := tm.Response.Descriptor()
	// The page is cut by the request's skip, which the params do not carry:
	// a decoded message is kept per skip.
	pg, _ := tm.page(req) // validated by prepare
	if a := cachedForm(res, desc, pg.skip); a != nil {
		return a, nil
	}
	m := tm.Response.New()
	unknown, err := transcode.Unmarshal(res.Result, m.Interface())
	if err != nil {
		s.log.Warn("typed result does not fit its message", "procedure", tm.Procedure, "key", res.Key, "error", err)
		return nil, fmt.Errorf("the backend's result for %s does not fit %s: %w (JsonRpcService.Call returns it unchanged)",
			tm.JSONRPC, desc.FullName(), err)
	}
	if len(unknown) > 0 && s.drift != nil {
		s.drift.unknown(tm.JSONRPC, tm.Procedure, unknown)
	}
	if tm.next != nil {
		tm.finishPage(m, pg, order, req)
	}
	a := &cachedMessage{desc: desc, msg: m.Interface(), skip: pg.skip}
	keep(res, a)
	return a, nil
}

// setCallHeaders tells the client how the call was served, as the JSON-RPC
// front end does for single requests.
func setCallHeaders(h http.Header, res *dispatch.Result) {
	if res.Cache != "" {
		h.Set(jsonrpc.HeaderCache, string(res.Cache))
	}
	if res.Route != "" {
		h.Set(jsonrpc.HeaderRoute, res.Route)
	}
}

// idempotency is the connect idempotency level of an RPC: typed RPCs are
// declared NO_SIDE_EFFECTS, which lets Connect clients use HTTP GET.
func idempotency(md protoreflect.MethodDescriptor) connect.IdempotencyLevel {
	opts, ok := md.Options().(*descriptorpb.MethodOptions)
	if !ok || opts == nil {
		return connect.IdempotencyUnknown
	}
	switch opts.GetIdempotencyLevel() {
	case descriptorpb.MethodOptions_NO_SIDE_EFFECTS:
		return connect.IdempotencyNoSideEffects
	case descriptorpb.MethodOptions_IDEMPOTENT:
		return connect.IdempotencyIdempotent
	}
	return connect.IdempotencyUnknown
}
