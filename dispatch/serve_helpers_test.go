package dispatch_test

import (
	"context"
	"encoding/json"

	"github.com/hivegate/hivegate/dispatch"
)

// serveOne serves one JSON-RPC call through the dispatcher's door, as the
// JSON-RPC front end does for a single request: parsed by the router (an
// invalid method answered invalid_request), no hooks.
func serveOne(d *dispatch.Dispatcher, ctx context.Context, method string, params json.RawMessage) dispatch.Result {
	return serve(d, ctx, false, method, params)
}

// serveFresh is serveOne for a call past the cache (dispatch.Call.Fresh).
func serveFresh(d *dispatch.Dispatcher, ctx context.Context, method string, params json.RawMessage) dispatch.Result {
	return serve(d, ctx, true, method, params)
}

func serve(d *dispatch.Dispatcher, ctx context.Context, fresh bool, method string, params json.RawMessage) dispatch.Result {
	calls := []dispatch.Call{{Fresh: fresh}}
	if _, err := d.Router().ParseKey(&calls[0].Call, nil, method, params); err != nil {
		calls[0].Invalid = dispatch.InvalidMethod(err)
	}
	results := make([]dispatch.Result, 1)
	d.Serve(ctx, nil, calls, results)
	return results[0]
}

// door serves calls one at a time through buffers it reuses, as the
// JSON-RPC front end's pooled exchanges do: the calls' keys view the
// reused key buffer. Not safe for concurrent use.
type door struct {
	d       *dispatch.Dispatcher
	keys    []byte
	calls   [1]dispatch.Call
	results [1]dispatch.Result
}

func (s *door) call(ctx context.Context, method string, params json.RawMessage) dispatch.Result {
	s.calls[0] = dispatch.Call{}
	keys, err := s.d.Router().ParseKey(&s.calls[0].Call, s.keys[:0], method, params)
	s.keys = keys[:0]
	if err != nil {
		s.calls[0].Invalid = dispatch.InvalidMethod(err)
	}
	s.d.Serve(ctx, nil, s.calls[:], s.results[:])
	return s.results[0]
}
