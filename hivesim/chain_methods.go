package hivesim

import (
	"strconv"
	"time"
)

// Chain-level methods: global properties, blocks, account lookups by condenser_api.

const recentSlotsFilled = "340282366920938463463374607431768211455"

func writeDGPO(w *jw, c *callCtx, legacy bool) {
	ch := c.n.ch
	head := c.head
	now := c.now()
	nextMaint := now.Truncate(time.Hour).Add(time.Hour)
	w.objBegin()
	if !legacy {
		w.knum("id", 0)
	}
	w.knum("head_block_number", int64(head))
	w.kstr("head_block_id", ch.blockID(head))
	w.ktime("time", now)
	w.kstr("current_witness", ch.producer(head).Owner)
	w.ku64("total_pow", 514415)
	w.knum("num_pow_witnesses", 172)
	s := ch.supply
	w.kasset("virtual_supply", s.virtualSupply, legacy)
	w.kasset("current_supply", s.currentSupply, legacy)
	w.kasset("init_hbd_supply", asset(0, HBD), legacy)
	w.kasset("current_hbd_supply", s.hbdSupply, legacy)
	w.kasset("total_vesting_fund_hive", s.totalVestingFund, legacy)
	w.kasset("total_vesting_shares", s.totalVestingShares, legacy)
	w.kasset("total_reward_fund_hive", s.totalRewardFund, legacy)
	w.kstr("total_reward_shares2", "0")
	w.kasset("pending_rewarded_vesting_shares", s.pendingVests, legacy)
	w.kasset("pending_rewarded_vesting_hive", s.pendingHive, legacy)
	w.knum("hbd_interest_rate", 2000)
	w.knum("hbd_print_rate", 10000)
	w.knum("maximum_block_size", 65536)
	w.ku64("current_aslot", uint64(head)+uint64(head/100))
	w.kstr("recent_slots_filled", recentSlotsFilled)
	w.knum("participation_count", 128)
	w.knum("last_irreversible_block_num", int64(lib(head, c.n.opts.IrreversibleLag)))
	w.knum("vote_power_reserve_rate", 10)
	w.knum("delegation_return_period", 432000)
	w.ku64("reverse_auction_seconds", 0)
	w.ki64("available_account_subsidies", 10_000_000)
	w.knum("hbd_stop_percent", 2000)
	w.knum("hbd_start_percent", 1000)
	w.ktime("next_maintenance_time", nextMaint)
	w.ktime("last_budget_time", nextMaint.Add(-time.Hour))
	w.ktime("next_daily_maintenance_time", now.Truncate(day).Add(day))
	w.knum("content_reward_percent", 6500)
	w.knum("vesting_reward_percent", 1500)
	w.knum("proposal_fund_percent", 1000)
	w.kasset("dhf_interval_ledger", asset(int64(head%100_000), HBD), legacy)
	w.knum("downvote_pool_percent", 2500)
	w.knum("current_remove_threshold", 200)
	w.ku64("early_voting_seconds", 86400)
	w.ku64("mid_voting_seconds", 172800)
	w.knum("max_consecutive_recurrent_transfer_failures", 10)
	w.knum("max_recurrent_transfer_end_date", 730)
	w.knum("min_recurrent_transfers_recurrence", 24)
	w.knum("max_open_recurrent_transfers", 255)
	w.objEnd()
}

func dbGetDGPO(c *callCtx, p any, w *jw) *rpcError {
	writeDGPO(w, c, false)
	return nil
}

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

func condGetDGPO(c *callCtx, p any, w *jw) *rpcError {
	args, err := c.condArgs(p)
	if err != nil {
		return err
	}
	if err := c.checkArgs(args, 0); err != nil {
		return err
	}
	writeDGPO(w, c, true)
	return nil
}

func condGetAccounts(c *callCtx, p any, w *jw) *rpcError {
	args, err := c.condArgs(p)
	if err != nil {
		return err
	}
	if len(args) != 1 && len(args) != 2 {
		return c.assertFail("args.size() == 1 || args.size() == 2", "Expected 1-2 arguments, was "+strconv.Itoa(len(args)))
	}
	names, err := c.asArray(args[0])
	if err != nil {
		return err
	}
	delayed := true
	if len(args) == 2 {
		if delayed, err = c.asBool(args[1]); err != nil {
			return err
		}
	}
	w.arrBegin()
	for _, v := range names {
		name, err := c.asName(v)
		if err != nil {
			return err
		}
		if a := c.n.ch.byName[name]; a != nil {
			writeAccount(w, a, true, delayed)
		}
	}
	w.arrEnd()
	return nil
}

func condGetVestingDelegations(c *callCtx, p any, w *jw) *rpcError {
	args, err := c.condArgs(p)
	if err != nil {
		return err
	}
	if len(args) != 2 && len(args) != 3 {
		return c.assertFail("args.size() == 2 || args.size() == 3", "Expected 2-3 arguments, was "+strconv.Itoa(len(args)))
	}
	account, err := c.asName(args[0])
	if err != nil {
		return err
	}
	limit := uint32(100)
	if len(args) == 3 {
		if limit, err = c.asU32(args[2]); err != nil {
			return err
		}
	}
	if err := c.checkLimit(limit); err != nil {
		return err
	}
	order := byDelegationOrder()
	rows, err := order.rowsFrom(c, []any{args[0], args[1]}, limit)
	if err != nil {
		return err
	}
	w.arrBegin()
	for _, d := range rows {
		if d.Delegator != account {
			break
		}
		writeDelegation(w, d, true)
	}
	w.arrEnd()
	return nil
}

func reputationAPIGet(c *callCtx, p any, w *jw) *rpcError {
	in := &conv{}
	o := get(in, c.asObject, p)
	lower := get(in, c.asName, o["account_lower_bound"])
	if in.err != nil {
		return in.err
	}
	var err *rpcError
	limit := uint32(1000)
	if v, ok := o["limit"]; ok {
		if limit, err = c.asU32(v); err != nil {
			return err
		}
	}
	if limit > 1000 {
		return c.assertFail("args.limit <= 1000", "limit of "+strconv.FormatUint(uint64(limit), 10)+" is greater than maxmimum allowed")
	}
	var rows []*Account
	for _, a := range page(c.n.ch.acctByName, func(a *Account) int { return cmpString(a.Name, lower) }, uint32(len(c.n.ch.accounts))) {
		if uint32(len(rows)) == limit {
			break
		}
		if a.Reputation != 0 {
			rows = append(rows, a)
		}
	}
	writeList(w, "reputations", rows, func(w *jw, a *Account) {
		w.objBegin()
		w.kstr("account", a.Name)
		w.ki64("reputation", a.Reputation)
		w.objEnd()
	})
	return nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func getMethods(c *callCtx, p any, w *jw) *rpcError {
	w.arrBegin()
	for _, m := range c.n.Methods() {
		w.str(m)
	}
	w.arrEnd()
	return nil
}
