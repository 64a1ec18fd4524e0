package stream

import (
	"context"

	"connectrpc.com/connect"
)

// pump is the loop of every subscription's front end (Connect, WebSocket):
// the subscription's next event, then send, until the subscription ends
// (pump returns what ended makes of its error: the end message, the
// cursor) or a send fails (the client is gone: that error).
func pump[E any](ctx context.Context, next func(context.Context) (E, error), send func(E) error, ended func(error) error) error {
	for {
		ev, err := next(ctx)
		if err != nil {
			return ended(err)
		}
		if err := send(ev); err != nil {
			return err
		}
	}
}

// subscription is a Sub or an OpSub, read by streamConnect.
type subscription[E any] interface {
	Next(ctx context.Context) (E, error)
	Place() Cursor
	Close()
}

// streamConnect serves sub on a Connect server stream, each event as
// msg makes it, until the subscription ends (with its cursor in the
// trailer) or the client goes.
func streamConnect[E, M any](ctx context.Context, s *Service, sub subscription[E], out *connect.ServerStream[M], msg func(E) *M) error {
	defer sub.Close()
	s.flushHeaders(ctx)
	return pump(ctx, sub.Next, func(ev E) error {
		s.beforeSend(ctx)
		return out.Send(msg(ev))
	}, func(err error) error {
		return endError(ctx, err, sub.Place(), out.ResponseTrailer())
	})
}
