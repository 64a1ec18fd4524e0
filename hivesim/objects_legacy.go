package hivesim

// Writers of condenser_api's objects with legacy assets ("1.000 HIVE"), for
// the database_api objects whose writers in objects_db.go write NAI assets
// only.

func writeWitnessAs(w *jw, x *Witness, legacy bool) {
	w.objBegin()
	w.knum("id", x.ID)
	w.kstr("owner", x.Owner)
	w.ktime("created", x.Created)
	w.kstr("url", x.URL)
	w.ki64("votes", x.Votes)
	w.kstr("virtual_last_update", x.VirtualLastUpdate.String())
	w.kstr("virtual_position", x.VirtualPosition.String())
	w.kstr("virtual_scheduled_time", x.VirtualScheduledTime.String())
	w.knum("total_missed", int64(x.TotalMissed))
	w.ku64("last_aslot", x.LastAslot)
	w.ku64("last_confirmed_block_num", x.LastConfirmedBlockNum)
	w.ku64("pow_worker", 0)
	w.kstr("signing_key", x.SigningKey)
	w.key("props")
	w.objBegin()
	w.kasset("account_creation_fee", x.AccountCreationFee, legacy)
	w.knum("maximum_block_size", int64(x.MaximumBlockSize))
	w.knum("hbd_interest_rate", int64(x.HBDInterestRate))
	w.knum("account_subsidy_budget", 797)
	w.knum("account_subsidy_decay", 347321)
	w.objEnd()
	w.key("hbd_exchange_rate")
	writePrice(w, x.HBDExchangeRate, legacy)
	w.ktime("last_hbd_exchange_update", x.LastHBDExchangeUpdate)
	w.kstr("last_work", "0000000000000000000000000000000000000000000000000000000000000000")
	w.kstr("running_version", x.RunningVersion)
	w.kstr("hardfork_version_vote", hardforkVersion)
	w.ktime("hardfork_time_vote", x.HardforkTimeVote)
	w.ki64("available_witness_account_subsidies", 0)
	w.objEnd()
}

func writeLegacyEscrow(w *jw, x *Escrow) {
	w.objBegin()
	w.knum("id", x.ID)
	w.knum("escrow_id", int64(x.EscrowID))
	w.kstr("from", x.From)
	w.kstr("to", x.To)
	w.kstr("agent", x.Agent)
	w.ktime("ratification_deadline", x.RatificationDeadline)
	w.ktime("escrow_expiration", x.EscrowExpiration)
	w.kasset("hbd_balance", x.HBDBalance, true)
	w.kasset("hive_balance", x.HiveBalance, true)
	w.kasset("pending_fee", x.PendingFee, true)
	w.kbool("to_approved", x.ToApproved)
	w.kbool("agent_approved", x.AgentApproved)
	w.kbool("disputed", x.Disputed)
	w.objEnd()
}

func writeLegacySavings(w *jw, x *SavingsWithdraw) {
	w.objBegin()
	w.knum("id", x.ID)
	w.kstr("from", x.From)
	w.kstr("to", x.To)
	w.kstr("memo", x.Memo)
	w.knum("request_id", int64(x.RequestID))
	w.kasset("amount", x.Amount, true)
	w.ktime("complete", x.Complete)
	w.objEnd()
}

func writeLegacyExpiration(w *jw, x *DelegationExpiration) {
	w.objBegin()
	w.knum("id", x.ID)
	w.kstr("delegator", x.Delegator)
	w.kasset("vesting_shares", x.VestingShares, true)
	w.ktime("expiration", x.Expiration)
	w.objEnd()
}

func writeLegacyConvert(w *jw, x *ConvertRequest) {
	w.objBegin()
	w.knum("id", x.ID)
	w.kstr("owner", x.Owner)
	w.knum("requestid", int64(x.RequestID))
	w.kasset("amount", x.Amount, true)
	w.ktime("conversion_date", x.ConversionDate)
	w.objEnd()
}

func writeLegacyCollateral(w *jw, x *CollateralizedConvertRequest) {
	w.objBegin()
	w.knum("id", x.ID)
	w.kstr("owner", x.Owner)
	w.knum("requestid", int64(x.RequestID))
	w.kasset("collateral_amount", x.CollateralAmount, true)
	w.kasset("converted_amount", x.ConvertedAmount, true)
	w.ktime("conversion_date", x.ConversionDate)
	w.objEnd()
}

// writeLegacyProposal writes condenser's api_proposal_object; status is
// written when not "".
func writeLegacyProposal(w *jw, x *Proposal, status string) {
	w.objBegin()
	w.knum("id", x.ID)
	w.knum("proposal_id", x.ID)
	w.kstr("creator", x.Creator)
	w.kstr("receiver", x.Receiver)
	w.ktime("start_date", x.StartDate)
	w.ktime("end_date", x.EndDate)
	w.kasset("daily_pay", x.DailyPay, true)
	w.kstr("subject", x.Subject)
	w.kstr("permlink", x.Permlink)
	w.ku64("total_votes", x.TotalVotes)
	if status != "" {
		w.kstr("status", status)
	}
	w.objEnd()
}

// writeOpenOrder writes condenser's api_limit_order_object (get_open_orders).
func writeOpenOrder(w *jw, x *LimitOrder) {
	w.objBegin()
	w.knum("id", x.ID)
	w.ktime("created", x.Created)
	w.ktime("expiration", x.Expiration)
	w.kstr("seller", x.Seller)
	w.knum("orderid", int64(x.OrderID))
	w.ki64("for_sale", x.ForSale)
	w.key("sell_price")
	writePrice(w, x.SellPrice, true)
	w.kstr("real_price", realPrice(x.SellPrice))
	w.kbool("rewarded", false)
	w.objEnd()
}
