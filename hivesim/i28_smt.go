package hivesim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// SMT lists with rows (issue 28 item 1). SMTs were never enabled on
// mainnet, so a real node's lists are empty (and New's node answers them
// empty) and could not show the paging contract. A node made WithSMTs holds
// a small fixed set of tokens, contributions and emissions and orders them
// by hived's indexes (hive/chain/smt_objects, hived <= 1.24): symbols
// compare by NAI, then decimals.

// smtSymbol is an SMT's symbol as hived writes it: {"nai": ..., "decimals": ...}.
type smtSymbol struct {
	nai      string
	decimals uint32
}

func (s smtSymbol) compare(o smtSymbol) int {
	return cmp.Or(cmp.Compare(s.nai, o.nai), cmp.Compare(s.decimals, o.decimals))
}

type smtToken struct {
	id      int64
	symbol  smtSymbol
	control string
}

type smtContribution struct {
	id             int64
	symbol         smtSymbol
	contributor    string
	contributionID uint32
	amount         int64
}

type smtEmission struct {
	id       int64
	symbol   smtSymbol
	schedule time.Time
}

// smtData is the fixed SMT set: 6 tokens, 4 contributions and 3 emissions
// per token; several tokens share a control account and several
// contributions a contributor, so every order has ties to page through.
type smtData struct {
	tokens        []*smtToken
	contributions []*smtContribution
	emissions     []*smtEmission
}

func newSMTData() *smtData {
	d := &smtData{}
	controls := []string{"alice", "bob", "alice", "carol", "bob", "alice"}
	contributors := []string{"dave", "erin", "dave", "frank"}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, control := range controls {
		sym := smtSymbol{nai: fmt.Sprintf("@@1000000%02d", 60-7*i), decimals: uint32(3 + i%2)}
		d.tokens = append(d.tokens, &smtToken{id: int64(i), symbol: sym, control: control})
		for j, who := range contributors {
			d.contributions = append(d.contributions, &smtContribution{
				id: int64(len(d.contributions)), symbol: sym, contributor: who, contributionID: uint32(j), amount: int64(1000 * (j + 1)),
			})
		}
		for j := range 3 {
			d.emissions = append(d.emissions, &smtEmission{
				id: int64(len(d.emissions)), symbol: sym, schedule: start.Add(time.Duration(24*(3-j)) * time.Hour),
			})
		}
	}
	return d
}

// smtFixture is built once: the set does not depend on the seed.
var smtFixture = newSMTData()

// WithSMTs makes n answer database_api.list_smt_tokens,
// list_smt_contributions and list_smt_token_emissions from the fixed SMT
// set, as a node on a chain with SMTs would. Call it before n serves.
func (n *Node) WithSMTs() *Node {
	registerI28SMTMethods(n.methods)
	return n
}

func registerI28SMTMethods(r registry) {
	r.hived("database_api.list_smt_tokens", listSMTTokens)
	r.hived("database_api.list_smt_contributions", listSMTContributions)
	r.hived("database_api.list_smt_token_emissions", listSMTTokenEmissions)
}

// asSymbol reads {"nai": "@@...", "decimals": n}; an empty object (or a
// missing one) is the minimal symbol.
func (c *callCtx) asSymbol(v any) (smtSymbol, *rpcError) {
	if v == nil {
		return smtSymbol{}, nil
	}
	o, err := c.asObject(v)
	if err != nil {
		return smtSymbol{}, err
	}
	var s smtSymbol
	if n, ok := o["nai"]; ok {
		if s.nai, err = c.asString(n); err != nil {
			return smtSymbol{}, err
		}
	}
	if n, ok := o["decimals"]; ok {
		if s.decimals, err = c.asU32(n); err != nil {
			return smtSymbol{}, err
		}
	}
	return s, nil
}

// smtStart reads the start array's elements; missing ones are nil.
func (c *callCtx) smtStart(v any, n int) ([]any, *rpcError) {
	out := make([]any, n)
	if v == nil {
		return out, nil
	}
	a, err := c.asArray(v)
	if err != nil {
		return nil, err
	}
	copy(out, a)
	return out, nil
}

// orDefault converts an optional start element with conv.
func orDefault[T any](c *callCtx, v any, conv func(any) (T, *rpcError)) (T, *rpcError) {
	var zero T
	if v == nil {
		return zero, nil
	}
	return conv(v)
}

func sortedRows[T any](rows []*T, less func(a, b *T) int) []*T {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, less)
	return out
}

func listSMTTokens(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.listArgs(p, true)
	if err != nil {
		return err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return err
	}
	var rows []*smtToken
	switch a.order {
	case "by_symbol":
		start, err := c.asSymbol(a.start)
		if err != nil {
			return err
		}
		all := sortedRows(smtFixture.tokens, func(x, y *smtToken) int { return x.symbol.compare(y.symbol) })
		rows = page(all, func(x *smtToken) int { return x.symbol.compare(start) }, a.limit)
	case "by_control_account":
		s, err := c.smtStart(a.start, 2)
		if err != nil {
			return err
		}
		control, err := orDefault(c, s[0], c.asString)
		if err != nil {
			return err
		}
		sym, err := c.asSymbol(s[1])
		if err != nil {
			return err
		}
		all := sortedRows(smtFixture.tokens, func(x, y *smtToken) int {
			return cmp.Or(cmp.Compare(x.control, y.control), x.symbol.compare(y.symbol))
		})
		rows = page(all, func(x *smtToken) int { return cmp.Or(cmp.Compare(x.control, control), x.symbol.compare(sym)) }, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "tokens", rows, writeSMTToken)
	return nil
}

func listSMTContributions(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.listArgs(p, true)
	if err != nil {
		return err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return err
	}
	s, err := c.smtStart(a.start, 3)
	if err != nil {
		return err
	}
	var all []*smtContribution
	var key func(*smtContribution) int
	switch a.order {
	case "by_symbol_contributor":
		sym, err := c.asSymbol(s[0])
		if err != nil {
			return err
		}
		who, err := orDefault(c, s[1], c.asString)
		if err != nil {
			return err
		}
		id, err := orDefault(c, s[2], c.asU32)
		if err != nil {
			return err
		}
		f := func(x *smtContribution, sym smtSymbol, who string, id uint32) int {
			return cmp.Or(x.symbol.compare(sym), cmp.Compare(x.contributor, who), cmp.Compare(x.contributionID, id))
		}
		all = sortedRows(smtFixture.contributions, func(x, y *smtContribution) int { return f(x, y.symbol, y.contributor, y.contributionID) })
		key = func(x *smtContribution) int { return f(x, sym, who, id) }
	case "by_symbol_id":
		sym, err := c.asSymbol(s[0])
		if err != nil {
			return err
		}
		id, err := orDefault(c, s[1], c.asI64)
		if err != nil {
			return err
		}
		all = sortedRows(smtFixture.contributions, func(x, y *smtContribution) int {
			return cmp.Or(x.symbol.compare(y.symbol), cmp.Compare(x.id, y.id))
		})
		key = func(x *smtContribution) int { return cmp.Or(x.symbol.compare(sym), cmp.Compare(x.id, id)) }
	case "by_contributor":
		who, err := orDefault(c, s[0], c.asString)
		if err != nil {
			return err
		}
		sym, err := c.asSymbol(s[1])
		if err != nil {
			return err
		}
		id, err := orDefault(c, s[2], c.asU32)
		if err != nil {
			return err
		}
		f := func(x *smtContribution, who string, sym smtSymbol, id uint32) int {
			return cmp.Or(cmp.Compare(x.contributor, who), x.symbol.compare(sym), cmp.Compare(x.contributionID, id))
		}
		all = sortedRows(smtFixture.contributions, func(x, y *smtContribution) int { return f(x, y.contributor, y.symbol, y.contributionID) })
		key = func(x *smtContribution) int { return f(x, who, sym, id) }
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "contributions", page(all, key, a.limit), writeSMTContribution)
	return nil
}

func listSMTTokenEmissions(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.listArgs(p, true)
	if err != nil {
		return err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return err
	}
	if a.order != "by_symbol_time" {
		return c.unknownOrder(a.order)
	}
	s, err := c.smtStart(a.start, 2)
	if err != nil {
		return err
	}
	sym, err := c.asSymbol(s[0])
	if err != nil {
		return err
	}
	when := Epoch
	if s[1] != nil {
		if when, err = c.asTime(s[1]); err != nil {
			return err
		}
	}
	all := sortedRows(smtFixture.emissions, func(x, y *smtEmission) int {
		return cmp.Or(x.symbol.compare(y.symbol), x.schedule.Compare(y.schedule))
	})
	rows := page(all, func(x *smtEmission) int { return cmp.Or(x.symbol.compare(sym), x.schedule.Compare(when)) }, a.limit)
	writeList(w, "token_emissions", rows, writeSMTEmission)
	return nil
}

func writeSMTSymbol(w *jw, k string, s smtSymbol) {
	w.key(k)
	w.objBegin()
	w.kstr("nai", s.nai)
	w.knum("decimals", int64(s.decimals))
	w.objEnd()
}

func writeSMTAsset(w *jw, k string, amount int64, precision int64, nai string) {
	w.key(k)
	w.objBegin()
	w.kstr("amount", strconv.FormatInt(amount, 10))
	w.knum("precision", precision)
	w.kstr("nai", nai)
	w.objEnd()
}

func writeSMTToken(w *jw, t *smtToken) {
	w.objBegin()
	w.key("token")
	w.objBegin()
	w.knum("id", t.id)
	writeSMTSymbol(w, "liquid_symbol", t.symbol)
	w.kstr("control_account", t.control)
	w.kstr("phase", "setup")
	for _, k := range []string{"current_supply", "total_vesting_fund_smt", "total_vesting_shares",
		"pending_rewarded_vesting_shares", "pending_rewarded_vesting_smt"} {
		w.knum(k, 0)
	}
	w.kbool("allow_downvotes", true)
	w.key("market_maker")
	w.objBegin()
	w.knum("reserve_ratio", 0)
	writeSMTAsset(w, "hive_balance", 0, 3, "@@000000021")
	writeSMTAsset(w, "token_balance", 0, int64(t.symbol.decimals), t.symbol.nai)
	w.objEnd()
	w.kbool("allow_voting", true)
	w.knum("cashout_window_seconds", 604800)
	w.knum("reverse_auction_window_seconds", 0)
	w.knum("vote_regeneration_period_seconds", 432000)
	w.knum("votes_per_regeneration_period", 50)
	w.kstr("content_constant", "2000000000000")
	w.knum("percent_curation_rewards", 2500)
	w.kstr("author_reward_curve", "linear")
	w.kstr("curation_reward_curve", "square_root")
	w.knum("max_supply", 1000000000000)
	w.objEnd()
	w.objEnd()
}

func writeSMTContribution(w *jw, x *smtContribution) {
	w.objBegin()
	w.knum("id", x.id)
	writeSMTSymbol(w, "symbol", x.symbol)
	w.kstr("contributor", x.contributor)
	w.knum("contribution_id", int64(x.contributionID))
	writeSMTAsset(w, "contribution", x.amount, 3, "@@000000021")
	w.objEnd()
}

func writeSMTEmission(w *jw, x *smtEmission) {
	w.objBegin()
	w.knum("id", x.id)
	writeSMTSymbol(w, "symbol", x.symbol)
	w.ktime("schedule_time", x.schedule)
	w.knum("interval_seconds", 86400)
	w.knum("interval_count", 1)
	w.ktime("lep_time", x.schedule)
	w.ktime("rep_time", x.schedule)
	for _, k := range []string{"lep_abs_amount", "rep_abs_amount", "lep_rel_amount_numerator", "rep_rel_amount_numerator"} {
		w.knum(k, 0)
	}
	w.knum("rel_amount_denom_bits", 0)
	w.objEnd()
}

// SMTCounts returns how many SMT tokens, contributions and emissions a
// node made WithSMTs lists.
func (n *Node) SMTCounts() (tokens, contributions, emissions int) {
	return len(smtFixture.tokens), len(smtFixture.contributions), len(smtFixture.emissions)
}
