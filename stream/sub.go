package stream

import (
	"context"
	"time"
)

// Mode selects the blocks a subscription delivers.
type Mode int

// Modes.
const (
	// Reversible delivers blocks as the nodes produce them and announces
	// forks.
	Reversible Mode = iota + 1
	// Irreversible delivers blocks once irreversible.
	Irreversible
)

// Start is where a subscription starts: the head, a block number or a
// cursor (after it).
type Start struct {
	Head   bool
	Block  uint64
	Cursor *Cursor
}

// Event is one message of a subscription: a block, or (Block nil) a fork:
// the chain rolled back to block ForkNum, whose id is ForkID.
type Event struct {
	Block   *Block
	ForkNum uint64
	ForkID  string
	// LIB is the last irreversible block when the event was delivered.
	LIB uint64
}

// Cursor is the place after the event.
func (e Event) Cursor() Cursor {
	if e.Block != nil {
		return Cursor{Num: e.Block.Num, ID: e.Block.ID, Pos: -1}
	}
	return Cursor{Num: e.ForkNum, ID: e.ForkID, Pos: -1}
}

// Sub is one subscriber's place in the chain. Its Next is called from one
// goroutine.
type Sub struct {
	h    *Hub
	mode Mode
	// The subscriber's place: after block lastNum (id lastID, "" when any
	// id will do), or at it when inclusive.
	lastNum   uint64
	lastID    string
	inclusive bool
	waitHead  bool
	// live: reading the hub's events, the next at seq.
	live     bool
	seq      uint64
	caughtUp bool
	closed   bool
}

// Subscribe starts a subscription; Close ends it.
func (h *Hub) Subscribe(from Start, mode Mode) (*Sub, error) {
	if mode != Irreversible {
		mode = Reversible
	}
	if n := h.subs.Add(1); n > int64(h.opts.MaxSubscribers) {
		h.subs.Add(-1)
		return nil, ErrTooMany
	}
	s := &Sub{h: h, mode: mode}
	switch {
	case from.Cursor != nil:
		s.lastNum, s.lastID, s.inclusive = from.Cursor.Num, from.Cursor.ID, from.Cursor.Pos >= 0
	case from.Block > 0:
		h.mu.Lock()
		tip := h.tip
		h.mu.Unlock()
		if tip > 0 && from.Block > tip+uint64(h.opts.Window) {
			h.subs.Add(-1)
			return nil, ErrFuture
		}
		s.lastNum, s.inclusive = from.Block, true
	default:
		// The head now: the subscriber gets the blocks after it.
		h.mu.Lock()
		switch {
		case mode == Irreversible && h.lib > 0:
			s.lastNum = h.lib
		case mode == Reversible && h.tip > 0:
			s.lastNum, s.lastID = h.tip, h.canon[h.tip].ID
		default:
			s.waitHead = true
		}
		h.mu.Unlock()
	}
	return s, nil
}

// Close ends the subscription.
func (s *Sub) Close() {
	if !s.closed {
		s.closed = true
		s.h.subs.Add(-1)
	}
}

// Place is the cursor of the last event delivered, the place to resume
// from (Num 0 before any).
func (s *Sub) Place() Cursor { return Cursor{Num: s.lastNum, ID: s.lastID, Pos: -1} }

// Next waits for and returns the subscription's next event. ErrLagged
// means the subscriber fell more than the buffer behind.
func (s *Sub) Next(ctx context.Context) (Event, error) {
	if s.mode == Irreversible {
		return s.nextIrreversible(ctx)
	}
	return s.nextReversible(ctx)
}

// wait waits for news from the hub (or at most d when d > 0).
func wait(ctx context.Context, ch <-chan struct{}, d time.Duration) error {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-ch:
	case <-timeout:
	}
	return nil
}

// deliver moves the subscriber past e and returns it.
func (s *Sub) deliver(e Event) Event {
	s.inclusive = false
	if e.Block != nil {
		s.lastNum, s.lastID = e.Block.Num, e.Block.ID
	} else {
		s.lastNum, s.lastID = e.ForkNum, e.ForkID
	}
	return e
}

func (s *Sub) nextReversible(ctx context.Context) (Event, error) {
	h := s.h
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return Event{}, ErrClosed
		}
		if s.live {
			end := h.first + uint64(len(h.events))
			switch {
			case s.seq < h.first:
				// Fell out of the window while catching up: read history.
				s.live = false
				h.mu.Unlock()
				continue
			case s.caughtUp && end-s.seq > uint64(h.opts.Buffer):
				h.mu.Unlock()
				return Event{}, ErrLagged
			case s.seq < end:
				ev := h.events[s.seq-h.first]
				s.seq++
				if end-s.seq <= uint64(h.opts.Buffer) {
					s.caughtUp = true
				}
				lib := h.lib
				h.mu.Unlock()
				return s.deliver(Event{Block: ev.block, ForkNum: ev.forkNum, ForkID: ev.forkID, LIB: lib}), nil
			}
			s.caughtUp = true
			ch := h.notify
			h.mu.Unlock()
			if err := wait(ctx, ch, 0); err != nil {
				return Event{}, err
			}
			continue
		}
		if h.tip == 0 {
			ch := h.notify
			h.mu.Unlock()
			if err := wait(ctx, ch, 0); err != nil {
				return Event{}, err
			}
			continue
		}
		if s.waitHead {
			s.waitHead = false
			s.lastNum, s.lastID = h.tip, h.canon[h.tip].ID
		}
		if seq, ok := h.joinLocked(s.lastNum, s.lastID, s.inclusive); ok {
			s.live, s.seq = true, seq
			h.mu.Unlock()
			continue
		}
		lo, tip, lib := h.lo, h.tip, h.lib
		ch := h.notify
		h.mu.Unlock()
		want := s.lastNum + 1
		if s.inclusive {
			want = s.lastNum
		}
		if want > tip {
			if err := wait(ctx, ch, 0); err != nil {
				return Event{}, err
			}
			continue
		}
		if s.lastID != "" && s.lastNum >= lo {
			// The subscriber's block is in the window but not among our
			// events: it is on a branch we do not have.
			return s.rollBack(ctx, lib)
		}
		ev, ok, err := s.history(ctx, want, lib, ch)
		if err != nil || ok {
			return ev, err
		}
	}
}

// history reads block want from the chain for a subscriber behind the
// window; ok is false when the node does not have it yet (it waited).
func (s *Sub) history(ctx context.Context, want, lib uint64, ch <-chan struct{}) (Event, bool, error) {
	if err := s.h.history.Wait(ctx); err != nil { // Options.HistoryRate
		if ctx.Err() != nil {
			return Event{}, false, context.Cause(ctx)
		}
		return Event{}, false, err
	}
	b, err := s.h.opts.Chain.Block(ctx, want, want > lib)
	if err != nil {
		return Event{}, false, err
	}
	if b == nil {
		return Event{}, false, wait(ctx, ch, s.h.opts.BlockInterval)
	}
	if s.lastID != "" && ((s.inclusive && b.ID != s.lastID) || (!s.inclusive && b.Previous != s.lastID)) {
		ev, err := s.rollBack(ctx, lib)
		return ev, err == nil, err
	}
	return s.deliver(Event{Block: b, LIB: lib}), true, nil
}

// rollBack announces a fork to a subscriber whose last block is not on
// the chain: back to the block before it, or to the last irreversible
// block if that is lower (the blocks between may have changed too).
func (s *Sub) rollBack(ctx context.Context, lib uint64) (Event, error) {
	to := min(s.lastNum-1, lib)
	s.h.mu.Lock()
	b := s.h.canon[to]
	s.h.mu.Unlock()
	if b == nil {
		var err error
		if b, err = s.h.opts.Chain.Block(ctx, to, false); err != nil {
			return Event{}, err
		}
		if b == nil {
			return Event{}, errUpstream
		}
	}
	return s.deliver(Event{ForkNum: to, ForkID: b.ID, LIB: lib}), nil
}

// joinLocked finds where in the hub's events a subscriber after (or at,
// when inclusive) block num, id continues: the newest event of that block
// (or a fork back to it), or of a block whose previous is id. id "" means
// the canonical block num.
func (h *Hub) joinLocked(num uint64, id string, inclusive bool) (uint64, bool) {
	if id == "" {
		b := h.canon[num]
		if b == nil {
			return 0, false
		}
		id = b.ID
	}
	after := uint64(1)
	if inclusive {
		after = 0
	}
	for i := len(h.events) - 1; i >= 0; i-- {
		e := h.events[i]
		if e.block != nil && e.block.Num == num && e.block.ID == id {
			return h.first + uint64(i) + after, true
		}
		if !inclusive && e.block == nil && e.forkNum == num && e.forkID == id {
			return h.first + uint64(i) + 1, true
		}
	}
	if inclusive {
		return 0, false
	}
	for i := len(h.events) - 1; i >= 0; i-- {
		if e := h.events[i]; e.block != nil && e.block.Num == num+1 && e.block.Previous == id {
			return h.first + uint64(i), true
		}
	}
	return 0, false
}

func (s *Sub) nextIrreversible(ctx context.Context) (Event, error) {
	h := s.h
	for {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return Event{}, ErrClosed
		}
		lib, lo, tip := h.lib, h.lo, h.tip
		ch := h.notify
		if s.waitHead && lib > 0 {
			s.waitHead = false
			s.lastNum = lib
		}
		want := s.lastNum + 1
		if s.inclusive {
			want = s.lastNum
		}
		if s.waitHead || want > lib {
			s.caughtUp = true
			h.mu.Unlock()
			if err := wait(ctx, ch, 0); err != nil {
				return Event{}, err
			}
			continue
		}
		if s.caughtUp && lib-want >= uint64(h.opts.Buffer) {
			h.mu.Unlock()
			return Event{}, ErrLagged
		}
		if lib-want < uint64(h.opts.Buffer) {
			s.caughtUp = true
		}
		var b *Block
		if want >= lo && want <= tip {
			b = h.canon[want]
		}
		h.mu.Unlock()
		if b != nil && s.lastID != "" && ((s.inclusive && b.ID != s.lastID) || (!s.inclusive && b.Previous != s.lastID)) {
			return s.rollBack(ctx, lib)
		}
		if b != nil {
			return s.deliver(Event{Block: b, LIB: lib}), nil
		}
		ev, ok, err := s.history(ctx, want, lib, ch)
		if err != nil || ok {
			return ev, err
		}
	}
}
