package hivesim

// database_api getters of chain-wide state and transaction helpers.

// object registers a database_api-style method: params are an object ({}
// or null), and the answer a value for writeValue. The answer may return
// its error or raise it with need.
func (r registry) object(name string, answer func(c *callCtx, o map[string]any) (any, *rpcError)) {
	r.hivedR(name, func(c *callCtx, p any, w *jw) {
		writeValue(w, need(answer(c, need(c.asObject(p)))), false)
	})
}

// getter registers a method of no arguments.
func (r registry) getter(name string, value func(c *callCtx) any) {
	r.object(name, func(c *callCtx, _ map[string]any) (any, *rpcError) { return value(c), nil })
}

// raisingServe is a twin's serve that raises its errors (see need).
func raisingServe(serve func(c *callCtx, args []any, w *jw, legacy bool)) func(*callCtx, []any, *jw, bool) *rpcError {
	return func(c *callCtx, args []any, w *jw, legacy bool) *rpcError {
		return raising(func(c *callCtx, _ any, w *jw) { serve(c, args, w, legacy) })(c, nil, w)
	}
}

// raiseIf aborts a raising call with err, if there is one.
func raiseIf(err *rpcError) {
	if err != nil {
		panic(abortCall{err})
	}
}

// registerStateMethods adds the database_api getters to the method table.
func registerStateMethods(r registry) {
	r.object("database_api.get_active_witnesses", func(c *callCtx, o map[string]any) (any, *rpcError) {
		v := obj{"witnesses", c.n.ch.activeWitnesses(c.head)}
		if need(c.asBool(o["include_future"])) {
			v = append(v, "future_witnesses", c.n.ch.activeWitnesses(c.head+uint32(len(c.n.ch.schedule))))
		}
		return v, nil
	})
	r.object("database_api.get_witness_schedule", func(c *callCtx, o map[string]any) (any, *rpcError) {
		future := need(c.asBool(o["include_future"]))
		return func(w *jw) { writeWitnessSchedule(w, c, false, future) }, nil
	})
	r.getter("database_api.get_config", func(*callCtx) any { return func(w *jw) { writeConfig(w, false) } })
	r.getter("database_api.get_version", func(*callCtx) any { return writeVersion })
	r.getter("database_api.get_hardfork_properties", func(c *callCtx) any { return func(w *jw) { writeHardforkProps(w, c.n.ch) } })
	r.getter("database_api.get_current_price_feed", func(c *callCtx) any { return c.n.ch.medianFeed() })
	r.getter("database_api.get_feed_history", func(c *callCtx) any { return func(w *jw) { writeFeedHistory(w, c, false) } })
	r.getter("database_api.get_reward_funds", func(c *callCtx) any {
		return obj{"funds", []any{func(w *jw) { writeRewardFund(w, c, false) }}}
	})
	r.object("database_api.get_order_book", func(c *callCtx, o map[string]any) (any, *rpcError) {
		limit := need(c.asU32(o["limit"]))
		return func(w *jw) { writeOrderBook(w, c, int(limit), false) }, c.checkLimit(limit)
	})
	r.object("database_api.get_comment_pending_payouts", getCommentPendingPayouts)
	r.object("database_api.is_known_transaction", func(c *callCtx, o map[string]any) (any, *rpcError) {
		return obj{"is_known", c.knownTransaction(need(c.asString(o["id"])))}, nil
	})
	// The transaction helpers read the transaction in "trx" first.
	trx := func(name string, answer func(c *callCtx, o map[string]any, t *simTrx) (any, *rpcError)) {
		r.object(name, func(c *callCtx, o map[string]any) (any, *rpcError) { return answer(c, o, need(c.parseTrx(o["trx"]))) })
	}
	trx("database_api.get_transaction_hex", func(c *callCtx, _ map[string]any, t *simTrx) (any, *rpcError) {
		return obj{"hex", need(c.trxHex(t, false))}, nil
	})
	trx("database_api.get_potential_signatures", func(c *callCtx, _ map[string]any, t *simTrx) (any, *rpcError) {
		return obj{"keys", need(c.potentialKeys(t))}, nil
	})
	trx("database_api.get_required_signatures", func(c *callCtx, o map[string]any, t *simTrx) (any, *rpcError) {
		return obj{"keys", need(c.requiredKeys(t, need(c.stringList(o["available_keys"]))))}, nil
	})
	trx("database_api.verify_authority", func(c *callCtx, _ map[string]any, t *simTrx) (any, *rpcError) {
		return obj{"valid", true}, c.verifyTrx(t)
	})
	r.object("database_api.verify_account_authority", func(c *callCtx, o map[string]any) (any, *rpcError) {
		return obj{"valid", need(c.verifyAccountAuthority(o["account"], o["signers"], o["level"]))}, nil
	})
	r.object("database_api.verify_signatures", verifySignatures)
}

// stringList reads a JSON array of strings.
func (c *callCtx) stringList(v any) ([]string, *rpcError) {
	arr, err := c.asArray(orEmptyArray(v))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(arr))
	for i, x := range arr {
		if out[i], err = c.asString(x); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var authorityLevelNames = []string{"active", "owner", "posting"}

// verifyAccountAuthority is database_api.verify_account_authority's check.
func (c *callCtx) verifyAccountAuthority(accountV, signersV, levelV any) (bool, *rpcError) {
	in := &conv{}
	account, signers := get(in, c.asName, accountV), get(in, c.stringList, signersV)
	lv := get(in, func(v any) (int, *rpcError) {
		return c.enumValue(v, authorityLevelNames, "hive::plugins::database_api::authority_level", 0)
	}, levelV)
	if in.err != nil {
		return false, in.err
	}
	if c.n.ch.byName[account] == nil {
		return false, c.assertFail("account != nullptr", "no such account")
	}
	level := map[int]authLevel{0: levelActive, 1: levelOwner, 2: levelPosting}[lv]
	return c.accountAuthorized(account, level, signers), nil
}

func verifySignatures(c *callCtx, o map[string]any) (any, *rpcError) {
	sigs := need(c.stringList(o["signatures"]))
	seen := map[string]bool{}
	for _, s := range sigs {
		if seen[s] {
			return nil, c.fcError(codeServerError, 3030000, "tx_duplicate_sig", "duplicate signature included",
				"Duplicate signature detected", "")
		}
		seen[s] = true
	}
	// No key is recovered from a signature: valid only when nothing is required.
	valid := true
	for _, k := range []string{"required_owner", "required_active", "required_posting", "required_witness", "required_other"} {
		if a, _ := o[k].([]any); len(a) > 0 {
			valid = false
		}
	}
	return obj{"valid", valid}, nil
}

// knownTransaction is hived's is_known_transaction: a transaction in a
// block that has not expired at the head block.
func (c *callCtx) knownTransaction(id string) bool {
	t := c.n.ch.extra.txByID[id]
	return t != nil && t.Block <= c.head && t.Expiration.After(c.now())
}

func getCommentPendingPayouts(c *callCtx, o map[string]any) (any, *rpcError) {
	arr := need(c.asArray(orEmptyArray(o["comments"])))
	if len(arr) > 1000 {
		return nil, c.assertFail("args.comments.size() <= DATABASE_API_SINGLE_QUERY_LIMIT", "")
	}
	var infos []obj
	for _, v := range arr {
		t := c.tuple(v)
		author, permlink := t.name(0), ""
		if x, ok := t.get(1); ok {
			permlink, _ = x.(string)
		}
		if t.err != nil {
			return nil, t.err
		}
		info := obj{"author", author, "permlink", permlink}
		if cm := c.n.ch.social.byKey[author+"/"+permlink]; cm != nil && !cm.CashoutTime.Equal(MaxTime) {
			info = append(info, "cashout_info", obj{"total_vote_weight", cm.TotalVoteWeight, "total_payout_value", cm.TotalPayout,
				"curator_payout_value", cm.CuratorPayout, "max_accepted_payout", asset(1_000_000_000, HBD), "author_rewards", cm.AuthorRewards,
				"children_abs_rshares", int64(0), "net_rshares", cm.NetRshares, "abs_rshares", cm.AbsRshares, "vote_rshares", cm.VoteRshares,
				"net_votes", cm.NetVotes, "last_payout", cm.LastPayout, "cashout_time", cm.CashoutTime, "max_cashout_time", MaxTime,
				"percent_hbd", cm.PercentHBD, "reward_weight", 10000, "allow_replies", true, "allow_votes", true,
				"allow_curation_rewards", true, "was_voted_on", len(c.n.ch.social.votesByComment[cm.ID]) > 0})
		}
		infos = append(infos, info)
	}
	return obj{"cashout_infos", infos}, nil
}
