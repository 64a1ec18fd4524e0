package hivesim

// database_api getters of chain-wide state and transaction helpers.

// noArgs accepts database_api's empty params ({} or null).
func (c *callCtx) noArgs(p any) *rpcError {
	_, err := c.asObject(p)
	return err
}

// registerStateMethods adds the database_api getters to the method table.
func registerStateMethods(r registry) {
	r.hived("database_api.get_active_witnesses", func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		o := get(in, c.asObject, p)
		future := get(in, c.asBool, o["include_future"])
		if in.err != nil {
			return in.err
		}
		w.objBegin()
		w.kstrs("witnesses", c.n.ch.activeWitnesses(c.head))
		if future {
			w.kstrs("future_witnesses", c.n.ch.activeWitnesses(c.head+uint32(len(c.n.ch.schedule))))
		}
		w.objEnd()
		return nil
	})
	r.hived("database_api.get_witness_schedule", func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		o := get(in, c.asObject, p)
		future := get(in, c.asBool, o["include_future"])
		if in.err != nil {
			return in.err
		}
		writeWitnessSchedule(w, c, false, future)
		return nil
	})
	simple := func(name string, write func(c *callCtx, w *jw)) {
		r.hived(name, func(c *callCtx, p any, w *jw) *rpcError {
			if err := c.noArgs(p); err != nil {
				return err
			}
			write(c, w)
			return nil
		})
	}
	simple("database_api.get_config", func(c *callCtx, w *jw) { writeConfig(w, false) })
	simple("database_api.get_version", func(c *callCtx, w *jw) { writeVersion(w) })
	simple("database_api.get_hardfork_properties", func(c *callCtx, w *jw) { writeHardforkProps(w, c.n.ch) })
	simple("database_api.get_current_price_feed", func(c *callCtx, w *jw) { writePrice(w, c.n.ch.medianFeed(), false) })
	simple("database_api.get_feed_history", func(c *callCtx, w *jw) { writeFeedHistory(w, c, false) })
	simple("database_api.get_reward_funds", func(c *callCtx, w *jw) {
		w.objBegin()
		w.key("funds")
		w.arrBegin()
		writeRewardFund(w, c, false)
		w.arrEnd()
		w.objEnd()
	})
	r.hived("database_api.get_order_book", func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		o := get(in, c.asObject, p)
		limit := get(in, c.asU32, o["limit"])
		if in.err != nil {
			return in.err
		}
		if err := c.checkLimit(limit); err != nil {
			return err
		}
		writeOrderBook(w, c, int(limit), false)
		return nil
	})
	r.hived("database_api.get_comment_pending_payouts", getCommentPendingPayouts)
	r.hived("database_api.is_known_transaction", func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		o := get(in, c.asObject, p)
		id := get(in, c.asString, o["id"])
		if in.err != nil {
			return in.err
		}
		w.objBegin()
		w.kbool("is_known", c.knownTransaction(id))
		w.objEnd()
		return nil
	})
	trxArg := func(name string, fn func(c *callCtx, o map[string]any, t *simTrx, w *jw) *rpcError) {
		r.hived(name, func(c *callCtx, p any, w *jw) *rpcError {
			o, err := c.asObject(p)
			if err != nil {
				return err
			}
			t, err := c.parseTrx(o["trx"])
			if err != nil {
				return err
			}
			return fn(c, o, t, w)
		})
	}
	trxArg("database_api.get_transaction_hex", func(c *callCtx, _ map[string]any, t *simTrx, w *jw) *rpcError {
		h, err := c.trxHex(t, false)
		if err != nil {
			return err
		}
		w.objBegin()
		w.kstr("hex", h)
		w.objEnd()
		return nil
	})
	trxArg("database_api.get_potential_signatures", func(c *callCtx, _ map[string]any, t *simTrx, w *jw) *rpcError {
		keys, err := c.potentialKeys(t)
		if err != nil {
			return err
		}
		w.objBegin()
		w.kstrs("keys", keys)
		w.objEnd()
		return nil
	})
	trxArg("database_api.get_required_signatures", func(c *callCtx, o map[string]any, t *simTrx, w *jw) *rpcError {
		avail, err := c.stringList(o["available_keys"])
		if err != nil {
			return err
		}
		keys, err := c.requiredKeys(t, avail)
		if err != nil {
			return err
		}
		w.objBegin()
		w.kstrs("keys", keys)
		w.objEnd()
		return nil
	})
	trxArg("database_api.verify_authority", func(c *callCtx, _ map[string]any, t *simTrx, w *jw) *rpcError {
		if err := c.verifyTrx(t); err != nil {
			return err
		}
		w.objBegin()
		w.kbool("valid", true)
		w.objEnd()
		return nil
	})
	r.hived("database_api.verify_account_authority", func(c *callCtx, p any, w *jw) *rpcError {
		o, err := c.asObject(p)
		if err != nil {
			return err
		}
		ok, err := c.verifyAccountAuthority(o["account"], o["signers"], o["level"])
		if err != nil {
			return err
		}
		w.objBegin()
		w.kbool("valid", ok)
		w.objEnd()
		return nil
	})
	r.hived("database_api.verify_signatures", verifySignatures)
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
	account, err := c.asName(accountV)
	if err != nil {
		return false, err
	}
	signers, err := c.stringList(signersV)
	if err != nil {
		return false, err
	}
	lv, err := c.enumValue(levelV, authorityLevelNames, "hive::plugins::database_api::authority_level", 0)
	if err != nil {
		return false, err
	}
	if c.n.ch.byName[account] == nil {
		return false, c.assertFail("account != nullptr", "no such account")
	}
	level := map[int]authLevel{0: levelActive, 1: levelOwner, 2: levelPosting}[lv]
	return c.accountAuthorized(account, level, signers), nil
}

func verifySignatures(c *callCtx, p any, w *jw) *rpcError {
	o, err := c.asObject(p)
	if err != nil {
		return err
	}
	sigs, err := c.stringList(o["signatures"])
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, s := range sigs {
		if seen[s] {
			return c.fcError(codeServerError, 3030000, "tx_duplicate_sig", "duplicate signature included", "Duplicate signature detected", "")
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
	w.objBegin()
	w.kbool("valid", valid)
	w.objEnd()
	return nil
}

// knownTransaction is hived's is_known_transaction: a transaction in a
// block that has not expired at the head block.
func (c *callCtx) knownTransaction(id string) bool {
	t := c.n.ch.extra.txByID[id]
	return t != nil && t.Block <= c.head && t.Expiration.After(c.now())
}

func getCommentPendingPayouts(c *callCtx, p any, w *jw) *rpcError {
	in := &conv{}
	o := get(in, c.asObject, p)
	arr := get(in, c.asArray, orEmptyArray(o["comments"]))
	if in.err != nil {
		return in.err
	}
	if len(arr) > 1000 {
		return c.assertFail("args.comments.size() <= DATABASE_API_SINGLE_QUERY_LIMIT", "")
	}
	w.objBegin()
	w.key("cashout_infos")
	w.arrBegin()
	for _, v := range arr {
		t := c.tuple(v)
		author, permlink := t.name(0), ""
		if x, ok := t.get(1); ok {
			permlink, _ = x.(string)
		}
		if t.err != nil {
			return t.err
		}
		w.objBegin()
		w.kstr("author", author)
		w.kstr("permlink", permlink)
		if cm := c.n.ch.social.byKey[author+"/"+permlink]; cm != nil && !cm.CashoutTime.Equal(MaxTime) {
			w.key("cashout_info")
			w.objBegin()
			w.ku64("total_vote_weight", cm.TotalVoteWeight)
			w.kasset("total_payout_value", cm.TotalPayout, false)
			w.kasset("curator_payout_value", cm.CuratorPayout, false)
			w.kasset("max_accepted_payout", asset(1_000_000_000, HBD), false)
			w.ki64("author_rewards", cm.AuthorRewards)
			w.ki64("children_abs_rshares", 0)
			w.ki64("net_rshares", cm.NetRshares)
			w.ki64("abs_rshares", cm.AbsRshares)
			w.ki64("vote_rshares", cm.VoteRshares)
			w.knum("net_votes", int64(cm.NetVotes))
			w.ktime("last_payout", cm.LastPayout)
			w.ktime("cashout_time", cm.CashoutTime)
			w.ktime("max_cashout_time", MaxTime)
			w.knum("percent_hbd", int64(cm.PercentHBD))
			w.knum("reward_weight", 10000)
			w.kbool("allow_replies", true)
			w.kbool("allow_votes", true)
			w.kbool("allow_curation_rewards", true)
			w.kbool("was_voted_on", len(c.n.ch.social.votesByComment[cm.ID]) > 0)
			w.objEnd()
		}
		w.objEnd()
	}
	w.arrEnd()
	w.objEnd()
	return nil
}
