package hivesim

import (
	"cmp"
	"sort"
	"strings"
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

const sortOrderEnum = "hive::plugins::database_api::sort_order_type"

// listArgs is list_object_args_type {start, limit, order} plus the raw object for extras.
type listArgs struct {
	obj   map[string]any
	start any
	limit uint32
	order string // a sortOrderNames name
}

// listArgs decodes the common list arguments in fc's field order (start, limit, order).
func (c *callCtx) listArgs(p any, withOrder bool) (*listArgs, *rpcError) {
	o, err := c.asObject(p)
	if err != nil {
		return nil, err
	}
	a := &listArgs{obj: o, start: o["start"], order: "not_set"}
	if a.limit, err = c.asU32(o["limit"]); err != nil {
		return nil, err
	}
	if withOrder {
		a.order, err = c.sortOrder(o["order"])
	}
	return a, err
}

// checkLimit is the assert every hived list_* call starts with.
func (c *callCtx) checkLimit(limit uint32) *rpcError {
	if limit == 0 || limit > 1000 {
		return c.assertFail("0 < args.limit && args.limit <= DATABASE_API_SINGLE_QUERY_LIMIT", "limit not set or too big")
	}
	return nil
}

// sortOrder reads a sort_order_type (default not_set) as its name.
func (c *callCtx) sortOrder(v any) (string, *rpcError) {
	i, err := c.enumValue(v, sortOrderNames, sortOrderEnum, len(sortOrderNames)-1)
	if err != nil {
		return "", err
	}
	return enumName(sortOrderNames, i), nil // a number out of range stays one
}

func (c *callCtx) unknownOrder(order string) *rpcError {
	return c.assertFail("false", "Unknown or unsupported sort order '"+order+"'")
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

// member converts member i with f; a missing member (or any member after a
// failed one) keeps def.
func member[T any](t *tuple, i int, f func(any) (T, *rpcError), def T) T {
	v, ok := t.get(i)
	if !ok {
		return def
	}
	x, err := f(v)
	t.err = err
	return x
}

func (t *tuple) name(i int) string    { return member(t, i, t.c.asName, "") }
func (t *tuple) str(i int) string     { return member(t, i, t.c.asString, "") }
func (t *tuple) time(i int) time.Time { return member(t, i, t.c.asTime, Epoch) }
func (t *tuple) u64(i int) uint64     { return member(t, i, t.c.asU64, 0) }
func (t *tuple) u32(i int) uint32     { return uint32(t.u64(i)) }
func (t *tuple) i64(i int) int64      { return member(t, i, t.c.asI64, 0) }
func (t *tuple) boolean(i int) bool   { return member(t, i, t.c.asBool, false) }
func (t *tuple) u128(i int) U128      { return member(t, i, t.c.asU128, U128{}) }
func (t *tuple) price(i int) Price    { return member(t, i, t.c.asPrice, Price{}) }

// need3 is the "start requires 3 values" assert of the three-member start keys.
func (t *tuple) need3(msg string) {
	if t.err == nil && len(t.a) != 3 {
		t.err = t.c.assertFail("key.size() == 3", msg)
	}
}

// A database_api list method is a table (dbList): the result's member, the
// object writer, and its sort orders. Each ordering names the index it pages
// and the members of its start key, read in order from the start array as
// hived's tuple conversions read them, then resolved (names to ids) once
// every member is read.
type ordering[T any] struct {
	order string
	rows  func(*chain) []*T
	need3 string // hived's "start requires 3 values" assert, for orders that make it
	bare  bool   // the start is one value, not an array (by_name, by_account)
	// nullStart reads a null start as the empty key (the SMT lists).
	nullStart bool
	parts     []keyPart[T]
}

// keyPart reads member i of a start key; what it returns resolves the
// member and compares a row with it.
type keyPart[T any] func(t *tuple, i int) func() (func(*T) int, *rpcError)

func ord[T any](order string, rows func(*chain) []*T, parts ...keyPart[T]) ordering[T] {
	return ordering[T]{order: order, rows: rows, parts: parts}
}

// ord3 is an ordering whose start must have three members.
func ord3[T any](order string, rows func(*chain) []*T, need3 string, parts ...keyPart[T]) ordering[T] {
	return ordering[T]{order: order, rows: rows, need3: need3, parts: parts}
}

// bare is an ordering whose start is one value.
func bare[T any](order string, rows func(*chain) []*T, part keyPart[T]) ordering[T] {
	return ordering[T]{order: order, rows: rows, bare: true, parts: []keyPart[T]{part}}
}

// part builds a key member from how it is read and how a row compares with it.
func part[T, V any](read func(*tuple, int) V, compare func(*T, V) int) keyPart[T] {
	return func(t *tuple, i int) func() (func(*T) int, *rpcError) {
		v := read(t, i)
		return func() (func(*T) int, *rpcError) { return func(x *T) int { return compare(x, v) }, nil }
	}
}

func kName[T any](f func(*T) string) keyPart[T] {
	return part((*tuple).name, func(x *T, v string) int { return strings.Compare(f(x), v) })
}

func kString[T any](f func(*T) string) keyPart[T] {
	return part((*tuple).str, func(x *T, v string) int { return strings.Compare(f(x), v) })
}

func kTime[T any](f func(*T) time.Time) keyPart[T] {
	return part((*tuple).time, func(x *T, v time.Time) int { return f(x).Compare(v) })
}

func kU32[T any](f func(*T) uint32) keyPart[T] {
	return part((*tuple).u32, func(x *T, v uint32) int { return cmp.Compare(f(x), v) })
}

func kBool[T any](f func(*T) bool) keyPart[T] {
	return part((*tuple).boolean, func(x *T, v bool) int { return cmpBool(f(x), v) })
}

// kID is an object id (read as uint64, compared as int64).
func kID[T any](f func(*T) int64) keyPart[T] {
	return part(func(t *tuple, i int) int64 { return int64(t.u64(i)) }, func(x *T, v int64) int { return cmp.Compare(f(x), v) })
}

// kAccount is an account name the index keys by id: "" sorts before every
// account unless required; a name no account has fails with hived's assert.
func kAccount[T any](f func(*T) string, required bool, expr, msg string) keyPart[T] {
	return func(t *tuple, i int) func() (func(*T) int, *rpcError) {
		name := t.name(i)
		return func() (func(*T) int, *rpcError) {
			ch, id := t.c.n.ch, int64(-1)
			if required || name != "" {
				a := ch.byName[name]
				if a == nil {
					return nil, t.c.assertFail(expr, msg)
				}
				id = a.ID
			}
			return func(x *T) int { return cmp.Compare(ch.accountID(f(x)), id) }, nil
		}
	}
}

// rowsFrom pages one ordering from start.
func (o *ordering[T]) rowsFrom(c *callCtx, start any, limit uint32) ([]*T, *rpcError) {
	t := &tuple{c: c, a: []any{start}}
	switch {
	case start == nil && o.nullStart:
		t.a = nil
	case !o.bare:
		t = c.tuple(start)
	}
	if o.need3 != "" {
		t.need3(o.need3)
	}
	resolvers := make([]func() (func(*T) int, *rpcError), len(o.parts))
	for i, p := range o.parts {
		resolvers[i] = p(t, i)
	}
	if t.err != nil {
		return nil, t.err
	}
	cmps := make([]func(*T) int, len(resolvers))
	for i, r := range resolvers {
		var err *rpcError
		if cmps[i], err = r(); err != nil {
			return nil, err
		}
	}
	return page(o.rows(c.n.ch), func(x *T) int {
		for _, f := range cmps {
			if r := f(x); r != 0 {
				return r
			}
		}
		return 0
	}, limit), nil
}

// dbList serves a database_api list method from its orderings, writing
// {"<key>": [...]}. prepare, when set, reads the method's other arguments
// after start, limit and order and before the limit is checked, and picks
// the writer.
func dbList[T any](key string, write func(*jw, *T), orders ...ordering[T]) methodFunc {
	return dbListWith(key, func(*callCtx, *listArgs) (func(*jw, *T), *rpcError) { return write, nil }, orders...)
}

func dbListWith[T any](key string, prepare func(*callCtx, *listArgs) (func(*jw, *T), *rpcError), orders ...ordering[T]) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		a, err := c.listArgs(p, orders[0].order != "not_set")
		if err != nil {
			return err
		}
		write, err := prepare(c, a)
		if err != nil {
			return err
		}
		if err := c.checkLimit(a.limit); err != nil {
			return err
		}
		for i := range orders {
			if orders[i].order == a.order {
				rows, err := orders[i].rowsFrom(c, a.start, a.limit)
				if err != nil {
					return err
				}
				writeList(w, key, rows, write)
				return nil
			}
		}
		return c.unknownOrder(a.order)
	}
}
