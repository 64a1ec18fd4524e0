// Package hivesim provides hivegate's built-in simulated Hive API node and a replay
// backend for recorded responses.
//
// Node answers the JSON-RPC methods of hived, hivemind and HAfAH from a deterministic
// synthetic chain generated from a seed: the same Options (and the same start time of
// the clock) give byte-identical responses. The chain runs on the clock's time: the
// head block is dated when the node starts, and it advances by one every BlockInterval
// of the injected clock, so tests can move time and watch irreversibility follow, and
// transactions whose expiration is set from the wall clock are accepted. Replay answers
// from recorded .jsonl cases.
//
// It is product code, not a test fake: `hivegate demo` ships it as the node behind the
// gateway, and the benchmarks and tests use the same node. It sits beside the gateway's
// layers, importing only hivetx (for real keys and signatures), and no hivegate package
// imports it except cmd/hivegate, bench and tests.
package hivesim

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"
)

// chainBlockInterval is hived's HIVE_BLOCK_INTERVAL, used for block timestamps.
const chainBlockInterval = 3 * time.Second

// Defaults for Options.
const (
	DefaultAccounts        = 200
	DefaultBlockInterval   = 3 * time.Second
	DefaultIrreversibleLag = 20
	DefaultInitialHead     = 1_000_000
)

// Options configures a simulated node. The zero value is usable: every field has a default.
type Options struct {
	// Seed selects the generated chain; equal seeds give identical data.
	Seed int64
	// Accounts is the number of generated accounts (default 200, minimum 20).
	Accounts int
	// BlockInterval is the wall-clock time per head block advance (default 3s).
	BlockInterval time.Duration
	// IrreversibleLag is head - last_irreversible_block_num (0 selects the default, 20).
	IrreversibleLag uint32
	// InitialHead is the head block number when the node starts (default 1,000,000).
	// All generated history lies in blocks 1..InitialHead; later blocks are empty.
	InitialHead uint32
	// Now is the clock (default time.Now). New reads it as the start time: the
	// initial head block is dated then (to the second), block n 3s·n after the
	// genesis InitialHead blocks earlier, so the chain runs on the clock's time.
	// Every call reads it again to compute the head block.
	Now func() time.Time
	// AppAccounts are app accounts added at genesis, each linked to its
	// broadcaster (demo_accounts.go); none by default.
	AppAccounts []AppAccount
}

// withDefaults fills unset options.
func (o Options) withDefaults() Options {
	if o.Accounts == 0 {
		o.Accounts = DefaultAccounts
	}
	if o.Accounts < 20 {
		o.Accounts = 20
	}
	if o.BlockInterval <= 0 {
		o.BlockInterval = DefaultBlockInterval
	}
	if o.IrreversibleLag == 0 {
		o.IrreversibleLag = DefaultIrreversibleLag
	}
	if o.InitialHead == 0 {
		o.InitialHead = DefaultInitialHead
	}
	if minHead := uint32(o.Accounts*50 + 10_000); o.InitialHead < minHead {
		o.InitialHead = minHead
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Node is a simulated Hive API node. It implements http.Handler for JSON-RPC 2.0 on
// POST / and is safe for concurrent use.
type Node struct {
	opts    Options
	ch      *chain
	start   time.Time
	methods registry
	apis    map[string]bool

	// state guards the chain against the broadcasts that change it
	// (apply.go): reads share it, a broadcast holds it alone.
	state  sync.RWMutex
	ledger ledger

	mu         sync.Mutex
	calls      map[string]int
	broadcasts []json.RawMessage
}

// New generates the chain for opts and returns a node whose head is opts.InitialHead at
// the current time of opts.Now.
func New(opts Options) *Node {
	opts = opts.withDefaults()
	n := &Node{
		opts:  opts,
		start: opts.Now(),
		calls: make(map[string]int),
	}
	n.ch = generate(opts, n.start)
	n.ch.addAppAccounts(opts.AppAccounts)
	n.ledger = ledger{applied: map[string]bool{}, inBlock: map[uint32]uint32{}, blockOf: map[string]uint32{}}
	n.methods, n.apis = registerMethods()
	return n
}

// Head returns the current head block number.
func (n *Node) Head() uint32 {
	elapsed := n.opts.Now().Sub(n.start)
	if elapsed < 0 {
		elapsed = 0
	}
	return n.opts.InitialHead + uint32(elapsed/n.opts.BlockInterval)
}

// LastIrreversible returns the last irreversible block number (head - IrreversibleLag).
func (n *Node) LastIrreversible() uint32 {
	return lib(n.Head(), n.opts.IrreversibleLag)
}

func lib(head, lag uint32) uint32 {
	if head <= lag {
		return 0
	}
	return head - lag
}

// Calls returns how many calls of method ("api.method", after resolving the "call" form)
// the node has served, including calls that failed.
func (n *Node) Calls(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[method]
}

// Broadcasts returns the params of every accepted broadcast call, oldest first.
func (n *Node) Broadcasts() []json.RawMessage {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]json.RawMessage(nil), n.broadcasts...)
}

// Methods returns the sorted names of all methods the node serves (as jsonrpc.get_methods).
func (n *Node) Methods() []string {
	return slices.Sorted(maps.Keys(n.methods))
}

func (n *Node) countCall(method string) {
	n.mu.Lock()
	n.calls[method]++
	n.mu.Unlock()
}

func (n *Node) recordBroadcast(params []byte) {
	n.mu.Lock()
	n.broadcasts = append(n.broadcasts, append(json.RawMessage(nil), params...))
	n.mu.Unlock()
}

// blockTime is the timestamp of block num: the genesis plus 3s per block,
// whatever Options.BlockInterval is.
func (ch *chain) blockTime(num uint32) time.Time {
	return ch.genesis.Add(time.Duration(num) * chainBlockInterval)
}

// blockOf is the block produced at time t.
func (ch *chain) blockOf(t time.Time) uint32 {
	return uint32(t.Sub(ch.genesis) / chainBlockInterval)
}
