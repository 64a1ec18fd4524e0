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
// empty, see smtList) and could not show the paging contract. A node made
// WithSMTs holds a small fixed set of tokens, contributions and emissions
// and orders them by hived's indexes (hive/chain/smt_objects, hived <= 1.24):
// symbols compare by NAI, then decimals. Their start members are read like
// any list's, except that a null start is the empty key.

// smtSymbol is an SMT's symbol as hived writes it: {"nai": ..., "decimals": ...}.
type smtSymbol struct {
	NAI      string `hive:"nai"`
	Decimals uint32 `hive:"decimals"`
}

func (s smtSymbol) compare(o smtSymbol) int {
	return cmp.Or(cmp.Compare(s.NAI, o.NAI), cmp.Compare(s.Decimals, o.Decimals))
}

type smtToken struct {
	id      int64
	symbol  smtSymbol
	control string
}

type smtContribution struct {
	ID             int64     `hive:"id"`
	Symbol         smtSymbol `hive:"symbol"`
	Contributor    string    `hive:"contributor"`
	ContributionID uint32    `hive:"contribution_id"`
	Amount         Asset     `hive:"contribution"`
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
		sym := smtSymbol{NAI: fmt.Sprintf("@@1000000%02d", 60-7*i), Decimals: uint32(3 + i%2)}
		d.tokens = append(d.tokens, &smtToken{id: int64(i), symbol: sym, control: control})
		for j, who := range contributors {
			d.contributions = append(d.contributions, &smtContribution{
				ID: int64(len(d.contributions)), Symbol: sym, Contributor: who, ContributionID: uint32(j),
				Amount: asset(int64(1000*(j+1)), HIVE),
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
	symbol := func(x *smtToken) smtSymbol { return x.symbol }
	control := func(x *smtToken) string { return x.control }
	n.methods.hived("database_api.list_smt_tokens", dbList("tokens", writeSMTToken,
		bare("by_symbol", smtSorted(smtFixture.tokens, func(a, b *smtToken) int { return a.symbol.compare(b.symbol) }),
			kSymbol(symbol)),
		smtOrder("by_control_account", smtFixture.tokens, func(a, b *smtToken) int {
			return cmp.Or(cmp.Compare(a.control, b.control), a.symbol.compare(b.symbol))
		}, kString(control), kSymbol(symbol))))

	cSymbol := kSymbol(func(x *smtContribution) smtSymbol { return x.Symbol })
	contributor := kString(func(x *smtContribution) string { return x.Contributor })
	contributionID := part((*tuple).u32, func(x *smtContribution, v uint32) int { return cmp.Compare(x.ContributionID, v) })
	n.methods.hived("database_api.list_smt_contributions", startArrayFirst(dbList("contributions", dbForm(writeObject[smtContribution]),
		smtOrder("by_symbol_contributor", smtFixture.contributions, func(a, b *smtContribution) int {
			return cmp.Or(a.Symbol.compare(b.Symbol), cmp.Compare(a.Contributor, b.Contributor),
				cmp.Compare(a.ContributionID, b.ContributionID))
		}, cSymbol, contributor, contributionID),
		smtOrder("by_symbol_id", smtFixture.contributions, func(a, b *smtContribution) int {
			return cmp.Or(a.Symbol.compare(b.Symbol), cmp.Compare(a.ID, b.ID))
		}, cSymbol, part((*tuple).i64, func(x *smtContribution, v int64) int { return cmp.Compare(x.ID, v) })),
		smtOrder("by_contributor", smtFixture.contributions, func(a, b *smtContribution) int {
			return cmp.Or(cmp.Compare(a.Contributor, b.Contributor), a.Symbol.compare(b.Symbol),
				cmp.Compare(a.ContributionID, b.ContributionID))
		}, contributor, cSymbol, contributionID))))

	n.methods.hived("database_api.list_smt_token_emissions", dbList("token_emissions", writeSMTEmission,
		smtOrder("by_symbol_time", smtFixture.emissions, func(a, b *smtEmission) int {
			return cmp.Or(a.symbol.compare(b.symbol), a.schedule.Compare(b.schedule))
		}, kSymbol(func(x *smtEmission) smtSymbol { return x.symbol }),
			kTime(func(x *smtEmission) time.Time { return x.schedule }))))
	return n
}

// startArrayFirst is list, which first reads a non-null start as an array
// once the limit is checked, whatever the order (list_smt_contributions).
func startArrayFirst(list methodFunc) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		a, err := c.listArgs(p, true)
		if err == nil {
			err = c.checkLimit(a.limit)
		}
		if err == nil && a.start != nil {
			_, err = c.asArray(a.start)
		}
		if err != nil {
			return err
		}
		return list(c, p, w)
	}
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

// smtOrder is an SMT list's order of the fixed rows sorted by compare; a
// null start reads as the empty key.
func smtOrder[T any](order string, rows []*T, compare func(a, b *T) int, parts ...keyPart[T]) ordering[T] {
	o := ord(order, smtSorted(rows, compare), parts...)
	o.nullStart = true
	return o
}

// smtSorted is an index of the fixed rows: sorted by compare, ties in the set's order.
func smtSorted[T any](rows []*T, compare func(a, b *T) int) func(*chain) []*T {
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, compare)
	return func(*chain) []*T { return sorted }
}

// asSymbol reads {"nai": "@@...", "decimals": n}; an empty object (or a
// missing one) is the minimal symbol.
func (c *callCtx) asSymbol(v any) (smtSymbol, *rpcError) {
	in := &conv{}
	o := get(in, c.asObject, v)
	s := smtSymbol{NAI: get(in, c.asString, o["nai"]), Decimals: get(in, c.asU32, o["decimals"])}
	return s, in.err
}

func kSymbol[T any](f func(*T) smtSymbol) keyPart[T] {
	read := func(t *tuple, i int) smtSymbol { return member(t, i, t.c.asSymbol, smtSymbol{}) }
	return part(read, func(x *T, v smtSymbol) int { return f(x).compare(v) })
}

// smtAsset is an amount of an SMT (or of HIVE) in NAI form.
func smtAsset(amount int64, decimals uint32, nai string) obj {
	return obj{"amount", strconv.FormatInt(amount, 10), "precision", decimals, "nai", nai}
}

func writeSMTToken(w *jw, t *smtToken) {
	writeValue(w, obj{"token", obj{"id", t.id, "liquid_symbol", t.symbol, "control_account", t.control, "phase", "setup",
		"current_supply", 0, "total_vesting_fund_smt", 0, "total_vesting_shares", 0, "pending_rewarded_vesting_shares", 0,
		"pending_rewarded_vesting_smt", 0, "allow_downvotes", true,
		"market_maker", obj{"reserve_ratio", 0, "hive_balance", smtAsset(0, 3, "@@000000021"),
			"token_balance", smtAsset(0, t.symbol.Decimals, t.symbol.NAI)},
		"allow_voting", true, "cashout_window_seconds", 604800, "reverse_auction_window_seconds", 0,
		"vote_regeneration_period_seconds", 432000, "votes_per_regeneration_period", 50,
		"content_constant", "2000000000000", "percent_curation_rewards", 2500, "author_reward_curve", "linear",
		"curation_reward_curve", "square_root", "max_supply", 1000000000000}}, false)
}

func writeSMTEmission(w *jw, x *smtEmission) {
	writeValue(w, obj{"id", x.id, "symbol", x.symbol, "schedule_time", x.schedule, "interval_seconds", 86400,
		"interval_count", 1, "lep_time", x.schedule, "rep_time", x.schedule, "lep_abs_amount", 0, "rep_abs_amount", 0,
		"lep_rel_amount_numerator", 0, "rep_rel_amount_numerator", 0, "rel_amount_denom_bits", 0}, false)
}

// SMTCounts returns how many SMT tokens, contributions and emissions a
// node made WithSMTs lists.
func (n *Node) SMTCounts() (tokens, contributions, emissions int) {
	return len(smtFixture.tokens), len(smtFixture.contributions), len(smtFixture.emissions)
}
