package stream

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"connectrpc.com/connect"

	streamv1 "github.com/hivegate/hivegate/gen/hive/stream/v1"
	"github.com/hivegate/hivegate/gen/hive/stream/v1/streamv1connect"
)

// CursorTrailer is the trailer (and WebSocket/SSE error member) that
// carries the cursor to resume from when a stream ends with an error.
const CursorTrailer = "Hive-Stream-Cursor"

// DefaultSendTimeout bounds the time one message may take to reach a
// client before its stream is cut.
const DefaultSendTimeout = 30 * time.Second

// Service serves a hub's streams to clients: Connect, gRPC and gRPC-Web
// (ConnectHandler), Server-Sent Events and WebSocket (Handler).
type Service struct {
	hub         *Hub
	sendTimeout time.Duration
	wsLimits    WSLimits
}

// ServiceOptions configure a Service.
type ServiceOptions struct {
	// SendTimeout bounds each message's write (DefaultSendTimeout when
	// <= 0).
	SendTimeout time.Duration
	// WS bounds each WebSocket connection.
	WS WSLimits
}

// NewService returns the front ends of h.
func NewService(h *Hub, opts ServiceOptions) *Service {
	if opts.SendTimeout <= 0 {
		opts.SendTimeout = DefaultSendTimeout
	}
	return &Service{hub: h, sendTimeout: opts.SendTimeout, wsLimits: opts.WS.withDefaults()}
}

// ServiceName is the Connect service's name.
const ServiceName = streamv1connect.StreamServiceName

// ConnectHandler returns the hive.stream.v1.StreamService handler (as the
// generated NewStreamServiceHandler) for server.Service.
func (s *Service) ConnectHandler(opts ...connect.HandlerOption) (string, http.Handler) {
	path, h := streamv1connect.NewStreamServiceHandler(connectImpl{s}, opts...)
	return path, longLived(h)
}

// rcKey is the context key of the stream's http.ResponseController.
type rcKey struct{}

// longLived lifts the server's whole-request read and write deadlines
// from a stream (each message gets its own, sendTimeout) and gives the
// handler its ResponseController.
func longLived(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Time{})
		_ = rc.SetWriteDeadline(time.Time{})
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), rcKey{}, rc)))
	})
}

// beforeSend gives the next message sendTimeout to be written.
func (s *Service) beforeSend(ctx context.Context) {
	if rc, ok := ctx.Value(rcKey{}).(*http.ResponseController); ok {
		_ = rc.SetWriteDeadline(time.Now().Add(s.sendTimeout))
	}
}

// connectImpl implements streamv1connect.StreamServiceHandler.
type connectImpl struct{ s *Service }

// startOf reads a request's from.
func startOf(f *streamv1.From) (Start, error) {
	switch v := f.GetFrom().(type) {
	case nil:
		return Start{Head: true}, nil
	case *streamv1.From_Head:
		return Start{Head: true}, nil
	case *streamv1.From_BlockNum:
		if v.BlockNum == 0 {
			return Start{}, errors.New("from.block_num must be at least 1")
		}
		return Start{Block: v.BlockNum}, nil
	case *streamv1.From_Cursor:
		c, err := DecodeCursor(v.Cursor)
		if err != nil {
			return Start{}, errors.New("from.cursor is not a cursor this gateway wrote")
		}
		return Start{Cursor: &c}, nil
	}
	return Start{}, errors.New("unknown from")
}

func modeOf(m streamv1.Mode) Mode {
	if m == streamv1.Mode_MODE_IRREVERSIBLE {
		return Irreversible
	}
	return Reversible
}

// endError is the Connect error a stream ends with, place its cursor.
func endError(ctx context.Context, err error, place Cursor, trailer http.Header) error {
	cur := ""
	if place.Num > 0 {
		cur = place.String()
		trailer.Set(CursorTrailer, cur)
	}
	switch {
	case ctx.Err() != nil:
		return connect.NewError(connect.CodeCanceled, errors.New("the stream ended"))
	case errors.Is(err, ErrLagged):
		return connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("the subscriber fell too far behind the chain; resume from cursor %q", cur))
	case errors.Is(err, ErrTooMany):
		return connect.NewError(connect.CodeResourceExhausted, errors.New("too many stream subscribers; retry later"))
	case errors.Is(err, ErrClosed):
		return connect.NewError(connect.CodeUnavailable, fmt.Errorf("the gateway is shutting down; resume from cursor %q on another replica", cur))
	case errors.Is(err, ErrFuture):
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	return connect.NewError(connect.CodeUnavailable, fmt.Errorf("the nodes did not answer; resume from cursor %q", cur))
}

// StreamBlocks implements hive.stream.v1.StreamService.StreamBlocks.
func (c connectImpl) StreamBlocks(ctx context.Context, req *connect.Request[streamv1.StreamBlocksRequest], out *connect.ServerStream[streamv1.StreamBlocksResponse]) error {
	start, err := startOf(req.Msg.GetFrom())
	if err != nil {
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	sub, err := c.s.hub.Subscribe(start, modeOf(req.Msg.GetMode()))
	if err != nil {
		return endError(ctx, err, Cursor{}, out.ResponseTrailer())
	}
	headersOnly := req.Msg.GetHeadersOnly()
	return streamConnect(ctx, c.s, sub, out, func(ev Event) *streamv1.StreamBlocksResponse {
		return protoBlock(ev, headersOnly)
	})
}

// StreamOperations implements hive.stream.v1.StreamService.StreamOperations.
func (c connectImpl) StreamOperations(ctx context.Context, req *connect.Request[streamv1.StreamOperationsRequest], out *connect.ServerStream[streamv1.StreamOperationsResponse]) error {
	start, err := startOf(req.Msg.GetFrom())
	if err != nil {
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	pf := req.Msg.GetFilter()
	f, ok := NewFilter(pf.GetTypes(), pf.GetAccounts(), pf.GetCustomJsonIds(), pf.GetVirtual())
	if !ok {
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("a filter list has more than %d entries", maxFilterEntries))
	}
	sub, err := c.s.hub.SubscribeOps(start, modeOf(req.Msg.GetMode()), f)
	if err != nil {
		return endError(ctx, err, Cursor{}, out.ResponseTrailer())
	}
	return streamConnect(ctx, c.s, sub, out, func(ev OpEvent) *streamv1.StreamOperationsResponse {
		if ev.Op != nil {
			return protoOp(*ev.Op, ev.LIB)
		}
		return protoOpFork(ev.Fork)
	})
}

// flushHeaders sends the response headers at once, so that the stream
// stops counting as a request waiting for its answer (the guard's
// max_in_flight) while it waits for the next block.
func (s *Service) flushHeaders(ctx context.Context) {
	if rc, ok := ctx.Value(rcKey{}).(*http.ResponseController); ok {
		s.beforeSend(ctx)
		_ = rc.Flush()
	}
}
