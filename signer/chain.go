package signer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/router"
)

// The chain as the signer and the OAuth service read it: every call goes
// through hivegate's own dispatcher — router, cache, backend pool,
// limits.blacklist_accounts — like any client's. Account reads may be
// served from the cache for the route's TTL; the node's own check of every
// broadcast is what finally counts.

// Caller is the part of the dispatcher the signer and the OAuth service
// use: its router and its one door, Serve, with no hooks (their own reads
// are not a client's calls). A call goes through the cache, or past it
// (fresh: for the keys a login is checked against and the authority a
// broadcast needs, which must be the chain's current ones).
type Caller interface {
	Router() *router.Router
	Serve(ctx context.Context, h *dispatch.Hooks, calls []dispatch.Call, results []dispatch.Result)
}

// serve makes one call through c, fresh or through the cache.
func serve(ctx context.Context, c Caller, fresh bool, method string, params json.RawMessage) dispatch.Result {
	call := []dispatch.Call{{Fresh: fresh}}
	if _, err := c.Router().ParseKey(&call[0].Call, nil, method, params); err != nil {
		call[0].Invalid = dispatch.InvalidMethod(err)
	}
	res := make([]dispatch.Result, 1)
	c.Serve(ctx, nil, call, res)
	return res[0]
}

// Account is the part of an account the signer and the login read.
type Account struct {
	Name                string    `json:"name"`
	Owner               Authority `json:"owner"`
	Active              Authority `json:"active"`
	Posting             Authority `json:"posting"`
	JSONMetadata        string    `json:"json_metadata"`
	PostingJSONMetadata string    `json:"posting_json_metadata"`
}

// Authority is an account's authority as the APIs print it: [name, weight]
// pairs.
type Authority struct {
	WeightThreshold uint32               `json:"weight_threshold"`
	AccountAuths    [][2]json.RawMessage `json:"account_auths"`
	KeyAuths        [][2]json.RawMessage `json:"key_auths"`
}

// keyWeight is the summed weight of the keys among an authority's
// key_auths.
func (au Authority) keyWeight(keys []hivetx.PublicKey) uint64 {
	var total uint64
	for _, p := range au.KeyAuths {
		var name string
		var w uint32
		if json.Unmarshal(p[0], &name) != nil || json.Unmarshal(p[1], &w) != nil {
			continue
		}
		for _, k := range keys {
			if k.String() == name {
				total += uint64(w)
				break
			}
		}
	}
	return total
}

// metBy reports whether keys meet the authority's weight threshold by
// its key_auths alone. A threshold of 0 is met by nothing.
func (au Authority) metBy(keys []hivetx.PublicKey) bool {
	return au.WeightThreshold > 0 && au.keyWeight(keys) >= uint64(au.WeightThreshold)
}

// names returns the first element of each pair.
func pairNames(pairs [][2]json.RawMessage) []string {
	out := make([]string, 0, len(pairs))
	for _, p := range pairs {
		var s string
		if json.Unmarshal(p[0], &s) == nil {
			out = append(out, s)
		}
	}
	return out
}

// HasKey reports whether k is one of the account's owner, active or
// posting keys (HiveSigner accepts a login signed by any of them).
func (a *Account) HasKey(k hivetx.PublicKey) bool {
	want := k.String()
	for _, au := range []Authority{a.Posting, a.Active, a.Owner} {
		for _, n := range pairNames(au.KeyAuths) {
			if n == want {
				return true
			}
		}
	}
	return false
}

// Satisfies reports whether keys meet the account's authority of role
// ("posting" or "active") or of a higher one, each authority on its own,
// as hived's verify_authority does (active stands in for posting, owner
// for either). Only key_auths count.
func (a *Account) Satisfies(role string, keys []hivetx.PublicKey) bool {
	auths := []Authority{a.Posting, a.Active, a.Owner}
	if role == "active" {
		auths = auths[1:]
	}
	return slices.ContainsFunc(auths, func(au Authority) bool { return au.metBy(keys) })
}

// Authorizes reports whether the account's posting authority lists name in
// account_auths.
func (a *Account) Authorizes(name string) bool {
	for _, n := range pairNames(a.Posting.AccountAuths) {
		if n == name {
			return true
		}
	}
	return false
}

// chainError is a failed call: the node's or the gateway's error, with a
// message fit for a client (a node error's first stack entry, formatted as
// HiveSigner formats it; no backend address ever).
type chainError struct {
	rpc *jsonrpc.Error
	msg string
}

func (e *chainError) Error() string { return e.msg }

// gateway reports whether hivegate itself refused or could not complete
// the call (timeout, backend down, blacklisted account), not the node.
func (e *chainError) gateway() bool { return e.rpc.Kind != "" }

func newChainError(e *jsonrpc.Error) *chainError {
	return &chainError{rpc: e, msg: nodeMessage(e)}
}

// nodeMessage is HiveSigner's getErrorMessage: the format of the error's
// first stack entry with its ${data} filled in, or the message.
func nodeMessage(e *jsonrpc.Error) string {
	var d struct {
		Stack []struct {
			Format string                     `json:"format"`
			Data   map[string]json.RawMessage `json:"data"`
		} `json:"stack"`
	}
	if e.Kind == "" && json.Unmarshal(e.Data, &d) == nil && len(d.Stack) > 0 && d.Stack[0].Format != "" {
		msg := d.Stack[0].Format
		for k, v := range d.Stack[0].Data {
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			msg = strings.ReplaceAll(msg, "${"+k+"}", s)
		}
		return msg
	}
	return e.Message
}

// call makes one call (fresh: past the cache) and decodes its result into out.
func call(ctx context.Context, c Caller, fresh bool, method string, params any, out any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	res := serve(ctx, c, fresh, method, p)
	if res.Err != nil {
		return newChainError(res.Err)
	}
	if out == nil {
		return nil
	}
	if json.Unmarshal(res.Result, out) != nil {
		// The text reaches clients (see ReadAccount): it names the method,
		// never the decoder's Go error.
		return fmt.Errorf("the node's answer to %s is not shaped as hived answers it", method)
	}
	return nil
}

// ErrNoAccount is an account the chain does not know.
var ErrNoAccount = errors.New("no such account")

// ReadAccount reads one account with condenser_api.get_accounts, through
// the cache or (fresh) past it: the account and its JSON as the node
// printed it. A failed call's error text is fit for a client.
func ReadAccount(ctx context.Context, c Caller, fresh bool, name string) (*Account, json.RawMessage, error) {
	var raw []json.RawMessage
	if err := call(ctx, c, fresh, "condenser_api.get_accounts", []any{[]string{name}}, &raw); err != nil {
		return nil, nil, err
	}
	if len(raw) == 0 {
		return nil, nil, ErrNoAccount
	}
	var a Account
	if err := json.Unmarshal(raw[0], &a); err != nil || a.Name != name {
		return nil, nil, ErrNoAccount
	}
	return &a, raw[0], nil
}

// head is what a transaction needs of the chain's head: the reference
// block and the time expiration counts from.
type head struct {
	num    uint16
	prefix uint32
	time   time.Time
}

// readHead reads the head block's id and time from
// get_dynamic_global_properties (through the cache for its route's TTL:
// any block of the last 65,536 is a valid reference).
func readHead(ctx context.Context, c Caller) (head, error) {
	var d struct {
		HeadBlockID string `json:"head_block_id"`
		Time        string `json:"time"`
	}
	if err := call(ctx, c, false, "database_api.get_dynamic_global_properties", map[string]any{}, &d); err != nil {
		return head{}, err
	}
	num, prefix, err := hivetx.RefBlock(d.HeadBlockID)
	if err != nil {
		return head{}, fmt.Errorf("get_dynamic_global_properties: %w", err)
	}
	t, err := time.Parse("2006-01-02T15:04:05", d.Time)
	if err != nil {
		return head{}, fmt.Errorf("get_dynamic_global_properties: time %q", d.Time)
	}
	return head{num: num, prefix: prefix, time: t}, nil
}
