package hivesim

// Writers of the chain's objects, fields in FC_REFLECT order (see hive-api.md §3).
// One writer per object: legacy selects condenser_api's form (asset strings
// "1.000 HIVE" and condenser's extra members), otherwise database_api's (NAI
// assets).

// manabar is a manabar object: its mana now and its last update.
func manabar(mana int64, last uint32) obj {
	return obj{"current_mana", mana, "last_update_time", last}
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
	o := obj{"id", a.ID, "name", a.Name, "owner", a.Owner, "active", a.Active, "posting", a.Posting,
		"memo_key", a.MemoKey, "json_metadata", a.JSONMetadata, "posting_json_metadata", a.PostingJSONMetadata,
		"proxy", a.Proxy}
	if !legacy {
		o = append(o, "previous_owner_update", Epoch)
	}
	o = append(o, "last_owner_update", a.LastOwnerUpdate, "last_account_update", a.LastAccountUpdate,
		"created", a.Created, "mined", a.Mined, "recovery_account", a.RecoveryAccount,
		"last_account_recovery", a.LastAccountRecovery, "reset_account", "null", "comment_count", 0,
		"lifetime_vote_count", 0, "post_count", a.PostCount, "can_vote", a.CanVote,
		"voting_manabar", manabar(a.VotingMana, a.ManaLastUpdate),
		"downvote_manabar", manabar(a.DownvoteMana, a.ManaLastUpdate))
	if legacy {
		vp := int64(10000)
		if pvp := postVotingPower(a); pvp > 0 {
			vp = min(10000, a.VotingMana/max(pvp/10000, 1))
		}
		o = append(o, "voting_power", vp)
	}
	o = append(o, "balance", a.Balance, "savings_balance", a.SavingsBalance, "hbd_balance", a.HBDBalance,
		"hbd_seconds", "0", "hbd_seconds_last_update", a.Created, "hbd_last_interest_payment", a.Created,
		"savings_hbd_balance", a.SavingsHBDBalance, "savings_hbd_seconds", "0",
		"savings_hbd_seconds_last_update", Epoch, "savings_hbd_last_interest_payment", Epoch,
		"savings_withdraw_requests", a.SavingsWithdrawRequests, "reward_hbd_balance", a.RewardHBDBalance,
		"reward_hive_balance", a.RewardHiveBalance, "reward_vesting_balance", a.RewardVestingBalance,
		"reward_vesting_hive", a.RewardVestingHive, "vesting_shares", a.VestingShares,
		"delegated_vesting_shares", a.DelegatedVestingShares, "received_vesting_shares", a.ReceivedVestingShares,
		"vesting_withdraw_rate", a.VestingWithdrawRate, "post_voting_power", asset(postVotingPower(a), VESTS),
		"next_vesting_withdrawal", a.NextVestingWithdrawal, "withdrawn", a.Withdrawn, "to_withdraw", a.ToWithdraw,
		"withdraw_routes", a.WithdrawRoutes, "pending_transfers", a.PendingTransfers,
		"curation_rewards", a.CurationRewards, "posting_rewards", a.PostingRewards,
		"proxied_vsf_votes", a.ProxiedVSFVotes, "witnesses_voted_for", len(a.WitnessVotes),
		"last_post", a.LastPost, "last_root_post", a.LastRootPost)
	if !legacy {
		o = append(o, "last_post_edit", a.LastPost)
	}
	o = append(o, "last_vote_time", a.LastVoteTime, "post_bandwidth", 0, "pending_claimed_accounts", int64(0),
		"open_recurrent_transfers", 0)
	if !legacy {
		o = append(o, "is_smt", false)
	}
	if delayedVotes {
		o = append(o, "delayed_votes", []any{})
	}
	o = append(o, "governance_vote_expiration_ts", a.GovernanceVoteExpiration)
	if extended {
		o = append(o, "vesting_balance", legacyAsset(asset(0, HIVE)), "reputation", a.Reputation,
			"transfer_history", []any{}, "market_history", []any{}, "post_history", []any{}, "vote_history", []any{},
			"other_history", []any{}, "witness_votes", a.WitnessVotes, "tags_usage", []any{}, "guest_bloggers", []any{})
	}
	writeValue(w, o, legacy)
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
