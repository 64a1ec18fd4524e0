package stream

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of Options.
const (
	DefaultWindow         = 1200 // blocks: one hour of Hive
	DefaultBuffer         = 100  // events: five minutes of Hive
	DefaultMaxSubscribers = 10000
	DefaultBlockInterval  = 3 * time.Second
	// DefaultHistoryRate is how many blocks per second every subscriber
	// together may read from history (behind the window).
	DefaultHistoryRate = 100
	// maxStep bounds the blocks the follower reads in one round.
	maxStep = 100
)

// Options configure a Hub.
type Options struct {
	// Chain is where blocks are read.
	Chain Chain
	// Window is how many recent blocks (and events) the hub keeps for
	// subscribers to catch up from (DefaultWindow when <= 0).
	Window int
	// Buffer is how many events a live subscriber may fall behind before
	// it is ended with ErrLagged (DefaultBuffer when <= 0; at most Window).
	Buffer int
	// MaxSubscribers bounds the subscribers at once (DefaultMaxSubscribers
	// when <= 0).
	MaxSubscribers int
	// BlockInterval is the chain's block interval: the follower asks for
	// the next block a sixth of an interval after its slot, and every
	// sixth of an interval while it is late (DefaultBlockInterval when
	// <= 0).
	BlockInterval time.Duration
	// HistoryRate bounds the blocks per second all subscribers together
	// read from history, behind the window (DefaultHistoryRate when <= 0).
	// A subscriber that starts far back, with a filter that lets nothing
	// through, reads as fast as the nodes answer: without a bound one
	// request asked the nodes for thousands of blocks a second, past any
	// rate limit or quota, and filled the cache with them.
	HistoryRate int
	// Logger receives the follower's failures; nil discards.
	Logger *slog.Logger
	// Now is the clock the follower schedules its polls by (time.Now when
	// nil).
	Now func() time.Time
}

// event is one thing the follower announced: a block, or a fork (the
// chain rolled back to forkNum, whose id is forkID).
type event struct {
	block   *Block
	forkNum uint64
	forkID  string
}

// Hub is one gateway's follower of the chain and the subscribers it
// feeds. Safe for concurrent use.
type Hub struct {
	opts Options
	log  *slog.Logger
	// stepMu makes the follower's rounds one at a time.
	stepMu sync.Mutex
	// recheck (under stepMu): the next round reads the head first (after
	// a failure, or a round that read maxStep blocks).
	recheck bool

	mu     sync.Mutex
	events []event // the last events announced, oldest first
	first  uint64  // sequence number of events[0]
	canon  map[uint64]*Block
	lo     uint64 // lowest block of canon (0: none yet)
	tip    uint64 // highest block of canon
	lib    uint64
	notify chan struct{} // closed and replaced when anything changes
	closed bool          // Run ended: subscriptions end with ErrClosed

	subs        atomic.Int64
	wantVirtual atomic.Int64
	// reads counts the blocks the follower read from the chain.
	reads atomic.Int64
	// history paces the subscribers' history reads (Options.HistoryRate).
	history *rate.Limiter
}

// NewHub returns a hub reading opts.Chain; Run starts its follower.
func NewHub(opts Options) *Hub {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultBuffer
	}
	opts.Buffer = min(opts.Buffer, opts.Window)
	if opts.MaxSubscribers <= 0 {
		opts.MaxSubscribers = DefaultMaxSubscribers
	}
	if opts.BlockInterval <= 0 {
		opts.BlockInterval = DefaultBlockInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.HistoryRate <= 0 {
		opts.HistoryRate = DefaultHistoryRate
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Hub{opts: opts, log: log, canon: map[uint64]*Block{}, notify: make(chan struct{}),
		history: rate.NewLimiter(rate.Limit(opts.HistoryRate), opts.HistoryRate)}
}

// Subscribers is the number of subscribers now.
func (h *Hub) Subscribers() int { return int(h.subs.Load()) }

// BlocksRead is the number of blocks the follower read from the chain.
func (h *Hub) BlocksRead() int64 { return h.reads.Load() }

// Tip returns the highest block the follower has and the last
// irreversible block.
func (h *Hub) Tip() (tip, lib uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tip, h.lib
}

// Run follows the chain until ctx ends; then every subscription ends
// with ErrClosed (and its cursor), so that a gateway shutting down lets its
// clients go to another replica at once.
func (h *Hub) Run(ctx context.Context) {
	failing := false
	for {
		grew, err := h.step(ctx)
		switch {
		case err != nil && !failing:
			failing = true
			h.log.Warn("stream follower: reading the chain failed", "err", err)
		case err == nil && failing:
			failing = false
			h.log.Info("stream follower: reading the chain again")
		}
		t := time.NewTimer(h.pollWait(grew))
		select {
		case <-ctx.Done():
			t.Stop()
			h.mu.Lock()
			h.closed = true
			h.wakeLocked()
			h.mu.Unlock()
			return
		case <-t.C:
		}
	}
}

// pollWait is how long Run waits after a round. While the next block is
// late: a sixth of the block interval. After a new block: until a sixth of
// an interval after the next block's slot (the tip's timestamp plus one
// interval), when the nodes have it; anchoring on the chain's slots
// rather than on when the follower saw the tip keeps the polls from
// drifting later block after block. When the clock and the tip's
// timestamp disagree by more than an interval (a skewed clock, a chain
// that stalled), it waits one interval.
func (h *Hub) pollWait(grew bool) time.Duration {
	iv, late := h.opts.BlockInterval, h.opts.BlockInterval/6
	if !grew {
		return late
	}
	h.mu.Lock()
	tip := h.canon[h.tip]
	h.mu.Unlock()
	if tip == nil || tip.Time.IsZero() {
		return iv
	}
	wait := tip.Time.Add(iv + late).Sub(h.opts.Now())
	if wait < -iv || wait > iv+late {
		return iv
	}
	return max(wait, 0)
}

// Step is Run's one round: it reads the blocks after the follower's tip
// and reports whether a new block came. See step.
func (h *Hub) Step(ctx context.Context) (bool, error) { return h.step(ctx) }

// step reads the blocks after the tip, one block_api.get_block each. The
// head (a get_dynamic_global_properties) is read only when the follower
// has no tip yet, when its chain has no LIB of its own (LIBKnower), and
// after a round that failed or read maxStep blocks (a jump may be due);
// otherwise the round asks for tip+1 and goes on while the next block's
// slot has passed (the block after b cannot exist before b's time plus
// one interval), so that a round at the chain's pace is one call, and an
// empty answer (a block not produced yet) comes only when a block is late
// or a witness missed its slot.
func (h *Hub) step(ctx context.Context) (grew bool, err error) {
	h.stepMu.Lock()
	defer h.stepMu.Unlock()
	h.mu.Lock()
	tip := h.tip
	h.mu.Unlock()
	var lib uint64
	known := false
	if k, ok := h.opts.Chain.(LIBKnower); ok {
		lib, known = k.KnownLIB()
	}
	const unknown = ^uint64(0)
	head := unknown
	if !known || tip == 0 || h.recheck {
		var headLIB uint64
		if head, headLIB, err = h.opts.Chain.Head(ctx); err != nil {
			h.recheck = true
			return false, err
		}
		if !known {
			lib = headLIB
		}
	}
	h.recheck = false
	defer func() {
		if err != nil {
			h.recheck = true
		}
	}()
	// The LIB announced is never above the highest block the follower
	// knows of (the head read this round, else its tip, raised by each
	// block read): the tracker's may be a round ahead of the tip.
	top := tip
	if head != unknown {
		top = head
	}
	h.setLIB(min(lib, top))
	next := tip + 1
	if tip == 0 || (head != unknown && head > tip+uint64(h.opts.Window)) {
		// The first round, or the follower was stopped long: start at the
		// head (subscribers behind it read history).
		next = head
	}
	for n := next; n <= head; n++ {
		if n >= next+maxStep {
			h.recheck = true // far behind: read the head next round
			return grew, nil
		}
		b, err := h.opts.Chain.Block(ctx, n, n > lib)
		if err != nil {
			return grew, err
		}
		if b == nil {
			return grew, nil // the node answering has not got it yet
		}
		h.reads.Add(1)
		if h.wantVirtual.Load() > 0 {
			_, _ = h.VirtualOps(ctx, b)
		}
		forked, err := h.append(ctx, b, lib)
		if err != nil {
			return grew, err
		}
		if forked {
			return true, nil // read the new branch in the next round, at once
		}
		grew = true
		if lib > top && b.Num > top {
			top = b.Num
			h.setLIB(min(lib, top))
		}
		if head == unknown && !h.slotPassed(b) {
			return grew, nil // the next block is not due yet
		}
	}
	return grew, nil
}

// slotPassed reports whether the slot of the block after b has come by
// the hub's clock, so that the nodes may have it. A clock that disagrees
// with the chain by more than an interval either way (the block after b
// due more than an interval from now) is not trusted: the round goes on
// until an empty answer, one call more per round, never a block left
// behind.
func (h *Hub) slotPassed(b *Block) bool {
	if b.Time.IsZero() {
		return true
	}
	until := b.Time.Add(h.opts.BlockInterval).Sub(h.opts.Now())
	return until <= 0 || until > h.opts.BlockInterval
}

// setLIB records the last irreversible block.
func (h *Hub) setLIB(lib uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if lib != h.lib {
		h.lib = lib
		h.wakeLocked()
	}
}

// wakeLocked wakes every subscriber waiting for news.
func (h *Hub) wakeLocked() {
	close(h.notify)
	h.notify = make(chan struct{})
}

// append publishes b as the block after the tip; when b does not link to
// the tip it finds where the chain forked and announces the fork instead.
func (h *Hub) append(ctx context.Context, b *Block, lib uint64) (forked bool, err error) {
	h.mu.Lock()
	prev := h.canon[b.Num-1]
	if h.tip == 0 || h.tip+1 != b.Num || prev == nil || prev.ID == b.Previous {
		if h.tip != 0 && h.tip+1 != b.Num {
			// A jump (the first block, or a long stop): forget the window.
			clear(h.canon)
			h.lo = 0
		}
		h.publishLocked(b)
		h.mu.Unlock()
		return false, nil
	}
	h.mu.Unlock()
	// b does not follow our tip: walk back to the last block the nodes
	// and we agree on.
	k := b.Num - 1
	for ; k > lib; k-- {
		h.mu.Lock()
		ours := h.canon[k]
		lo := h.lo
		h.mu.Unlock()
		if ours == nil || k <= lo {
			break
		}
		theirs, err := h.opts.Chain.Block(ctx, k, true)
		if err != nil {
			return false, err
		}
		if theirs != nil && theirs.ID == ours.ID {
			break
		}
	}
	if k == b.Num-1 {
		// The nodes have our tip and a next block that does not follow
		// it: two nodes on two branches. Wait for them to agree.
		return false, errDisagree
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for n := k + 1; n <= h.tip; n++ {
		delete(h.canon, n)
	}
	h.tip = k
	id := ""
	if c := h.canon[k]; c != nil {
		id = c.ID
	}
	h.events = append(h.events, event{forkNum: k, forkID: id})
	h.trimLocked()
	h.log.Info("stream follower: fork", "rolled_back_to", k)
	h.wakeLocked()
	return true, nil
}

// publishLocked adds b as the new tip.
func (h *Hub) publishLocked(b *Block) {
	h.canon[b.Num] = b
	h.tip = b.Num
	if h.lo == 0 {
		h.lo = b.Num
	}
	for h.tip-h.lo >= uint64(h.opts.Window) {
		delete(h.canon, h.lo)
		h.lo++
	}
	h.events = append(h.events, event{block: b})
	h.trimLocked()
	h.wakeLocked()
}

// trimLocked keeps the last Window events.
func (h *Hub) trimLocked() {
	w := h.opts.Window
	if len(h.events) >= 2*w {
		drop := len(h.events) - w
		h.events = append([]event(nil), h.events[drop:]...)
		h.first += uint64(drop)
	}
}

// VirtualOps returns b's virtual operations, read once for every
// subscriber.
func (h *Hub) VirtualOps(ctx context.Context, b *Block) ([]Op, error) {
	b.vmu.Lock()
	defer b.vmu.Unlock()
	if b.vdone {
		return b.virtual, nil
	}
	ops, err := h.opts.Chain.VirtualOps(ctx, b.Num)
	if err != nil {
		return nil, err
	}
	b.virtual, b.vdone = ops, true
	return ops, nil
}

// Errors of subscriptions.
var (
	// ErrLagged ends a subscriber that fell more than the buffer behind.
	ErrLagged = errors.New("the subscriber fell too far behind the chain")
	// ErrClosed ends the subscriptions of a hub whose follower stopped.
	ErrClosed = errors.New("the gateway is shutting down")
	// ErrTooMany refuses a subscriber over MaxSubscribers.
	ErrTooMany = errors.New("too many stream subscribers")
	// ErrFuture refuses a start block far ahead of the head.
	ErrFuture = errors.New("the start block is too far ahead of the head")
	// errDisagree: the nodes answered a tip and a next block that do not
	// link.
	errDisagree = errors.New("the nodes disagree on the chain's tip")
)
