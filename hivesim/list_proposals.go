package hivesim

import (
	"cmp"
	"math"
	"strings"
	"time"
)

// database_api list methods for the Decentralized Hive Fund, plus the SMT lists.

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
	pa := &proposalArgs{listArgs: a}
	dir, err := c.enumValue(a.obj["order_direction"], directionNames, "hive::plugins::database_api::order_direction_type", 0)
	if err != nil {
		return nil, err
	}
	pa.desc = dir == 1
	if pa.status, err = c.enumValue(a.obj["status"], statusNames, "hive::plugins::database_api::proposal_status", statusAll); err != nil {
		return nil, err
	}
	if v := a.obj["last_id"]; v != nil {
		id, err := c.asU64(v)
		if err != nil {
			return nil, err
		}
		pa.lastID, pa.hasLast = int64(id), true
	}
	return pa, nil
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

func (c *callCtx) proposalRows(p any) ([]*Proposal, *rpcError) {
	a, err := c.proposalArgs(p)
	if err != nil {
		return nil, err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return nil, err
	}
	ch := c.n.ch
	now := c.now()
	var rows []*Proposal
	var keyCmp func(*Proposal) int
	edgeID := int64(0)
	if a.desc {
		edgeID = math.MaxInt64
	}
	switch a.order {
	case "by_creator":
		rows = ch.propByCreator
	case "by_start_date":
		rows = ch.propByStart
	case "by_end_date":
		rows = ch.propByEnd
	case "by_total_votes":
		rows = ch.propByVotes
	default:
		return nil, c.unknownOrder(a.order)
	}
	starts, err := c.asArray(a.start)
	if err != nil {
		return nil, err
	}
	if len(starts) > 0 {
		switch a.order {
		case "by_creator":
			creator, err := c.asName(starts[0])
			if err != nil {
				return nil, err
			}
			keyCmp = func(x *Proposal) int { return cmp.Or(strings.Compare(x.Creator, creator), cmp.Compare(x.ID, edgeID)) }
		case "by_start_date", "by_end_date":
			s, err := c.asString(starts[0])
			if err != nil {
				return nil, err
			}
			when := Epoch
			if a.desc {
				when = MaxTime
			}
			if s != "" {
				if when, err = c.asTime(starts[0]); err != nil {
					return nil, err
				}
			}
			field := func(x *Proposal) time.Time { return x.StartDate }
			if a.order == "by_end_date" {
				field = func(x *Proposal) time.Time { return x.EndDate }
			}
			keyCmp = func(x *Proposal) int { return cmp.Or(field(x).Compare(when), cmp.Compare(x.ID, edgeID)) }
		case "by_total_votes":
			votes, err := c.asU64(starts[0])
			if err != nil {
				return nil, err
			}
			keyCmp = func(x *Proposal) int { return cmp.Or(cmp.Compare(x.TotalVotes, votes), cmp.Compare(x.ID, edgeID)) }
		}
	}
	keep := func(x *Proposal) bool { return statusFilter(a.status, x, now) }
	var out []*Proposal
	switch {
	case a.hasLast:
		out = proposalsFromID(rows, ch.proposals, a.lastID, a.desc, a.limit, keep)
	case keyCmp == nil && !a.desc:
		out = collect(rows, 0, a.limit, keep)
	case keyCmp == nil:
		out = collectDesc(rows, len(rows), a.limit, keep)
	case !a.desc:
		out = collect(rows, lowerBound(rows, keyCmp), a.limit, keep)
	default:
		out = collectDesc(rows, upperBound(rows, keyCmp), a.limit, keep)
	}
	return out, nil
}

func listProposals(c *callCtx, p any, w *jw) *rpcError {
	out, err := c.proposalRows(p)
	if err != nil {
		return err
	}
	now := c.now()
	writeList(w, "proposals", out, func(w *jw, x *Proposal) { writeProposal(w, x, statusNames[proposalStatus(x, now)], false) })
	return nil
}

// proposalsFromID is iterate_results_from_index: ascending starts at the object with
// last_id; descending starts just before the object that follows last_id in id order.
func proposalsFromID(rows, byID []*Proposal, lastID int64, desc bool, limit uint32, keep func(*Proposal) bool) []*Proposal {
	var target *Proposal
	for _, p := range byID {
		if (!desc && p.ID == lastID) || (desc && p.ID > lastID) {
			target = p
			break
		}
	}
	if target == nil {
		return nil
	}
	pos := 0
	for i, p := range rows {
		if p == target {
			pos = i
		}
	}
	if desc {
		return collectDesc(rows, pos, limit, keep)
	}
	return collect(rows, pos, limit, keep)
}

func (c *callCtx) proposalVoteRows(p any) ([]*ProposalVote, *rpcError) {
	a, err := c.proposalArgs(p)
	if err != nil {
		return nil, err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return nil, err
	}
	ch := c.n.ch
	now := c.now()
	proposalID := func(v any, ok bool) (int64, *rpcError) {
		if !ok || v == nil {
			if a.desc {
				return math.MaxInt64, nil
			}
			return 0, nil
		}
		id, err := c.asI64(v)
		if err == nil && id < 0 {
			err = c.assertFail("*obj >= 0", "The proposal id can't be negative")
		}
		return id, err
	}
	voterName := func(v any, ok bool) (string, *rpcError) {
		if !ok || v == nil {
			if a.desc && len(ch.pvByVoter) > 0 {
				return ch.pvByVoter[len(ch.pvByVoter)-1].Voter, nil
			}
			return "", nil
		}
		return c.asName(v)
	}
	var rows []*ProposalVote
	var keyCmp func(*ProposalVote) int
	switch a.order {
	case "by_voter_proposal", "by_proposal_voter":
		arr, err := c.asArray(a.start)
		if err != nil {
			return nil, err
		}
		v0, ok0 := elem(arr, 0)
		v1, ok1 := elem(arr, 1)
		if a.order == "by_voter_proposal" {
			voter, err := voterName(v0, ok0)
			if err != nil {
				return nil, err
			}
			id, err := proposalID(v1, ok1)
			if err != nil {
				return nil, err
			}
			rows = ch.pvByVoter
			keyCmp = func(x *ProposalVote) int {
				return cmp.Or(strings.Compare(x.Voter, voter), cmp.Compare(x.ProposalID, id))
			}
		} else {
			id, err := proposalID(v0, ok0)
			if err != nil {
				return nil, err
			}
			voter, err := voterName(v1, ok1)
			if err != nil {
				return nil, err
			}
			rows = ch.pvByProposal
			keyCmp = func(x *ProposalVote) int {
				return cmp.Or(cmp.Compare(x.ProposalID, id), strings.Compare(x.Voter, voter))
			}
		}
	default:
		return nil, c.unknownOrder(a.order)
	}
	keep := func(x *ProposalVote) bool { return statusFilter(a.status, ch.proposals[x.ProposalID], now) }
	var out []*ProposalVote
	if a.desc {
		out = collectDesc(rows, upperBound(rows, keyCmp), a.limit, keep)
	} else {
		out = collect(rows, lowerBound(rows, keyCmp), a.limit, keep)
	}
	return out, nil
}

func listProposalVotes(c *callCtx, p any, w *jw) *rpcError {
	out, err := c.proposalVoteRows(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	now := c.now()
	writeList(w, "proposal_votes", out, func(w *jw, x *ProposalVote) {
		prop := ch.proposals[x.ProposalID]
		w.objBegin()
		w.knum("id", x.ID)
		w.kstr("voter", x.Voter)
		w.key("proposal")
		writeProposal(w, prop, statusNames[proposalStatus(prop, now)], false)
		w.objEnd()
	})
	return nil
}

// smtList serves the SMT list methods. The simulated chain has no SMTs, so after the
// argument checks the lists are empty.
func smtList(key string, orders ...string) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		a, err := c.listArgs(p, true)
		if err != nil {
			return err
		}
		if err := c.checkLimit(a.limit); err != nil {
			return err
		}
		for _, o := range orders {
			if o == a.order {
				writeList[Proposal](w, key, nil, nil)
				return nil
			}
		}
		return c.unknownOrder(a.order)
	}
}
