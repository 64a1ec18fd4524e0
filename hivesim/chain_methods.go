package hivesim

import (
	"strconv"
	"strings"
	"time"
)

// Chain-level methods: global properties, blocks, account lookups by condenser_api.

const recentSlotsFilled = "340282366920938463463374607431768211455"

func writeDGPO(w *jw, c *callCtx, legacy bool) {
	ch, head, now, s := c.n.ch, c.head, c.now(), c.n.ch.supply
	nextMaint := now.Truncate(time.Hour).Add(time.Hour)
	w.objBegin()
	if !legacy {
		w.knum("id", 0)
	}
	w.members(legacy, "head_block_number", head, "head_block_id", ch.blockID(head), "time", now,
		"current_witness", ch.producer(head).Owner, "total_pow", uint64(514415), "num_pow_witnesses", 172,
		"virtual_supply", s.virtualSupply, "current_supply", s.currentSupply, "init_hbd_supply", asset(0, HBD),
		"current_hbd_supply", s.hbdSupply, "total_vesting_fund_hive", s.totalVestingFund,
		"total_vesting_shares", s.totalVestingShares, "total_reward_fund_hive", s.totalRewardFund,
		"total_reward_shares2", "0", "pending_rewarded_vesting_shares", s.pendingVests,
		"pending_rewarded_vesting_hive", s.pendingHive, "hbd_interest_rate", 2000, "hbd_print_rate", 10000,
		"maximum_block_size", 65536, "current_aslot", uint64(head)+uint64(head/100),
		"recent_slots_filled", recentSlotsFilled, "participation_count", 128,
		"last_irreversible_block_num", lib(head, c.n.opts.IrreversibleLag), "vote_power_reserve_rate", 10,
		"delegation_return_period", 432000, "reverse_auction_seconds", uint64(0),
		"available_account_subsidies", int64(10_000_000), "hbd_stop_percent", 2000, "hbd_start_percent", 1000,
		"next_maintenance_time", nextMaint, "last_budget_time", nextMaint.Add(-time.Hour),
		"next_daily_maintenance_time", now.Truncate(day).Add(day), "content_reward_percent", 6500,
		"vesting_reward_percent", 1500, "proposal_fund_percent", 1000,
		"dhf_interval_ledger", asset(int64(head%100_000), HBD), "downvote_pool_percent", 2500,
		"current_remove_threshold", 200, "early_voting_seconds", uint64(86400), "mid_voting_seconds", uint64(172800),
		"max_consecutive_recurrent_transfer_failures", 10, "max_recurrent_transfer_end_date", 730,
		"min_recurrent_transfers_recurrence", 24, "max_open_recurrent_transfers", 255)
	w.objEnd()
}

func dbGetDGPO(c *callCtx, _ any, w *jw) { writeDGPO(w, c, false) }

// condArgs returns condenser_api's positional arguments (a JSON array; null = none).
func (c *callCtx) condArgs(p any) ([]any, *rpcError) {
	if p == nil {
		return nil, nil
	}
	if m, ok := p.(map[string]any); ok && len(m) == 0 {
		return nil, nil // "call" without args
	}
	return c.asArray(p)
}

// checkArgs is condenser_api's CHECK_ARG_SIZE (its message really contains "#s").
func (c *callCtx) checkArgs(args []any, n int) *rpcError {
	if len(args) != n {
		return c.assertFail("args.size() == "+strconv.Itoa(n), "Expected #s argument(s), was "+strconv.Itoa(len(args)))
	}
	return nil
}

func condGetAccounts(c *callCtx, p any, w *jw) {
	args := need(c.condArgs(p))
	if len(args) != 1 && len(args) != 2 {
		abortOn(c.assertFail("args.size() == 1 || args.size() == 2",
			"Expected 1-2 arguments, was "+strconv.Itoa(len(args))))
	}
	names, delayed := need(c.asArray(args[0])), opt(args, 1, c.asBool, true)
	w.arrBegin()
	for _, v := range names {
		if a := c.n.ch.byName[need(c.asName(v))]; a != nil {
			writeAccount(w, a, true, delayed)
		}
	}
	w.arrEnd()
}

func condGetVestingDelegations(c *callCtx, p any, w *jw) {
	args := need(c.condArgs(p))
	if len(args) != 2 && len(args) != 3 {
		abortOn(c.assertFail("args.size() == 2 || args.size() == 3",
			"Expected 2-3 arguments, was "+strconv.Itoa(len(args))))
	}
	account, limit := need(c.asName(args[0])), opt(args, 2, c.asU32, 100)
	abortOn(c.checkLimit(limit))
	order := byDelegationOrder()
	w.arrBegin()
	for _, d := range need(order.rowsFrom(c, []any{args[0], args[1]}, limit)) {
		if d.Delegator != account {
			break
		}
		writeDelegation(w, d, true)
	}
	w.arrEnd()
}

func reputationAPIGet(c *callCtx, p any, w *jw) {
	o := need(c.asObject(p))
	lower, limit := need(c.asName(o["account_lower_bound"])), uint32(1000)
	if v, ok := o["limit"]; ok {
		limit = need(c.asU32(v))
	}
	if limit > 1000 {
		abortOn(c.assertFail("args.limit <= 1000", "limit of "+itoa(int64(limit))+" is greater than maxmimum allowed"))
	}
	var rows []*Account
	ch := c.n.ch
	for _, a := range page(ch.acctByName, func(a *Account) int { return strings.Compare(a.Name, lower) }, uint32(len(ch.accounts))) {
		if uint32(len(rows)) == limit {
			break
		}
		if a.Reputation != 0 {
			rows = append(rows, a)
		}
	}
	writeList(w, "reputations", rows, func(w *jw, a *Account) {
		w.value(obj{"account", a.Name, "reputation", a.Reputation}, false)
	})
}

func getMethods(c *callCtx, _ any, w *jw) { w.value(c.n.Methods(), false) }
