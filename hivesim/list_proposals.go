package hivesim

import (
	"cmp"
	"math"
	"strings"
	"time"
)

// database_api list methods for the Decentralized Hive Fund.

var (
	directionNames = []string{"ascending", "descending"}
	statusNames    = []string{"all", "inactive", "active", "expired", "votable"}
)

const (
	statusAll = iota
	statusInactive
	statusActive
	statusExpired
	statusVotable
)

// proposalArgs is list_proposals_args: start, limit, order, order_direction, status, last_id.
type proposalArgs struct {
	*listArgs
	desc    bool
	status  int
	lastID  int64
	hasLast bool
}

func (c *callCtx) proposalArgs(p any) (*proposalArgs, *rpcError) {
	a, err := c.listArgs(p, true)
	if err != nil {
		return nil, err
	}
	in := &conv{}
	enum := func(names []string, name string, def int) func(any) (int, *rpcError) {
		return func(v any) (int, *rpcError) { return c.enumValue(v, names, "hive::plugins::database_api::"+name, def) }
	}
	pa := &proposalArgs{listArgs: a, desc: get(in, enum(directionNames, "order_direction_type", 0), a.obj["order_direction"]) == 1}
	pa.status = get(in, enum(statusNames, "proposal_status", statusAll), a.obj["status"])
	if v := a.obj["last_id"]; v != nil {
		pa.lastID, pa.hasLast = int64(get(in, c.asU64, v)), true
	}
	return pa, in.err
}

// proposalStatus is get_proposal_status at the head block time.
func proposalStatus(p *Proposal, now time.Time) int {
	switch {
	case now.Before(p.StartDate):
		return statusInactive
	case now.After(p.EndDate):
		return statusExpired
	}
	return statusActive
}

func statusFilter(filter int, p *Proposal, now time.Time) bool {
	if filter == statusAll {
		return true
	}
	st := proposalStatus(p, now)
	return filter == st || (filter == statusVotable && (st == statusActive || st == statusInactive))
}

// dhfOrder is one order of the proposal lists: its index, and how the start
// array becomes the comparison of a row with the start key (nil: the list
// starts at the index's edge in the requested direction).
type dhfOrder[T any] struct {
	rows func(*chain) []*T
	key  func(c *callCtx, start []any, desc bool) (func(*T) int, *rpcError)
}

// dhfRows is list_proposals' and list_proposal_votes' iteration: in either
// direction from the start key (or, with fromID, from last_id), keeping the
// rows whose proposal has the requested status.
func dhfRows[T any](c *callCtx, p any, orders map[string]dhfOrder[T], proposal func(*chain, *T) *Proposal,
	fromID bool) ([]*T, *rpcError) {
	a, err := c.proposalArgs(p)
	if err != nil {
		return nil, err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return nil, err
	}
	o, ok := orders[a.order]
	if !ok {
		return nil, c.unknownOrder(a.order)
	}
	starts, err := c.asArray(a.start)
	if err != nil {
		return nil, err
	}
	keyCmp, err := o.key(c, starts, a.desc)
	if err != nil {
		return nil, err
	}
	ch, now := c.n.ch, c.now()
	rows := o.rows(ch)
	from := 0
	switch {
	case fromID && a.hasLast:
		if from, ok = rowFromID(ch, rows, proposal, a.lastID, a.desc); !ok {
			return nil, nil
		}
	case keyCmp == nil && a.desc:
		from = len(rows)
	case keyCmp != nil && a.desc:
		from = upperBound(rows, keyCmp)
	case keyCmp != nil:
		from = lowerBound(rows, keyCmp)
	}
	keep := func(x *T) bool { return statusFilter(a.status, proposal(ch, x), now) }
	if a.desc {
		return collectDesc(rows, from, a.limit, keep), nil
	}
	return collect(rows, from, a.limit, keep), nil
}

// rowFromID is iterate_results_from_index: ascending starts at the object with
// last_id; descending starts just before the object that follows last_id in id order.
func rowFromID[T any](ch *chain, rows []*T, proposal func(*chain, *T) *Proposal, lastID int64, desc bool) (int, bool) {
	for _, p := range ch.proposals {
		if (!desc && p.ID == lastID) || (desc && p.ID > lastID) {
			for i, x := range rows {
				if proposal(ch, x) == p {
					return i, true
				}
			}
			return 0, true
		}
	}
	return 0, false
}

// proposalOrders are list_proposals' orders, keyed (member, id).
var proposalOrders = map[string]dhfOrder[Proposal]{
	"by_creator": proposalOrder(func(ch *chain) []*Proposal { return ch.propByCreator },
		func(c *callCtx, v any, _ bool) (string, *rpcError) { return c.asName(v) },
		func(x *Proposal, creator string) int { return strings.Compare(x.Creator, creator) }),
	"by_start_date": proposalOrder(func(ch *chain) []*Proposal { return ch.propByStart }, dateStart,
		func(x *Proposal, t time.Time) int { return x.StartDate.Compare(t) }),
	"by_end_date": proposalOrder(func(ch *chain) []*Proposal { return ch.propByEnd }, dateStart,
		func(x *Proposal, t time.Time) int { return x.EndDate.Compare(t) }),
	"by_total_votes": proposalOrder(func(ch *chain) []*Proposal { return ch.propByVotes },
		func(c *callCtx, v any, _ bool) (uint64, *rpcError) { return c.asU64(v) },
		func(x *Proposal, votes uint64) int { return cmp.Compare(x.TotalVotes, votes) }),
}

// proposalOrder is an order keyed (member, id): read reads the first start
// member, the id is the edge of the direction, and an empty start starts at
// the index's edge.
func proposalOrder[V any](rows func(*chain) []*Proposal, read func(c *callCtx, v any, desc bool) (V, *rpcError),
	compare func(*Proposal, V) int) dhfOrder[Proposal] {
	return dhfOrder[Proposal]{rows, func(c *callCtx, start []any, desc bool) (func(*Proposal) int, *rpcError) {
		if len(start) == 0 {
			return nil, nil
		}
		v, err := read(c, start[0], desc)
		edgeID := int64(0)
		if desc {
			edgeID = math.MaxInt64
		}
		return func(x *Proposal) int { return cmp.Or(compare(x, v), cmp.Compare(x.ID, edgeID)) }, err
	}}
}

// dateStart reads a date start member; "" is the edge of the direction.
func dateStart(c *callCtx, v any, desc bool) (time.Time, *rpcError) {
	switch s, err := c.asString(v); {
	case err != nil || s != "":
		return c.asTime(v)
	case desc:
		return MaxTime, nil
	}
	return Epoch, nil
}

func (c *callCtx) proposalRows(p any) ([]*Proposal, *rpcError) {
	return dhfRows(c, p, proposalOrders, func(_ *chain, x *Proposal) *Proposal { return x }, true)
}

func listProposals(c *callCtx, p any, w *jw) *rpcError {
	out, err := c.proposalRows(p)
	if err == nil {
		writeList(w, "proposals", out, func(w *jw, x *Proposal) { writeProposal(w, x, statusNames[proposalStatus(x, c.now())], false) })
	}
	return err
}

// proposalVoteOrders are list_proposal_votes' orders, keyed (voter, proposal
// id) or (proposal id, voter); a missing member is the edge of the direction.
var proposalVoteOrders = map[string]dhfOrder[ProposalVote]{
	"by_voter_proposal": {func(ch *chain) []*ProposalVote { return ch.pvByVoter },
		func(c *callCtx, start []any, desc bool) (func(*ProposalVote) int, *rpcError) {
			in := &conv{}
			voter, id := voterKey(c, in, start, 0, desc), proposalIDKey(c, in, start, 1, desc)
			return func(x *ProposalVote) int {
				return cmp.Or(strings.Compare(x.Voter, voter), cmp.Compare(x.ProposalID, id))
			}, in.err
		}},
	"by_proposal_voter": {func(ch *chain) []*ProposalVote { return ch.pvByProposal },
		func(c *callCtx, start []any, desc bool) (func(*ProposalVote) int, *rpcError) {
			in := &conv{}
			id, voter := proposalIDKey(c, in, start, 0, desc), voterKey(c, in, start, 1, desc)
			return func(x *ProposalVote) int {
				return cmp.Or(cmp.Compare(x.ProposalID, id), strings.Compare(x.Voter, voter))
			}, in.err
		}},
}

func proposalIDKey(c *callCtx, in *conv, start []any, i int, desc bool) int64 {
	if v, ok := elem(start, i); ok && v != nil {
		return get(in, func(v any) (int64, *rpcError) {
			id, err := c.asI64(v)
			if err == nil && id < 0 {
				err = c.assertFail("*obj >= 0", "The proposal id can't be negative")
			}
			return id, err
		}, v)
	}
	if desc {
		return math.MaxInt64
	}
	return 0
}

func voterKey(c *callCtx, in *conv, start []any, i int, desc bool) string {
	if v, ok := elem(start, i); ok && v != nil {
		return get(in, c.asName, v)
	}
	if pv := c.n.ch.pvByVoter; desc && len(pv) > 0 {
		return pv[len(pv)-1].Voter
	}
	return ""
}

func (c *callCtx) proposalVoteRows(p any) ([]*ProposalVote, *rpcError) {
	return dhfRows(c, p, proposalVoteOrders, func(ch *chain, x *ProposalVote) *Proposal { return ch.proposals[x.ProposalID] }, false)
}

func listProposalVotes(c *callCtx, p any, w *jw) *rpcError {
	out, err := c.proposalVoteRows(p)
	if err == nil {
		writeList(w, "proposal_votes", out, func(w *jw, x *ProposalVote) {
			prop := c.n.ch.proposals[x.ProposalID]
			writeValue(w, obj{"id", x.ID, "voter", x.Voter,
				"proposal", func(w *jw) { writeProposal(w, prop, statusNames[proposalStatus(prop, c.now())], false) }}, false)
		})
	}
	return err
}
