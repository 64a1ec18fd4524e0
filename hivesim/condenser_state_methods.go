package hivesim

import (
	"cmp"
	"encoding/json"
	"math"
	"sort"
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
	return c.condBetween(p, lo, hi, "arguments")
}

func (c *callCtx) condBetween(p any, lo, hi int, noun string) ([]any, *rpcError) {
	args, err := c.condArgs(p)
	if err == nil && (len(args) < lo || len(args) > hi) {
		err = c.assertFail("args.size() >= "+strconv.Itoa(lo)+" && args.size() <= "+strconv.Itoa(hi),
			"Expected "+strconv.Itoa(lo)+"-"+strconv.Itoa(hi)+" "+noun+", was "+strconv.Itoa(len(args)))
	}
	return args, err
}

// condNoArgs serves a condenser method of zero arguments.
func condNoArgs(write func(c *callCtx, w *jw)) methodFunc {
	return raising(func(c *callCtx, p any, w *jw) {
		need(c.condN(p, 0))
		write(c, w)
	})
}

// condByAccount serves a condenser method of one account argument listing
// that account's objects. check is how an unknown account is treated: the
// condenser methods that call one of database_api's five resolving finds
// refuse it as that find does (hived's condenser_api.cpp).
func condByAccount[T any](check ownerCheck, index func(*chain) []*T, owner func(*T) string, write func(*jw, *T)) func(c *callCtx, p any, w *jw) {
	return func(c *callCtx, p any, w *jw) {
		name := need(c.asName(need(c.condN(p, 1))[0]))
		abortOn(check.refuse(c, name))
		writeRows(w, ownedBy(index(c.n.ch), owner, name), write)
	}
}

// opt is args[i] converted by f, or def when absent.
func opt[T any](args []any, i int, f func(any) (T, *rpcError), def T) T {
	if i < len(args) {
		return need(f(args[i]))
	}
	return def
}

// orNull writes x by write, or null when x is nil.
func orNull[T any](w *jw, x *T, write func(*jw, *T)) {
	if x == nil {
		w.null()
	} else {
		write(w, x)
	}
}

func registerCondenserStateMethods(r registry) {
	for name, write := range map[string]func(c *callCtx, w *jw){
		"get_account_count": func(c *callCtx, w *jw) { w.num(int64(len(c.n.ch.accounts))) },
		"get_witness_count": func(c *callCtx, w *jw) { w.num(int64(len(c.n.ch.witnesses))) },
		"get_chain_properties": func(c *callCtx, w *jw) {
			var b jw
			writeChainProps(&b, "x", true)
			w.raw(b.b[len(`"x":`):])
		},
		"get_config":           func(c *callCtx, w *jw) { writeConfig(w, true) },
		"get_version":          func(c *callCtx, w *jw) { writeVersion(w) },
		"get_hardfork_version": func(c *callCtx, w *jw) { w.str(hardforkVersion) },
		"get_next_scheduled_hardfork": func(c *callCtx, w *jw) {
			w.val(obj{"hf_version", hardforkVersion, "live_time", c.n.ch.hardforkTimes()[27]})
		},
		"get_current_median_history_price": func(c *callCtx, w *jw) { writePrice(w, c.n.ch.medianFeed(), true) },
		"get_feed_history":                 func(c *callCtx, w *jw) { writeFeedHistory(w, c, true) },
	} {
		r.hived("condenser_api."+name, condNoArgs(write))
	}
	r.hivedR("condenser_api.get_reward_fund", func(c *callCtx, p any, w *jw) {
		if name, _ := need(c.condN(p, 1))[0].(string); name != "post" {
			need(0, c.assertFail("fund != nullptr", "Invalid reward fund name"))
		}
		writeRewardFund(w, c, true)
	})
	optionalBool := func(write func(c *callCtx, w *jw, b bool)) func(c *callCtx, p any, w *jw) {
		return func(c *callCtx, p any, w *jw) {
			args := need(c.condArgs(p))
			if len(args) > 1 {
				need(0, c.assertFail("args.size() <= 1", "Expected at most 1 argument, was "+strconv.Itoa(len(args))))
			}
			write(c, w, opt(args, 0, c.asBool, false))
		}
	}
	r.hivedR("condenser_api.get_witness_schedule", optionalBool(func(c *callCtx, w *jw, future bool) { writeWitnessSchedule(w, c, true, future) }))
	r.hivedR("condenser_api.get_active_witnesses", optionalBool(func(c *callCtx, w *jw, future bool) {
		names := c.n.ch.activeWitnesses(c.head)
		if future {
			names = append(append(names, ""), c.n.ch.activeWitnesses(c.head+uint32(len(c.n.ch.schedule)))...)
		}
		w.val(names)
	}))
	r.hivedR("condenser_api.get_owner_history", condByAccount(ownerCheck{}, func(ch *chain) []*OwnerHistory { return ch.ohByAccount },
		func(x *OwnerHistory) string { return x.Account }, writeOwnerHistory))
	r.hivedR("condenser_api.get_conversion_requests", condByAccount(ownerMustExist("owner != nullptr"), func(ch *chain) []*ConvertRequest { return ch.convByAccount },
		func(x *ConvertRequest) string { return x.Owner }, legacyForm(writeConvert)))
	r.hivedR("condenser_api.get_collateralized_conversion_requests", condByAccount(ownerMustExist("owner != nullptr"),
		func(ch *chain) []*CollateralizedConvertRequest { return ch.collByAccount },
		func(x *CollateralizedConvertRequest) string { return x.Owner }, legacyForm(writeCollateral)))
	r.hivedR("condenser_api.get_savings_withdraw_from", condByAccount(ownerCheck{}, func(ch *chain) []*SavingsWithdraw { return ch.savByFrom },
		func(x *SavingsWithdraw) string { return x.From }, legacyForm(writeSavings)))
	r.hivedR("condenser_api.get_savings_withdraw_to", condByAccount(ownerCheck{}, func(ch *chain) []*SavingsWithdraw { return ch.savByTo },
		func(x *SavingsWithdraw) string { return x.To }, legacyForm(writeSavings)))
	r.hivedR("condenser_api.get_open_orders", condByAccount(ownerCheck{}, func(ch *chain) []*LimitOrder { return ch.orderByAccount },
		func(x *LimitOrder) string { return x.Seller }, legacyForm(writeLimitOrder)))
	r.hivedR("condenser_api.find_recurrent_transfers", condByAccount(ownerCheck{"from_account != nullptr", "Given 'from' account does not exist."},
		func(ch *chain) []*RecurrentTransfer { return ch.extra.recurrent },
		func(x *RecurrentTransfer) string { return x.From }, legacyForm(writeRecurrent)))
	r.hivedR("condenser_api.get_recovery_request", func(c *callCtx, p any, w *jw) {
		name := need(c.asName(need(c.condN(p, 1))[0]))
		orNull(w, find(c.n.ch.recByAccount, func(x *RecoveryRequest) bool { return x.AccountToRecover == name }), writeRecoveryRequest)
	})
	r.hivedR("condenser_api.get_escrow", func(c *callCtx, p any, w *jw) {
		args := need(c.condN(p, 2))
		from, id := need(c.asName(args[0])), need(c.asU32(args[1]))
		orNull(w, find(c.n.ch.escByFrom, func(e *Escrow) bool { return e.From == from && e.EscrowID == id }), legacyForm(writeEscrow))
	})
	r.hivedR("condenser_api.get_withdraw_routes", func(c *callCtx, p any, w *jw) {
		args := need(c.condRange(p, 1, 2))
		name := need(c.asString(args[0]))
		kind := opt(args, 1, func(v any) (int, *rpcError) {
			return c.enumValue(v, []string{"incoming", "outgoing", "all"}, "hive::plugins::database_api::withdraw_route_type", 1)
		}, 1) // outgoing
		w.arrBegin()
		for _, r := range c.n.ch.routeByWithdraw {
			if kind != 0 && r.FromAccount == name {
				writeRoute(w, r)
			}
		}
		for _, r := range c.n.ch.routeByDestination {
			if kind != 1 && r.ToAccount == name {
				writeRoute(w, r)
			}
		}
		w.arrEnd()
	})
	r.hivedR("condenser_api.get_expiring_vesting_delegations", func(c *callCtx, p any, w *jw) {
		// hived's condenser_api.cpp: list_vesting_delegation_expirations
		// by_account_expiration from [account, start, 0], cut at the
		// first row of another delegator.
		args := need(c.condArgs(p))
		if len(args) != 2 && len(args) != 3 {
			need(0, c.assertFail("args.size() == 2 || args.size() == 3", "Expected 2-3 arguments, was "+strconv.Itoa(len(args))))
		}
		account := need(c.asName(args[0]))
		limit := opt(args, 2, c.asU32, 100)
		need(0, c.checkLimit(limit))
		order := byAccountExpirationOrder()
		rows := need(order.rowsFrom(c, []any{args[0], args[1], json.Number("0")}, limit))
		w.arrBegin()
		for _, x := range rows {
			if x.Delegator != account {
				break
			}
			writeExpiration(w, x, true)
		}
		w.arrEnd()
	})
	r.hivedR("condenser_api.get_witness_by_account", func(c *callCtx, p any, w *jw) {
		orNull(w, c.n.ch.witnessByName[need(c.asName(need(c.condN(p, 1))[0]))], legacyForm(writeWitness))
	})
	r.hivedR("condenser_api.get_witnesses", func(c *callCtx, p any, w *jw) {
		ids := need(c.asArray(need(c.condN(p, 1))[0]))
		w.arrBegin()
		for _, v := range ids {
			id := need(c.asI64(v))
			orNull(w, find(c.n.ch.witnesses, func(x *Witness) bool { return x.ID == id }), legacyForm(writeWitness))
		}
		w.arrEnd()
	})
	r.hivedR("condenser_api.get_witnesses_by_vote", func(c *callCtx, p any, w *jw) {
		args := need(c.condN(p, 2))
		start, limit := need(c.asName(args[0])), need(c.asU32(args[1]))
		need(0, c.checkLimit(limit))
		ch := c.n.ch
		votes, name := int64(math.MaxInt64), ""
		if start != "" {
			x := ch.witnessByName[start]
			if x == nil {
				limit = 0
			} else {
				votes, name = x.Votes, x.Owner
			}
		}
		rows := page(ch.wByVote, func(x *Witness) int { return cmp.Or(-cmp.Compare(x.Votes, votes), strings.Compare(x.Owner, name)) }, limit)
		listOf(w, rows, func(x *Witness) any { return func(w *jw) { writeWitness(w, x, true) } })
	})
	lookup := func(index func(*chain) []string) func(c *callCtx, p any, w *jw) {
		return func(c *callCtx, p any, w *jw) {
			args := need(c.condN(p, 2))
			lower, limit := need(c.asName(args[0])), need(c.asU32(args[1]))
			if limit > 1000 {
				need(0, c.assertFail("limit <= 1000", ""))
			}
			names := index(c.n.ch)
			i := sort.SearchStrings(names, lower)
			w.val(names[i:min(len(names), i+int(limit))])
		}
	}
	r.hivedR("condenser_api.lookup_accounts", lookup(func(ch *chain) []string {
		return mapRows(ch.acctByName, func(a *Account) string { return a.Name })
	}))
	r.hivedR("condenser_api.lookup_witness_accounts", lookup(func(ch *chain) []string {
		return mapRows(ch.wByName, func(x *Witness) string { return x.Owner })
	}))
	r.hivedR("condenser_api.lookup_account_names", func(c *callCtx, p any, w *jw) {
		args := need(c.condRange(p, 1, 2))
		names := need(c.asArray(args[0]))
		delayed := opt(args, 1, c.asBool, true)
		w.arrBegin()
		for _, v := range names {
			orNull(w, c.n.ch.byName[need(c.asName(v))], func(w *jw, a *Account) { writeAccountAs(w, a, true, delayed, false) })
		}
		w.arrEnd()
	})
	r.hivedR("condenser_api.get_key_references", func(c *callCtx, p any, w *jw) {
		keys := need(c.stringList(need(c.condN(p, 1))[0]))
		listOf(w, keys, func(k string) any { return c.n.ch.extra.keyRefs[k] })
	})
	r.hivedR("condenser_api.find_proposals", func(c *callCtx, p any, w *jw) {
		ids := need(c.asArray(need(c.condN(p, 1))[0]))
		w.arrBegin()
		for _, v := range ids {
			if id := need(c.asI64(v)); id >= 0 && id < int64(len(c.n.ch.proposals)) {
				x := c.n.ch.proposals[id]
				writeProposal(w, x, statusNames[proposalStatus(x, c.now())], true)
			}
		}
		w.arrEnd()
	})
	r.hivedR("condenser_api.list_proposals", func(c *callCtx, p any, w *jw) {
		rows := need(c.proposalRows(c.condProposalArgs(p, 3, 6, true)))
		listOf(w, rows, func(x *Proposal) any { return func(w *jw) { writeProposal(w, x, "", true) } })
	})
	r.hivedR("condenser_api.list_proposal_votes", func(c *callCtx, p any, w *jw) {
		rows := need(c.proposalVoteRows(c.condProposalArgs(p, 3, 5, false)))
		listOf(w, rows, func(x *ProposalVote) any {
			prop := c.n.ch.proposals[x.ProposalID]
			return obj{"id", x.ID, "voter", x.Voter, "proposal", func(w *jw) {
				writeProposal(w, prop, statusNames[proposalStatus(prop, c.now())], true)
			}}
		})
	})
	r.hivedR("condenser_api.is_known_transaction", func(c *callCtx, p any, w *jw) {
		w.boolean(c.knownTransaction(need(c.asString(need(c.condN(p, 1))[0]))))
	})
	trx := func(n int, fn func(c *callCtx, args []any, t *simTrx) any) func(c *callCtx, p any, w *jw) {
		return func(c *callCtx, p any, w *jw) {
			args := need(c.condN(p, n))
			w.val(fn(c, args, need(c.parseTrx(args[0]))))
		}
	}
	r.hivedR("condenser_api.get_transaction_hex", trx(1, func(c *callCtx, _ []any, t *simTrx) any { return need(c.trxHex(t, true)) }))
	r.hivedR("condenser_api.get_potential_signatures", trx(1, func(c *callCtx, _ []any, t *simTrx) any { return need(c.potentialKeys(t)) }))
	r.hivedR("condenser_api.get_required_signatures", trx(2, func(c *callCtx, args []any, t *simTrx) any {
		return need(c.requiredKeys(t, need(c.stringList(args[1]))))
	}))
	r.hivedR("condenser_api.verify_authority", trx(1, func(c *callCtx, _ []any, t *simTrx) any { return need(true, c.verifyTrx(t)) }))
	r.hivedR("condenser_api.verify_account_authority", func(c *callCtx, p any, w *jw) {
		args := need(c.condArgs(p))
		if len(args) != 2 && len(args) != 3 {
			need(0, c.assertFail("args.size() == 2 || args.size() == 3", "Expected 2 or 3 argument(s), was "+strconv.Itoa(len(args))))
		}
		w.boolean(need(c.verifyAccountAuthority(args[0], args[1], opt(args, 2, func(v any) (any, *rpcError) { return v, nil }, nil))))
	})
}

func writeStrings(w *jw, vs []string) { w.val(vs) }

// condProposalArgs maps condenser's positional [start, limit, order,
// order_direction, status, last_id] onto database_api's object.
func (c *callCtx) condProposalArgs(p any, lo, hi int, withLastID bool) map[string]any {
	args := need(c.condBetween(p, lo, hi, "argument"))
	obj := map[string]any{}
	for i, k := range []string{"start", "limit", "order", "order_direction", "status", "last_id"}[:len(args)] {
		if k != "last_id" || withLastID {
			obj[k] = args[i]
		}
	}
	return obj
}
