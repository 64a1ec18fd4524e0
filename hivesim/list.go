package hivesim

import (
	"sort"
	"time"
)

// sortOrderNames is database_api's sort_order_type (hived 1.27/1.28 numbering).
var sortOrderNames = []string{"by_name", "by_proxy", "by_next_vesting_withdrawal", "by_account",
	"by_expiration", "by_effective_date", "by_vote_name", "by_schedule_time", "by_account_witness",
	"by_witness_account", "by_from_id", "by_ratification_deadline", "by_withdraw_route",
	"by_destination", "by_complete_from_id", "by_to_complete", "by_delegation",
	"by_account_expiration", "by_conversion_date", "by_cashout_time", "by_permlink", "by_parent",
	"by_comment_voter", "by_voter_comment", "by_price", "by_symbol_contributor", "by_symbol",
	"by_control_account", "by_symbol_time", "by_creator", "by_start_date", "by_end_date",
	"by_total_votes", "by_voter_proposal", "by_proposal_voter", "by_contributor", "by_symbol_id", "not_set"}

// Sort orders referenced by the list methods.
const (
	byName = iota
	byProxy
	byNextVestingWithdrawal
	byAccount
	byExpiration
	byEffectiveDate
	byVoteName
	byScheduleTime
	byAccountWitness
	byWitnessAccount
	byFromID
	byRatificationDeadline
	byWithdrawRoute
	byDestination
	byCompleteFromID
	byToComplete
	byDelegation
	byAccountExpiration
	byConversionDate
	byCashoutTime
	byPermlink
	byParent
	byCommentVoter
	byVoterComment
	byPrice
	bySymbolContributor
	bySymbol
	byControlAccount
	bySymbolTime
	byCreator
	byStartDate
	byEndDate
	byTotalVotes
	byVoterProposal
	byProposalVoter
	byContributor
	bySymbolID
	notSet
)

const sortOrderEnum = "hive::plugins::database_api::sort_order_type"

// listArgs is list_object_args_type {start, limit, order} plus the raw object for extras.
type listArgs struct {
	obj   map[string]any
	start any
	limit uint32
	order int
}

// listArgs decodes the common list arguments in fc's field order (start, limit, order).
func (c *callCtx) listArgs(p any, withOrder bool) (*listArgs, *rpcError) {
	o, err := c.asObject(p)
	if err != nil {
		return nil, err
	}
	a := &listArgs{obj: o, start: o["start"], order: notSet}
	if a.limit, err = c.asU32(o["limit"]); err != nil {
		return nil, err
	}
	if withOrder {
		if a.order, err = c.enumValue(o["order"], sortOrderNames, sortOrderEnum, notSet); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// checkLimit is the assert every hived list_* call starts with.
// orderedListArgs reads the args of a list method with an order and
// checks the limit, in hived's order: bad args first, then the limit.
func (c *callCtx) orderedListArgs(p any) (*listArgs, *rpcError) {
	a, err := c.listArgs(p, true)
	if err != nil {
		return nil, err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return nil, err
	}
	return a, nil
}

func (c *callCtx) checkLimit(limit uint32) *rpcError {
	if limit == 0 || limit > 1000 {
		return c.assertFail("0 < args.limit && args.limit <= DATABASE_API_SINGLE_QUERY_LIMIT", "limit not set or too big")
	}
	return nil
}

func (c *callCtx) unknownOrder(order int) *rpcError {
	return c.assertFail("false", "Unknown or unsupported sort order '"+enumName(sortOrderNames, order)+"'")
}

// lowerBound is multi_index lower_bound: the first row not ordered before the key.
// keyCmp compares a row with the key (negative: row before key).
func lowerBound[T any](rows []*T, keyCmp func(*T) int) int {
	return sort.Search(len(rows), func(i int) bool { return keyCmp(rows[i]) >= 0 })
}

// upperBound is the first row ordered after the key.
func upperBound[T any](rows []*T, keyCmp func(*T) int) int {
	return sort.Search(len(rows), func(i int) bool { return keyCmp(rows[i]) > 0 })
}

// collect takes up to limit rows from index from on, keeping only rows accepted by keep
// (nil keeps all). Like hived's iteration_loop, filtered rows do not count.
func collect[T any](rows []*T, from int, limit uint32, keep func(*T) bool) []*T {
	var out []*T
	for ; from < len(rows) && uint32(len(out)) < limit; from++ {
		if keep == nil || keep(rows[from]) {
			out = append(out, rows[from])
		}
	}
	return out
}

// collectDesc walks backwards from index from-1.
func collectDesc[T any](rows []*T, from int, limit uint32, keep func(*T) bool) []*T {
	var out []*T
	for i := from - 1; i >= 0 && uint32(len(out)) < limit; i-- {
		if keep == nil || keep(rows[i]) {
			out = append(out, rows[i])
		}
	}
	return out
}

// page is iterate_results in ascending direction: lower_bound(start), inclusive.
func page[T any](rows []*T, keyCmp func(*T) int, limit uint32) []*T {
	return collect(rows, lowerBound(rows, keyCmp), limit, nil)
}

// writeList writes {"<key>": [objects...]}.
func writeList[T any](w *jw, key string, rows []*T, fn func(*jw, *T)) {
	w.objBegin()
	w.key(key)
	w.arrBegin()
	for _, r := range rows {
		fn(w, r)
	}
	w.arrEnd()
	w.objEnd()
}

// tuple converts the elements of a start array one by one; the first conversion error
// sticks (fc converts pair/tuple members in order). Missing elements keep their defaults.
type tuple struct {
	c   *callCtx
	a   []any
	err *rpcError
}

func (c *callCtx) tuple(v any) *tuple {
	a, err := c.asArray(v)
	return &tuple{c: c, a: a, err: err}
}

func (t *tuple) get(i int) (any, bool) {
	if t.err != nil {
		return nil, false
	}
	return elem(t.a, i)
}

func (t *tuple) name(i int) string {
	v, ok := t.get(i)
	if !ok {
		return ""
	}
	s, err := t.c.asName(v)
	t.err = err
	return s
}

func (t *tuple) time(i int) time.Time {
	v, ok := t.get(i)
	if !ok {
		return Epoch
	}
	x, err := t.c.asTime(v)
	t.err = err
	return x
}

func (t *tuple) u64(i int) uint64 {
	v, ok := t.get(i)
	if !ok {
		return 0
	}
	x, err := t.c.asU64(v)
	t.err = err
	return x
}

func (t *tuple) u32(i int) uint32 { return uint32(t.u64(i)) }

func (t *tuple) i64(i int) int64 {
	v, ok := t.get(i)
	if !ok {
		return 0
	}
	x, err := t.c.asI64(v)
	t.err = err
	return x
}

func (t *tuple) boolean(i int) bool {
	v, ok := t.get(i)
	if !ok {
		return false
	}
	x, err := t.c.asBool(v)
	t.err = err
	return x
}

func (t *tuple) u128(i int) U128 {
	v, ok := t.get(i)
	if !ok {
		return U128{}
	}
	x, err := t.c.asU128(v)
	t.err = err
	return x
}

func (t *tuple) price(i int) Price {
	v, ok := t.get(i)
	if !ok {
		return Price{}
	}
	x, err := t.c.asPrice(v)
	t.err = err
	return x
}

// need3 is the "start requires 3 values" assert of the three-member start keys.
func (t *tuple) need3(msg string) {
	if t.err == nil && len(t.a) != 3 {
		t.err = t.c.assertFail("key.size() == 3", msg)
	}
}

// existingAccountID resolves name to an account id, failing with hived's assert text.
func (c *callCtx) existingAccountID(name, expr, msg string) (int64, *rpcError) {
	if a := c.n.ch.byName[name]; a != nil {
		return a.ID, nil
	}
	return 0, c.assertFail(expr, msg)
}
