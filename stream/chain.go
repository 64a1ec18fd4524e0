package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/hivegate/hivegate/dispatch"
)

// Chain is where the follower and catch-up read the chain.
type Chain interface {
	// Head returns the head block number and the last irreversible block.
	Head(ctx context.Context) (head, lib uint64, err error)
	// Block returns block num, nil and no error when the node does not
	// have it. fresh asks for the nodes' answer whatever a cache holds
	// (reversible blocks); otherwise a cached answer serves (history).
	Block(ctx context.Context, num uint64, fresh bool) (*Block, error)
	// VirtualOps returns the virtual operations of block num.
	VirtualOps(ctx context.Context, num uint64) ([]Op, error)
}

// LIBKnower is a Chain that knows the last irreversible block without
// asking the nodes: DispatchChain with the gateway's LIB tracker, which
// polls them for the cache with streams on or off. The follower of such a
// chain reads the head (Chain.Head) only to start and to check where it
// is after a failure or a long catch-up; in the steady state it asks for
// the block after its tip and nothing else, one upstream call per block.
// The follower of a chain that does not implement it reads the head every
// round, as the LIB comes with it.
type LIBKnower interface {
	// KnownLIB returns the last irreversible block; ok is false when
	// there is no tracker (then Head's counts). A LIB read late is lower,
	// never higher, than the chain's: it delays irreversible blocks, it
	// never makes a reversible one count as irreversible.
	KnownLIB() (lib uint64, ok bool)
}

// DispatchChain reads the chain through a gateway's dispatcher: the
// gateway's router, cache and backends, like any client call.
type DispatchChain struct {
	// Dispatcher returns the current dispatcher (it changes on reload).
	Dispatcher func() *dispatch.Dispatcher
	// LIB, when set and ok, is the gateway's last irreversible block (the
	// LIB tracker: what the nodes agree on); otherwise the head call's own
	// last_irreversible_block_num counts.
	LIB func() (lib uint64, ok bool)
	// Hooks, when set, returns the dispatcher hooks of the calls a client
	// makes through a stream (Broadcast): the token policy
	// (auth.require_token) and the quotas, which find the request's token
	// and subject in its context as they do for a typed call. The
	// follower's and catch-up's own reads take none.
	Hooks func() *dispatch.Hooks
}

// errUpstream is what a failed chain read becomes: its detail is logged,
// never sent to a client.
var errUpstream = errors.New("the nodes did not answer")

func (c DispatchChain) call(ctx context.Context, fresh bool, method string, params string) (json.RawMessage, error) {
	res := c.serve(ctx, fresh, method, []byte(params))
	if res.Err != nil {
		return nil, fmt.Errorf("%w: %s: %s", errUpstream, method, res.Err.Message)
	}
	return res.Result, nil
}

// Head implements Chain with a fresh database_api.get_dynamic_global_properties.
func (c DispatchChain) Head(ctx context.Context) (head, lib uint64, err error) {
	r, err := c.call(ctx, true, "database_api.get_dynamic_global_properties", "{}")
	if err != nil {
		return 0, 0, err
	}
	var p struct {
		Head uint64 `json:"head_block_number"`
		LIB  uint64 `json:"last_irreversible_block_num"`
	}
	if err := json.Unmarshal(r, &p); err != nil {
		return 0, 0, fmt.Errorf("%w: head: %w", errUpstream, err)
	}
	if c.LIB != nil {
		if lib, ok := c.LIB(); ok {
			p.LIB = min(lib, p.Head)
		}
	}
	return p.Head, p.LIB, nil
}

// KnownLIB implements LIBKnower with the LIB tracker (DispatchChain.LIB).
func (c DispatchChain) KnownLIB() (uint64, bool) {
	if c.LIB == nil {
		return 0, false
	}
	return c.LIB()
}

// Block implements Chain with block_api.get_block.
func (c DispatchChain) Block(ctx context.Context, num uint64, fresh bool) (*Block, error) {
	params := `{"block_num":` + strconv.FormatUint(num, 10) + `}`
	r, err := c.call(ctx, fresh, "block_api.get_block", params)
	if err != nil {
		return nil, err
	}
	b, err := ParseBlock(num, r)
	if errors.Is(err, errNoBlock) {
		if !fresh {
			// A cached answer from before the block existed: ask the nodes.
			return c.Block(ctx, num, true)
		}
		return nil, nil
	}
	return b, err
}

// VirtualOps implements Chain with account_history_api.get_ops_in_block.
func (c DispatchChain) VirtualOps(ctx context.Context, num uint64) ([]Op, error) {
	params := `{"block_num":` + strconv.FormatUint(num, 10) + `,"only_virtual":true}`
	r, err := c.call(ctx, false, "account_history_api.get_ops_in_block", params)
	if err != nil {
		return nil, err
	}
	return parseVirtualOps(num, r)
}

// serve makes one call through the dispatcher's one door, with no hooks:
// the follower's reads and broadcasts are not a client's calls. The
// result's buffer is never released to the backend's pool (no Release), so
// it may be kept.
func (c DispatchChain) serve(ctx context.Context, fresh bool, method string, params []byte) dispatch.Result {
	return c.serveCall(ctx, nil, dispatch.Call{Fresh: fresh}, method, params)
}

// serveCall is serve with the call's flags (Fresh, AllNodes) in call and
// the hooks h (nil: none).
func (c DispatchChain) serveCall(ctx context.Context, h *dispatch.Hooks, call dispatch.Call, method string, params []byte) dispatch.Result {
	d := c.Dispatcher()
	calls := []dispatch.Call{call}
	if _, err := d.Router().ParseKey(&calls[0].Call, nil, method, json.RawMessage(params)); err != nil {
		calls[0].Invalid = dispatch.InvalidMethod(err)
	}
	results := make([]dispatch.Result, 1)
	d.Serve(ctx, h, calls, results)
	return results[0]
}
