package stream

import (
	"context"
	"strings"

	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/jsonwire"
)

// Filter selects operations: one passes when it passes every set that is
// not empty.
type Filter struct {
	Types         map[string]bool
	Accounts      map[string]bool
	CustomJSONIDs map[string]bool
	// Virtual includes virtual operations.
	Virtual bool
}

// maxFilterEntries bounds each list of a filter.
const maxFilterEntries = 100

// NewFilter builds a filter; types may be given as "vote" or
// "vote_operation". ok is false when a list is longer than 100.
func NewFilter(types, accounts, customJSONIDs []string, virtual bool) (Filter, bool) {
	if len(types) > maxFilterEntries || len(accounts) > maxFilterEntries || len(customJSONIDs) > maxFilterEntries {
		return Filter{}, false
	}
	f := Filter{Virtual: virtual}
	set := func(list []string, norm func(string) string) map[string]bool {
		if len(list) == 0 {
			return nil
		}
		m := make(map[string]bool, len(list))
		for _, s := range list {
			m[norm(s)] = true
		}
		return m
	}
	f.Types = set(types, func(s string) string {
		if !strings.HasSuffix(s, "_operation") {
			s += "_operation"
		}
		return s
	})
	same := func(s string) string { return s }
	f.Accounts = set(accounts, same)
	f.CustomJSONIDs = set(customJSONIDs, same)
	return f, true
}

// Match reports whether op passes f.
func (f Filter) Match(op Op) bool {
	if f.Types != nil && !f.Types[op.Type] {
		return false
	}
	if f.CustomJSONIDs != nil {
		if op.Type != "custom_json_operation" {
			return false
		}
		v, found, err := jsonwire.Member(op.Value, "id", jsonwire.MaxDepth)
		if err != nil || !found || len(v) < 2 || v[0] != '"' || !f.CustomJSONIDs[jsonwire.Unquote(v)] {
			return false
		}
	}
	if f.Accounts != nil {
		_, _, found := hivetx.AccountField(op.Value, func(_, name string) bool { return f.Accounts[name] })
		if !found {
			return false
		}
	}
	return true
}

// BlockOp is one operation of a block with its place.
type BlockOp struct {
	Block   *Block
	TrxID   string // "" for a virtual operation
	TrxNum  int    // -1 for a virtual operation
	OpInTrx int
	Pos     int
	Virtual bool
	Op      Op
}

// Cursor is the place after o.
func (o BlockOp) Cursor() Cursor { return Cursor{Num: o.Block.Num, ID: o.Block.ID, Pos: o.Pos} }

// OpEvent is one message of an operation subscription: an operation, or
// (Op nil) a fork.
type OpEvent struct {
	Op   *BlockOp
	Fork Event
	LIB  uint64
}

// OpSub is an operation subscription.
type OpSub struct {
	h       *Hub
	sub     *Sub
	f       Filter
	pending []BlockOp
	lib     uint64
	// skip: in block skipNum, the positions up to skip were delivered
	// before (a cursor in the middle of a block).
	skipNum uint64
	skip    int
	last    Cursor
	retry   *Block // expand failed on it: last is the place before it
}

// SubscribeOps starts an operation subscription; Close ends it.
func (h *Hub) SubscribeOps(from Start, mode Mode, f Filter) (*OpSub, error) {
	sub, err := h.Subscribe(from, mode)
	if err != nil {
		return nil, err
	}
	s := &OpSub{h: h, sub: sub, f: f, skip: -1}
	if from.Cursor != nil {
		s.skipNum, s.skip, s.last = from.Cursor.Num, from.Cursor.Pos, *from.Cursor
	}
	if f.Virtual {
		h.wantVirtual.Add(1)
	}
	return s, nil
}

// Close ends the subscription.
func (s *OpSub) Close() {
	if !s.sub.closed && s.f.Virtual {
		s.h.wantVirtual.Add(-1)
	}
	s.sub.Close()
}

// Place is the cursor to resume from: after the last operation delivered,
// or after the last block whose every selected operation was delivered.
func (s *OpSub) Place() Cursor {
	if s.retry == nil && len(s.pending) == 0 && s.sub.lastNum > 0 && s.sub.lastID != "" && !s.sub.inclusive {
		return s.sub.Place()
	}
	return s.last
}

// Next waits for and returns the next operation or fork.
func (s *OpSub) Next(ctx context.Context) (OpEvent, error) {
	for len(s.pending) == 0 {
		if s.retry != nil {
			if err := s.expand(ctx, s.retry); err != nil {
				return OpEvent{}, err
			}
			continue
		}
		ev, err := s.sub.Next(ctx)
		if err != nil {
			return OpEvent{}, err
		}
		s.lib = ev.LIB
		if ev.Block == nil {
			s.last = ev.Cursor()
			return OpEvent{Fork: ev, LIB: ev.LIB}, nil
		}
		if err := s.expand(ctx, ev.Block); err != nil {
			return OpEvent{}, err
		}
	}
	o := s.pending[0]
	s.pending = s.pending[1:]
	s.last = o.Cursor()
	return OpEvent{Op: &o, LIB: s.lib}, nil
}

// expand queues the operations of b that pass the filter.
func (s *OpSub) expand(ctx context.Context, b *Block) error {
	skip := -1
	if b.Num == s.skipNum {
		skip = s.skip
	}
	s.skipNum, s.skip = 0, -1
	pos := 0
	for i, tx := range b.Txs {
		for j, op := range tx.Ops {
			if pos > skip && s.f.Match(op) {
				s.pending = append(s.pending, BlockOp{Block: b, TrxID: tx.ID, TrxNum: i, OpInTrx: j, Pos: pos, Op: op})
			}
			pos++
		}
	}
	if !s.f.Virtual {
		return nil
	}
	virtual, err := s.h.VirtualOps(ctx, b)
	if err != nil {
		// Nothing of b was delivered: the next call tries again, and the
		// place to resume from is before it.
		s.pending = s.pending[:0]
		s.retry = b
		s.skipNum, s.skip = b.Num, skip
		s.last = Cursor{Num: b.Num - 1, ID: b.Previous, Pos: -1}
		if skip >= 0 {
			s.last = Cursor{Num: b.Num, ID: b.ID, Pos: skip}
		}
		return err
	}
	s.retry = nil
	for j, op := range virtual {
		if pos > skip && s.f.Match(op) {
			s.pending = append(s.pending, BlockOp{Block: b, TrxNum: -1, OpInTrx: j, Pos: pos, Virtual: true, Op: op})
		}
		pos++
	}
	return nil
}
