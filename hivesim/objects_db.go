package hivesim

// Writers of the chain's objects, fields in FC_REFLECT order (see hive-api.md §3).
// One writer per object: legacy selects condenser_api's form (asset strings
// "1.000 HIVE" and condenser's extra members), otherwise database_api's (NAI
// assets).

func writeManabar(w *jw, k string, mana int64, last uint32) {
	w.key(k)
	w.objBegin()
	w.ki64("current_mana", mana)
	w.knum("last_update_time", int64(last))
	w.objEnd()
}

func postVotingPower(a *Account) int64 {
	return a.VestingShares.Amount - a.DelegatedVestingShares.Amount + a.ReceivedVestingShares.Amount
}

// writeAccount writes api_account_object (database_api) or, when legacy, condenser's
// extended_account (legacy assets, voting_power, and the extended members).
func writeAccount(w *jw, a *Account, legacy, delayedVotes bool) {
	writeAccountAs(w, a, legacy, delayedVotes, legacy)
}

// writeAccountAs writes an account; extended adds condenser's
// extended_account members (lookup_account_names leaves them out).
func writeAccountAs(w *jw, a *Account, legacy, delayedVotes, extended bool) {
	w.objBegin()
	w.knum("id", a.ID)
	w.kstr("name", a.Name)
	w.key("owner")
	writeAuthority(w, &a.Owner)
	w.key("active")
	writeAuthority(w, &a.Active)
	w.key("posting")
	writeAuthority(w, &a.Posting)
	w.kstr("memo_key", a.MemoKey)
	w.kstr("json_metadata", a.JSONMetadata)
	w.kstr("posting_json_metadata", a.PostingJSONMetadata)
	w.kstr("proxy", a.Proxy)
	if !legacy {
		w.ktime("previous_owner_update", Epoch)
	}
	w.ktime("last_owner_update", a.LastOwnerUpdate)
	w.ktime("last_account_update", a.LastAccountUpdate)
	w.ktime("created", a.Created)
	w.kbool("mined", a.Mined)
	w.kstr("recovery_account", a.RecoveryAccount)
	w.ktime("last_account_recovery", a.LastAccountRecovery)
	w.kstr("reset_account", "null")
	w.knum("comment_count", 0)
	w.knum("lifetime_vote_count", 0)
	w.knum("post_count", int64(a.PostCount))
	w.kbool("can_vote", a.CanVote)
	writeManabar(w, "voting_manabar", a.VotingMana, a.ManaLastUpdate)
	writeManabar(w, "downvote_manabar", a.DownvoteMana, a.ManaLastUpdate)
	if legacy {
		vp := int64(10000)
		if pvp := postVotingPower(a); pvp > 0 {
			vp = min(10000, a.VotingMana/max(pvp/10000, 1))
		}
		w.knum("voting_power", vp)
	}
	w.kasset("balance", a.Balance, legacy)
	w.kasset("savings_balance", a.SavingsBalance, legacy)
	w.kasset("hbd_balance", a.HBDBalance, legacy)
	w.kstr("hbd_seconds", "0")
	w.ktime("hbd_seconds_last_update", a.Created)
	w.ktime("hbd_last_interest_payment", a.Created)
	w.kasset("savings_hbd_balance", a.SavingsHBDBalance, legacy)
	w.kstr("savings_hbd_seconds", "0")
	w.ktime("savings_hbd_seconds_last_update", Epoch)
	w.ktime("savings_hbd_last_interest_payment", Epoch)
	w.knum("savings_withdraw_requests", int64(a.SavingsWithdrawRequests))
	w.kasset("reward_hbd_balance", a.RewardHBDBalance, legacy)
	w.kasset("reward_hive_balance", a.RewardHiveBalance, legacy)
	w.kasset("reward_vesting_balance", a.RewardVestingBalance, legacy)
	w.kasset("reward_vesting_hive", a.RewardVestingHive, legacy)
	w.kasset("vesting_shares", a.VestingShares, legacy)
	w.kasset("delegated_vesting_shares", a.DelegatedVestingShares, legacy)
	w.kasset("received_vesting_shares", a.ReceivedVestingShares, legacy)
	w.kasset("vesting_withdraw_rate", a.VestingWithdrawRate, legacy)
	w.kasset("post_voting_power", asset(postVotingPower(a), VESTS), legacy)
	w.ktime("next_vesting_withdrawal", a.NextVestingWithdrawal)
	w.ki64("withdrawn", a.Withdrawn)
	w.ki64("to_withdraw", a.ToWithdraw)
	w.knum("withdraw_routes", int64(a.WithdrawRoutes))
	w.knum("pending_transfers", int64(a.PendingTransfers))
	w.ki64("curation_rewards", a.CurationRewards)
	w.ki64("posting_rewards", a.PostingRewards)
	w.key("proxied_vsf_votes")
	w.arrBegin()
	for _, v := range a.ProxiedVSFVotes {
		w.i64(v)
	}
	w.arrEnd()
	w.knum("witnesses_voted_for", int64(len(a.WitnessVotes)))
	w.ktime("last_post", a.LastPost)
	w.ktime("last_root_post", a.LastRootPost)
	if !legacy {
		w.ktime("last_post_edit", a.LastPost)
	}
	w.ktime("last_vote_time", a.LastVoteTime)
	w.knum("post_bandwidth", 0)
	w.ki64("pending_claimed_accounts", 0)
	w.knum("open_recurrent_transfers", 0)
	if !legacy {
		w.kbool("is_smt", false)
	}
	if delayedVotes {
		w.kemptyArr("delayed_votes")
	}
	w.ktime("governance_vote_expiration_ts", a.GovernanceVoteExpiration)
	if extended {
		w.kasset("vesting_balance", asset(0, HIVE), true)
		w.ki64("reputation", a.Reputation)
		for _, k := range []string{"transfer_history", "market_history", "post_history", "vote_history", "other_history"} {
			w.kemptyArr(k)
		}
		w.kstrs("witness_votes", a.WitnessVotes)
		w.kemptyArr("tags_usage")
		w.kemptyArr("guest_bloggers")
	}
	w.objEnd()
}

func writeWitness(w *jw, x *Witness, legacy bool) {
	writeValue(w, obj{"id", x.ID, "owner", x.Owner, "created", x.Created, "url", x.URL, "votes", x.Votes,
		"virtual_last_update", x.VirtualLastUpdate, "virtual_position", x.VirtualPosition,
		"virtual_scheduled_time", x.VirtualScheduledTime, "total_missed", x.TotalMissed, "last_aslot", x.LastAslot,
		"last_confirmed_block_num", x.LastConfirmedBlockNum, "pow_worker", uint64(0), "signing_key", x.SigningKey,
		"props", obj{"account_creation_fee", x.AccountCreationFee, "maximum_block_size", x.MaximumBlockSize,
			"hbd_interest_rate", x.HBDInterestRate, "account_subsidy_budget", 797, "account_subsidy_decay", 347321},
		"hbd_exchange_rate", x.HBDExchangeRate, "last_hbd_exchange_update", x.LastHBDExchangeUpdate,
		"last_work", "0000000000000000000000000000000000000000000000000000000000000000",
		"running_version", x.RunningVersion, "hardfork_version_vote", hardforkVersion, "hardfork_time_vote", x.HardforkTimeVote,
		"available_witness_account_subsidies", int64(0)}, legacy)
}

// The writers other files name.

func writeOwnerHistory(w *jw, x *OwnerHistory)       { writeObject(w, x, false) }
func writeRecoveryRequest(w *jw, x *RecoveryRequest) { writeObject(w, x, false) }
func writeRoute(w *jw, x *WithdrawRoute)             { writeObject(w, x, false) }
func writeEscrow(w *jw, x *Escrow, legacy bool)      { writeObject(w, x, legacy) }
func writeSavings(w *jw, x *SavingsWithdraw, legacy bool) {
	writeObject(w, x, legacy)
}
func writeDelegation(w *jw, x *VestingDelegation, legacy bool) { writeObject(w, x, legacy) }
func writeExpiration(w *jw, x *DelegationExpiration, legacy bool) {
	writeObject(w, x, legacy)
}
func writeConvert(w *jw, x *ConvertRequest, legacy bool) { writeObject(w, x, legacy) }
func writeCollateral(w *jw, x *CollateralizedConvertRequest, legacy bool) {
	writeObject(w, x, legacy)
}

func writeRecurrent(w *jw, x *RecurrentTransfer, legacy bool) {
	writeValue(w, append(fields(x), "pair_id", 0), legacy)
}

func writeLimitOrder(w *jw, x *LimitOrder, legacy bool) {
	o := fields(x)
	if legacy { // condenser's api_limit_order_object (get_open_orders)
		o = append(o, "real_price", realPrice(x.SellPrice), "rewarded", false)
	}
	writeValue(w, o, legacy)
}

func writeProposal(w *jw, x *Proposal, status string, legacy bool) {
	o := obj{"id", x.ID, "proposal_id", x.ID, "creator", x.Creator, "receiver", x.Receiver, "start_date", x.StartDate,
		"end_date", x.EndDate, "daily_pay", x.DailyPay, "subject", x.Subject, "permlink", x.Permlink, "total_votes", x.TotalVotes}
	if status != "" { // condenser's list_proposal_votes leaves it out
		o = append(o, "status", status)
	}
	writeValue(w, o, legacy)
}

// dbForm and legacyForm bind a writer's legacy flag.
func dbForm[T any](write func(*jw, *T, bool)) func(*jw, *T) {
	return func(w *jw, x *T) { write(w, x, false) }
}

func legacyForm[T any](write func(*jw, *T, bool)) func(*jw, *T) {
	return func(w *jw, x *T) { write(w, x, true) }
}
