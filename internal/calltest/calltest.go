// Package calltest provides an in-memory jsonrpc.Caller for the tests of
// the HTTP front door and the JSON-RPC handler, which need a caller that
// answers without a dispatcher, a cache or a node. Nothing here is used by
// the hivegate binary.
package calltest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/hivegate/hivegate/jsonrpc"
)

// Echo is an in-memory jsonrpc.Caller: the result of a call is
// {"m":method,"p":params}; the method "fail" answers a gateway error. With
// Hold set, each call marks Entered done and waits until Hold is closed or
// its context ends.
type Echo struct {
	Hold    chan struct{} // nil: answer at once
	Entered sync.WaitGroup
}

// CallJSONRPC implements jsonrpc.Caller.
func (c *Echo) CallJSONRPC(ctx context.Context, method string, params json.RawMessage) jsonrpc.Answer {
	if c.Hold != nil {
		c.Entered.Done()
		select {
		case <-c.Hold:
		case <-ctx.Done():
		}
	}
	if method == "fail" {
		return jsonrpc.Answer{Err: jsonrpc.NewError(jsonrpc.KindUpstreamUnavailable, "backend down", nil)}
	}
	m, _ := json.Marshal(method)
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	return jsonrpc.Answer{Result: json.RawMessage(`{"m":` + string(m) + `,"p":` + string(params) + `}`)}
}

// Healthy implements jsonrpc.Caller.
func (c *Echo) Healthy() bool { return true }
