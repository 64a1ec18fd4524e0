package hivesim

import (
	"cmp"
	"math"
	"strconv"
	"strings"
)

// condenser_api methods over chain state, in legacy form.

// condN reads exactly n positional args.
func (c *callCtx) condN(p any, n int) ([]any, *rpcError) {
	args, err := c.condArgs(p)
	if err != nil {
		return nil, err
	}
	return args, c.checkArgs(args, n)
}

// condRange reads between lo and hi positional args with hived's message.
func (c *callCtx) condRange(p any, lo, hi int) ([]any, *rpcError) {
	args, err := c.condArgs(p)
	if err != nil {
		return nil, err
	}
	if len(args) < lo || len(args) > hi {
		return nil, c.assertFail("args.size() >= "+strconv.Itoa(lo)+" && args.size() <= "+strconv.Itoa(hi),
			"Expected "+strconv.Itoa(lo)+"-"+strconv.Itoa(hi)+" arguments, was "+strconv.Itoa(len(args)))
	}
	return args, nil
}

// condNoArgs serves a condenser method of zero arguments.
func condNoArgs(write func(c *callCtx, w *jw)) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		if _, err := c.condN(p, 0); err != nil {
			return err
		}
		write(c, w)
		return nil
	}
}

// condByAccount serves a condenser method of one account argument listing
// that account's objects.
func condByAccount[T any](index func(*chain) []*T, owner func(*T) string, write func(*jw, *T)) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		name, err := c.asName(args[0])
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, x := range index(c.n.ch) {
			if owner(x) == name {
				write(w, x)
			}
		}
		w.arrEnd()
		return nil
	}
}

func registerCondenserStateMethods(r registry) {
	r.hived("condenser_api.get_account_count", condNoArgs(func(c *callCtx, w *jw) { w.num(int64(len(c.n.ch.accounts))) }))
	r.hived("condenser_api.get_witness_count", condNoArgs(func(c *callCtx, w *jw) { w.num(int64(len(c.n.ch.witnesses))) }))
	r.hived("condenser_api.get_chain_properties", condNoArgs(func(c *callCtx, w *jw) {
		var b jw
		writeChainProps(&b, "x", true)
		w.raw(b.b[len(`"x":`):])
	}))
	r.hived("condenser_api.get_config", condNoArgs(func(c *callCtx, w *jw) { writeConfig(w, true) }))
	r.hived("condenser_api.get_version", condNoArgs(func(c *callCtx, w *jw) { writeVersion(w) }))
	r.hived("condenser_api.get_hardfork_version", condNoArgs(func(c *callCtx, w *jw) { w.str(hardforkVersion) }))
	r.hived("condenser_api.get_next_scheduled_hardfork", condNoArgs(func(c *callCtx, w *jw) {
		w.objBegin()
		w.kstr("hf_version", hardforkVersion)
		w.ktime("live_time", c.n.ch.hardforkTimes()[27])
		w.objEnd()
	}))
	r.hived("condenser_api.get_current_median_history_price", condNoArgs(func(c *callCtx, w *jw) { writePrice(w, c.n.ch.medianFeed(), true) }))
	r.hived("condenser_api.get_feed_history", condNoArgs(func(c *callCtx, w *jw) { writeFeedHistory(w, c, true) }))
	r.hived("condenser_api.get_reward_fund", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		if name, _ := args[0].(string); name != "post" {
			return c.assertFail("fund != nullptr", "Invalid reward fund name")
		}
		writeRewardFund(w, c, true)
		return nil
	})
	optionalBool := func(write func(c *callCtx, w *jw, b bool)) methodFunc {
		return func(c *callCtx, p any, w *jw) *rpcError {
			args, err := c.condArgs(p)
			if err != nil {
				return err
			}
			if len(args) > 1 {
				return c.assertFail("args.size() <= 1", "Expected at most 1 argument, was "+strconv.Itoa(len(args)))
			}
			b := false
			if len(args) == 1 {
				if b, err = c.asBool(args[0]); err != nil {
					return err
				}
			}
			write(c, w, b)
			return nil
		}
	}
	r.hived("condenser_api.get_witness_schedule", optionalBool(func(c *callCtx, w *jw, future bool) { writeWitnessSchedule(w, c, true, future) }))
	r.hived("condenser_api.get_active_witnesses", optionalBool(func(c *callCtx, w *jw, future bool) {
		names := c.n.ch.activeWitnesses(c.head)
		if future {
			names = append(append(names, ""), c.n.ch.activeWitnesses(c.head+uint32(len(c.n.ch.schedule)))...)
		}
		w.arrBegin()
		for _, n := range names {
			w.str(n)
		}
		w.arrEnd()
	}))
	r.hived("condenser_api.get_owner_history", condByAccount(func(ch *chain) []*OwnerHistory { return ch.ohByAccount },
		func(x *OwnerHistory) string { return x.Account }, writeOwnerHistory))
	r.hived("condenser_api.get_conversion_requests", condByAccount(func(ch *chain) []*ConvertRequest { return ch.convByAccount },
		func(x *ConvertRequest) string { return x.Owner }, legacyForm(writeConvert)))
	r.hived("condenser_api.get_collateralized_conversion_requests", condByAccount(func(ch *chain) []*CollateralizedConvertRequest { return ch.collByAccount },
		func(x *CollateralizedConvertRequest) string { return x.Owner }, legacyForm(writeCollateral)))
	r.hived("condenser_api.get_savings_withdraw_from", condByAccount(func(ch *chain) []*SavingsWithdraw { return ch.savByFrom },
		func(x *SavingsWithdraw) string { return x.From }, legacyForm(writeSavings)))
	r.hived("condenser_api.get_savings_withdraw_to", condByAccount(func(ch *chain) []*SavingsWithdraw { return ch.savByTo },
		func(x *SavingsWithdraw) string { return x.To }, legacyForm(writeSavings)))
	r.hived("condenser_api.get_open_orders", condByAccount(func(ch *chain) []*LimitOrder { return ch.orderByAccount },
		func(x *LimitOrder) string { return x.Seller }, legacyForm(writeLimitOrder)))
	r.hived("condenser_api.find_recurrent_transfers", condByAccount(func(ch *chain) []*RecurrentTransfer { return ch.extra.recurrent },
		func(x *RecurrentTransfer) string { return x.From }, func(w *jw, x *RecurrentTransfer) { writeRecurrent(w, x, true) }))
	r.hived("condenser_api.get_recovery_request", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		name, err := c.asName(args[0])
		if err != nil {
			return err
		}
		for _, r := range c.n.ch.recByAccount {
			if r.AccountToRecover == name {
				writeRecoveryRequest(w, r)
				return nil
			}
		}
		w.null()
		return nil
	})
	r.hived("condenser_api.get_escrow", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 2)
		if err != nil {
			return err
		}
		in := &conv{}
		from := get(in, c.asName, args[0])
		id := get(in, c.asU32, args[1])
		if in.err != nil {
			return in.err
		}
		for _, e := range c.n.ch.escByFrom {
			if e.From == from && e.EscrowID == id {
				writeEscrow(w, e, true)
				return nil
			}
		}
		w.null()
		return nil
	})
	r.hived("condenser_api.get_withdraw_routes", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condRange(p, 1, 2)
		if err != nil {
			return err
		}
		name, err := c.asString(args[0])
		if err != nil {
			return err
		}
		kind := 1 // outgoing
		if len(args) == 2 {
			if kind, err = c.enumValue(args[1], []string{"incoming", "outgoing", "all"}, "hive::plugins::database_api::withdraw_route_type", 1); err != nil {
				return err
			}
		}
		w.arrBegin()
		if kind != 0 {
			for _, r := range c.n.ch.routeByWithdraw {
				if r.FromAccount == name {
					writeRoute(w, r)
				}
			}
		}
		if kind != 1 {
			for _, r := range c.n.ch.routeByDestination {
				if r.ToAccount == name {
					writeRoute(w, r)
				}
			}
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.get_expiring_vesting_delegations", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condRange(p, 2, 3)
		if err != nil {
			return err
		}
		in := &conv{}
		account := get(in, c.asName, args[0])
		from := get(in, c.asTime, args[1])
		if in.err != nil {
			return in.err
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
		rows := page(c.n.ch.expByAccount, func(x *DelegationExpiration) int {
			return cmp.Or(strings.Compare(x.Delegator, account), x.Expiration.Compare(from), cmp.Compare(x.ID, 0))
		}, limit)
		w.arrBegin()
		for _, x := range rows {
			if x.Delegator != account {
				break
			}
			writeExpiration(w, x, true)
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.get_witness_by_account", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		name, err := c.asName(args[0])
		if err != nil {
			return err
		}
		if x := c.n.ch.witnessByName[name]; x != nil {
			writeWitness(w, x, true)
		} else {
			w.null()
		}
		return nil
	})
	r.hived("condenser_api.get_witnesses", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		ids, err := c.asArray(args[0])
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, v := range ids {
			id, err := c.asI64(v)
			if err != nil {
				return err
			}
			if x := c.witnessByID(id); x != nil {
				writeWitness(w, x, true)
			} else {
				w.null()
			}
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.get_witnesses_by_vote", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 2)
		if err != nil {
			return err
		}
		in := &conv{}
		start := get(in, c.asName, args[0])
		limit := get(in, c.asU32, args[1])
		if in.err != nil {
			return in.err
		}
		if err := c.checkLimit(limit); err != nil {
			return err
		}
		ch := c.n.ch
		votes, name := int64(math.MaxInt64), ""
		if start != "" {
			x := ch.witnessByName[start]
			if x == nil {
				w.arrBegin()
				w.arrEnd()
				return nil
			}
			votes, name = x.Votes, x.Owner
		}
		rows := page(ch.wByVote, func(x *Witness) int { return cmp.Or(-cmp.Compare(x.Votes, votes), strings.Compare(x.Owner, name)) }, limit)
		w.arrBegin()
		for _, x := range rows {
			writeWitness(w, x, true)
		}
		w.arrEnd()
		return nil
	})
	lookup := func(index func(*chain) []string) methodFunc {
		return func(c *callCtx, p any, w *jw) *rpcError {
			args, err := c.condN(p, 2)
			if err != nil {
				return err
			}
			in := &conv{}
			lower := get(in, c.asName, args[0])
			limit := get(in, c.asU32, args[1])
			if in.err != nil {
				return in.err
			}
			if limit > 1000 {
				return c.assertFail("limit <= 1000", "")
			}
			names := index(c.n.ch)
			i, _ := slicesSearch(names, lower)
			w.arrBegin()
			for ; i < len(names) && limit > 0; i, limit = i+1, limit-1 {
				w.str(names[i])
			}
			w.arrEnd()
			return nil
		}
	}
	r.hived("condenser_api.lookup_accounts", lookup(func(ch *chain) []string {
		out := make([]string, len(ch.acctByName))
		for i, a := range ch.acctByName {
			out[i] = a.Name
		}
		return out
	}))
	r.hived("condenser_api.lookup_witness_accounts", lookup(func(ch *chain) []string {
		out := make([]string, len(ch.wByName))
		for i, x := range ch.wByName {
			out[i] = x.Owner
		}
		return out
	}))
	r.hived("condenser_api.lookup_account_names", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condRange(p, 1, 2)
		if err != nil {
			return err
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
				writeLookupAccount(w, a, delayed)
			} else {
				w.null()
			}
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.get_key_references", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		keys, err := c.stringList(args[0])
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, k := range keys {
			w.arrBegin()
			for _, n := range c.n.ch.extra.keyRefs[k] {
				w.str(n)
			}
			w.arrEnd()
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.find_proposals", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		ids, err := c.asArray(args[0])
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, v := range ids {
			id, err := c.asI64(v)
			if err != nil {
				return err
			}
			if id >= 0 && id < int64(len(c.n.ch.proposals)) {
				x := c.n.ch.proposals[id]
				writeProposal(w, x, statusNames[proposalStatus(x, c.now())], true)
			}
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.list_proposals", func(c *callCtx, p any, w *jw) *rpcError {
		obj, err := c.condProposalArgs(p, 3, 6, true)
		if err != nil {
			return err
		}
		rows, err := c.proposalRows(obj)
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, x := range rows {
			writeProposal(w, x, "", true)
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.list_proposal_votes", func(c *callCtx, p any, w *jw) *rpcError {
		obj, err := c.condProposalArgs(p, 3, 5, false)
		if err != nil {
			return err
		}
		rows, err := c.proposalVoteRows(obj)
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, x := range rows {
			prop := c.n.ch.proposals[x.ProposalID]
			w.objBegin()
			w.knum("id", x.ID)
			w.kstr("voter", x.Voter)
			w.key("proposal")
			writeProposal(w, prop, statusNames[proposalStatus(prop, c.now())], true)
			w.objEnd()
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.is_known_transaction", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		id, err := c.asString(args[0])
		if err != nil {
			return err
		}
		w.boolean(c.knownTransaction(id))
		return nil
	})
	trx := func(n int, fn func(c *callCtx, args []any, t *simTrx, w *jw) *rpcError) methodFunc {
		return func(c *callCtx, p any, w *jw) *rpcError {
			args, err := c.condN(p, n)
			if err != nil {
				return err
			}
			t, err := c.parseTrx(args[0])
			if err != nil {
				return err
			}
			return fn(c, args, t, w)
		}
	}
	r.hived("condenser_api.get_transaction_hex", trx(1, func(c *callCtx, _ []any, t *simTrx, w *jw) *rpcError {
		h, err := c.trxHex(t, true)
		if err != nil {
			return err
		}
		w.str(h)
		return nil
	}))
	r.hived("condenser_api.get_potential_signatures", trx(1, func(c *callCtx, _ []any, t *simTrx, w *jw) *rpcError {
		keys, err := c.potentialKeys(t)
		if err != nil {
			return err
		}
		writeStrings(w, keys)
		return nil
	}))
	r.hived("condenser_api.get_required_signatures", trx(2, func(c *callCtx, args []any, t *simTrx, w *jw) *rpcError {
		avail, err := c.stringList(args[1])
		if err != nil {
			return err
		}
		keys, err := c.requiredKeys(t, avail)
		if err != nil {
			return err
		}
		writeStrings(w, keys)
		return nil
	}))
	r.hived("condenser_api.verify_authority", trx(1, func(c *callCtx, _ []any, t *simTrx, w *jw) *rpcError {
		if err := c.verifyTrx(t); err != nil {
			return err
		}
		w.boolean(true)
		return nil
	}))
	r.hived("condenser_api.verify_account_authority", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condArgs(p)
		if err != nil {
			return err
		}
		if len(args) != 2 && len(args) != 3 {
			return c.assertFail("args.size() == 2 || args.size() == 3", "Expected 2 or 3 argument(s), was "+strconv.Itoa(len(args)))
		}
		var level any
		if len(args) == 3 {
			level = args[2]
		}
		ok, err := c.verifyAccountAuthority(args[0], args[1], level)
		if err != nil {
			return err
		}
		w.boolean(ok)
		return nil
	})
}

func writeStrings(w *jw, vs []string) {
	w.arrBegin()
	for _, v := range vs {
		w.str(v)
	}
	w.arrEnd()
}

// slicesSearch is the index of the first name not before s.
func slicesSearch(names []string, s string) (int, bool) {
	lo, hi := 0, len(names)
	for lo < hi {
		m := (lo + hi) / 2
		if names[m] < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(names) && names[lo] == s
}

func (c *callCtx) witnessByID(id int64) *Witness {
	for _, x := range c.n.ch.witnesses {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// condProposalArgs maps condenser's positional [start, limit, order,
// order_direction, status, last_id] onto database_api's object.
func (c *callCtx) condProposalArgs(p any, lo, hi int, withLastID bool) (map[string]any, *rpcError) {
	args, err := c.condArgs(p)
	if err != nil {
		return nil, err
	}
	if len(args) < lo || len(args) > hi {
		return nil, c.assertFail("args.size() >= "+strconv.Itoa(lo)+" && args.size() <= "+strconv.Itoa(hi),
			"Expected "+strconv.Itoa(lo)+"-"+strconv.Itoa(hi)+" argument, was "+strconv.Itoa(len(args)))
	}
	keys := []string{"start", "limit", "order", "order_direction", "status", "last_id"}
	obj := map[string]any{}
	for i, v := range args {
		if keys[i] == "last_id" && !withLastID {
			break
		}
		obj[keys[i]] = v
	}
	return obj, nil
}

// writeLookupAccount writes condenser's api_account_object
// (lookup_account_names): the legacy account without the extended members.
func writeLookupAccount(w *jw, a *Account, delayed bool) {
	writeAccountAs(w, a, true, delayed, false)
}
