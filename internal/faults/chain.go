package faults

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// BlockInterval is Hive's block interval.
const BlockInterval = 3 * time.Second

// Chain is a deterministic Hive chain on wall time: block n was produced
// at Genesis + n×3 s, its id is the block number in hex followed by a hash
// of the number, and its last irreversible block is LIBDepth blocks below
// the head. Every honest ChainNode of one Chain tells the same story, so a
// test can check any answer the gateway returns against Chain alone.
type Chain struct {
	// Genesis is the time of block 0.
	Genesis time.Time
	// LIBDepth is the head's distance to the last irreversible block.
	LIBDepth uint64
}

// NewChain returns a chain whose head is head now.
func NewChain(head uint64) Chain {
	return Chain{Genesis: time.Now().Add(-time.Duration(head) * BlockInterval), LIBDepth: 20}
}

// Head is the head block at t.
func (c Chain) Head(t time.Time) uint64 {
	if t.Before(c.Genesis) {
		return 0
	}
	return uint64(t.Sub(c.Genesis) / BlockInterval)
}

// BlockTime is the time block n was produced.
func (c Chain) BlockTime(n uint64) time.Time {
	return c.Genesis.Add(time.Duration(n) * BlockInterval).UTC()
}

// BlockID is block n's id: 8 hex digits of n, then 32 of a hash of n.
func (c Chain) BlockID(n uint64) string {
	sum := sha256.Sum256([]byte(strconv.FormatUint(n, 10)))
	return fmt.Sprintf("%08x", n) + hex.EncodeToString(sum[:16])
}

// ForgedID is an id a liar gives block n: the right number, another hash.
func (c Chain) ForgedID(n uint64) string {
	sum := sha256.Sum256([]byte("forged" + strconv.FormatUint(n, 10)))
	return fmt.Sprintf("%08x", n) + hex.EncodeToString(sum[:16])
}

// hiveTime formats t as hived does.
func hiveTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }

// Block is block n as block_api.get_block's "block" member and
// condenser_api.get_block's result.
func (c Chain) Block(n uint64) json.RawMessage {
	return c.block(n, c.BlockID(n))
}

func (c Chain) block(n uint64, id string) json.RawMessage {
	prev := "0000000000000000000000000000000000000000"
	if n > 0 {
		prev = c.BlockID(n - 1)
	}
	return fmt.Appendf(nil, `{"previous":%q,"timestamp":%q,"witness":"initminer","transaction_merkle_root":"0000000000000000000000000000000000000000","extensions":[],"witness_signature":"","transactions":[],"block_id":%q,"signing_key":"STM6LLegbAgLAy28EHrffBVuANFWcFgmqRMW13wBmTExqFE9SCkg4","transaction_ids":[]}`,
		prev, hiveTime(c.BlockTime(n)), id)
}

// Props is what a node says of the chain's state in a
// get_dynamic_global_properties answer.
type Props struct {
	Head uint64
	LIB  uint64
	Time time.Time
}

// Props is the chain's state at t.
func (c Chain) Props(t time.Time) Props {
	h := c.Head(t)
	lib := uint64(0)
	if h > c.LIBDepth {
		lib = h - c.LIBDepth
	}
	return Props{Head: h, LIB: lib, Time: c.BlockTime(h)}
}

// json renders p as a database_api.get_dynamic_global_properties result.
func (p Props) json(c Chain) json.RawMessage {
	return fmt.Appendf(nil, `{"id":0,"head_block_number":%d,"head_block_id":%q,"time":%q,"current_witness":"initminer","last_irreversible_block_num":%d}`,
		p.Head, c.BlockID(p.Head), hiveTime(p.Time), p.LIB)
}

// ChainOptions tune a ChainNode.
type ChainOptions struct {
	// Lie, when set, changes what the node says of the chain's state: a
	// node that claims a head far ahead, a LIB above its head, a block time
	// in the future. A lying node also forges every block it serves.
	Lie func(Props) Props
	// WebSocket serves JSON-RPC over WebSocket (ws://) instead of HTTP.
	WebSocket bool
	// Strays makes a WebSocket node send, after each answer, unsolicited
	// answers with forged results for the ids a gateway with sequential
	// ids would use next, and for a few others.
	Strays bool
}

// ChainNode is a fake Hive node on 127.0.0.1 that serves a Chain:
// get_dynamic_global_properties (database_api and condenser_api),
// block_api.get_block and condenser_api.get_block, hive.db_head_state and
// jsonrpc.get_methods; any other method is answered with Echo. While
// Failing is set it resets every connection after reading the request.
type ChainNode struct {
	URL   string
	chain Chain
	opts  ChainOptions
	hs    *http.Server

	failing atomic.Bool
	calls   atomic.Int64
	strays  atomic.Int64
	wg      sync.WaitGroup
}

// NewChainNode starts a node of chain c.
func NewChainNode(c Chain, opts ChainOptions) (*ChainNode, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faults: listen: %w", err)
	}
	n := &ChainNode{chain: c, opts: opts}
	scheme := "http://"
	h := http.HandlerFunc(n.handleHTTP)
	if opts.WebSocket {
		scheme = "ws://"
		h = n.handleWS
	}
	n.URL = scheme + ln.Addr().String() + "/"
	n.hs = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = n.hs.Serve(ln) }()
	return n, nil
}

// SetFailing makes the node reset connections (true) or answer (false).
func (n *ChainNode) SetFailing(f bool) { n.failing.Store(f) }

// Calls is the number of JSON-RPC calls the node received.
func (n *ChainNode) Calls() int64 { return n.calls.Load() }

// Strays is the number of unsolicited answers the node sent.
func (n *ChainNode) Strays() int64 { return n.strays.Load() }

// Close stops the node and its connections.
func (n *ChainNode) Close() {
	_ = n.hs.Close()
	n.wg.Wait()
}

// Answer is the node's result for one call, as JSON.
func (n *ChainNode) Answer(method string, params json.RawMessage) json.RawMessage {
	now := time.Now()
	truth := n.chain.Props(now)
	props := truth
	if n.opts.Lie != nil {
		props = n.opts.Lie(truth)
	}
	idOf := n.chain.BlockID
	if n.opts.Lie != nil {
		idOf = n.chain.ForgedID
	}
	switch method {
	case "database_api.get_dynamic_global_properties", "condenser_api.get_dynamic_global_properties":
		return props.json(n.chain)
	case "hive.db_head_state":
		return fmt.Appendf(nil, `{"db_head_block":%d,"db_head_time":%q,"db_head_age":%d}`,
			props.Head, hiveTime(props.Time), int(now.Sub(props.Time).Seconds()))
	case "jsonrpc.get_methods":
		return json.RawMessage(`["block_api.get_block","condenser_api.get_block","database_api.get_dynamic_global_properties"]`)
	case "block_api.get_block":
		var p struct {
			BlockNum uint64 `json:"block_num"`
		}
		if json.Unmarshal(params, &p) != nil || p.BlockNum == 0 || p.BlockNum > props.Head {
			return json.RawMessage(`{}`)
		}
		return append(append([]byte(`{"block":`), n.chain.block(p.BlockNum, idOf(p.BlockNum))...), '}')
	case "condenser_api.get_block":
		var p []uint64
		if json.Unmarshal(params, &p) != nil || len(p) != 1 || p[0] == 0 || p[0] > props.Head {
			return json.RawMessage(`null`)
		}
		return n.chain.block(p[0], idOf(p[0]))
	}
	if n.opts.Lie != nil {
		return Echo("forged."+method, params)
	}
	return Echo(method, params)
}

// rpc is one JSON-RPC request as the node reads it.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// reply renders the answer to one request.
func (n *ChainNode) reply(r rpc) []byte {
	n.calls.Add(1)
	b := append([]byte(`{"jsonrpc":"2.0","id":`), r.ID...)
	b = append(b, `,"result":`...)
	b = append(b, n.Answer(r.Method, r.Params)...)
	return append(b, '}')
}

// serveBody answers a single request or a batch.
func (n *ChainNode) serveBody(body []byte) ([]byte, bool) {
	if len(body) > 0 && body[0] == '[' {
		var reqs []rpc
		if json.Unmarshal(body, &reqs) != nil || len(reqs) == 0 {
			return nil, false
		}
		out := []byte{'['}
		for i, r := range reqs {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, n.reply(r)...)
		}
		return append(out, ']'), true
	}
	var r rpc
	if json.Unmarshal(body, &r) != nil || len(r.ID) == 0 {
		return nil, false
	}
	return n.reply(r), true
}

func (n *ChainNode) handleHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	if n.failing.Load() {
		reset(w, nil)
		return
	}
	out, ok := n.serveBody(body)
	if !ok {
		http.Error(w, "not a JSON-RPC request", http.StatusBadRequest)
		return
	}
	writeJSON(w, out)
}

func (n *ChainNode) handleWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	c.SetReadLimit(16 << 20)
	n.wg.Add(1)
	defer n.wg.Done()
	defer func() { _ = c.CloseNow() }()
	ctx := r.Context()
	var mu sync.Mutex // one writer at a time
	write := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return c.Write(wctx, websocket.MessageText, b)
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if n.failing.Load() {
			return
		}
		out, ok := n.serveBody(msg)
		if !ok {
			continue
		}
		if err := write(out); err != nil {
			return
		}
		if n.opts.Strays {
			n.sendStrays(msg, write)
		}
	}
}

// sendStrays sends forged answers for the ids that follow the numeric id
// of msg, and for small ids, as a node that predicts a gateway's ids would.
func (n *ChainNode) sendStrays(msg []byte, write func([]byte) error) {
	var r rpc
	if json.Unmarshal(msg, &r) != nil {
		return
	}
	base, err := strconv.ParseUint(string(r.ID), 10, 64)
	if err != nil {
		base = 0
	}
	for _, id := range []uint64{base + 1, base + 2, base + 3, 1, 2, 3} {
		forged := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"forged":true,"previous":"ffffffff","block_id":"ffffffff"}}`, id)
		if write(forged) != nil {
			return
		}
		n.strays.Add(1)
	}
}
