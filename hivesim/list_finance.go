package hivesim

import (
	"cmp"
	"math/bits"
	"time"
)

// database_api list methods for balances in motion and the internal market.

const noAccount = "Given account does not exist."

func listEscrows() methodFunc {
	return dbList("escrows", dbForm(writeEscrow),
		ord("by_from_id", func(ch *chain) []*Escrow { return ch.escByFrom },
			kName(func(x *Escrow) string { return x.From }), kU32(func(x *Escrow) uint32 { return x.EscrowID })),
		ord3("by_ratification_deadline", func(ch *chain) []*Escrow { return ch.escByRatification },
			"by_ratification_deadline start requires 3 values. (bool, time_point_sec, escrow_id_type)",
			kBool(func(x *Escrow) bool { return x.ToApproved && x.AgentApproved }),
			kTime(func(x *Escrow) time.Time { return x.RatificationDeadline }), kID(func(x *Escrow) int64 { return x.ID })))
}

func listWithdrawVestingRoutes() methodFunc {
	return dbList("routes", writeRoute,
		ord("by_withdraw_route", func(ch *chain) []*WithdrawRoute { return ch.routeByWithdraw },
			kName(func(x *WithdrawRoute) string { return x.FromAccount }), kName(func(x *WithdrawRoute) string { return x.ToAccount })),
		ord("by_destination", func(ch *chain) []*WithdrawRoute { return ch.routeByDestination },
			kName(func(x *WithdrawRoute) string { return x.ToAccount }), kID(func(x *WithdrawRoute) int64 { return x.ID })))
}

func listSavingsWithdrawals() methodFunc {
	from := kName(func(x *SavingsWithdraw) string { return x.From })
	complete := kTime(func(x *SavingsWithdraw) time.Time { return x.Complete })
	requestID := kU32(func(x *SavingsWithdraw) uint32 { return x.RequestID })
	return dbList("withdrawals", dbForm(writeSavings),
		ord("by_from_id", func(ch *chain) []*SavingsWithdraw { return ch.savByFrom }, from, requestID),
		ord3("by_complete_from_id", func(ch *chain) []*SavingsWithdraw { return ch.savByComplete },
			"by_complete_from_id start requires 3 values. (time_point_sec, account_name_type, uint32_t)", complete, from, requestID),
		ord3("by_to_complete", func(ch *chain) []*SavingsWithdraw { return ch.savByTo },
			"by_to_complete start requires 3 values. (account_name_type, time_point_sec, savings_withdraw_id_type",
			kName(func(x *SavingsWithdraw) string { return x.To }), complete, kID(func(x *SavingsWithdraw) int64 { return x.ID })))
}

// "by_delegation" is list_vesting_delegations' one order; condenser's
// get_vesting_delegations pages it too.
func byDelegationOrder() ordering[VestingDelegation] {
	return ord("by_delegation", func(ch *chain) []*VestingDelegation { return ch.delByDelegation },
		kAccount(func(x *VestingDelegation) string { return x.Delegator }, true, "delegator != nullptr", noAccount),
		kAccount(func(x *VestingDelegation) string { return x.Delegatee }, false, "delegatee != nullptr", noAccount))
}

func listVestingDelegations() methodFunc {
	return dbList("delegations", dbForm(writeDelegation), byDelegationOrder())
}

// expirationKey is the (expiration, id) tail of both expiration orders.
func expirationKey() (keyPart[DelegationExpiration], keyPart[DelegationExpiration]) {
	return kTime(func(x *DelegationExpiration) time.Time { return x.Expiration }),
		kID(func(x *DelegationExpiration) int64 { return x.ID })
}

// byAccountExpirationOrder is list_vesting_delegation_expirations'
// (delegator id, expiration, id) order; condenser's
// get_expiring_vesting_delegations pages it too, as hived's does.
func byAccountExpirationOrder() ordering[DelegationExpiration] {
	expiration, id := expirationKey()
	return ord3("by_account_expiration", func(ch *chain) []*DelegationExpiration { return ch.expByAccount },
		"by_account_expiration start requires 3 values. (account_name_type, time_point_sec, vesting_delegation_expiration_id_type",
		kAccount(func(x *DelegationExpiration) string { return x.Delegator }, false, "delegator != nullptr", noAccount), expiration, id)
}

func listVestingDelegationExpirations() methodFunc {
	expiration, id := expirationKey()
	return dbList("delegations", dbForm(writeExpiration),
		ord("by_expiration", func(ch *chain) []*DelegationExpiration { return ch.expByExpiration }, expiration, id),
		byAccountExpirationOrder())
}

func listHBDConversionRequests() methodFunc {
	return dbList("requests", dbForm(writeConvert),
		ord("by_conversion_date", func(ch *chain) []*ConvertRequest { return ch.convByDate },
			kTime(func(x *ConvertRequest) time.Time { return x.ConversionDate }), kID(func(x *ConvertRequest) int64 { return x.ID })),
		ord("by_account", func(ch *chain) []*ConvertRequest { return ch.convByAccount },
			kAccount(func(x *ConvertRequest) string { return x.Owner }, false, "owner != nullptr", noAccount),
			kU32(func(x *ConvertRequest) uint32 { return x.RequestID })))
}

func listCollateralizedConversionRequests() methodFunc {
	type request = CollateralizedConvertRequest
	return dbList("requests", dbForm(writeCollateral),
		ord("by_conversion_date", func(ch *chain) []*request { return ch.collByDate },
			kTime(func(x *request) time.Time { return x.ConversionDate }), kID(func(x *request) int64 { return x.ID })),
		ord("by_account", func(ch *chain) []*request { return ch.collByAccount },
			kAccount(func(x *request) string { return x.Owner }, false, "owner != nullptr", noAccount),
			kU32(func(x *request) uint32 { return x.RequestID })))
}

// comparePrice is hived's price operator< as a three-way comparison: by base symbol,
// quote symbol, then base/quote ratio compared with 128-bit cross products.
func comparePrice(a, b Price) int {
	if c := cmp.Or(cmp.Compare(a.Base.Symbol, b.Base.Symbol), cmp.Compare(a.Quote.Symbol, b.Quote.Symbol)); c != 0 {
		return c
	}
	h1, l1 := bits.Mul64(uint64(a.Base.Amount), uint64(b.Quote.Amount))
	h2, l2 := bits.Mul64(uint64(b.Base.Amount), uint64(a.Quote.Amount))
	return U128{h1, l1}.Cmp(U128{h2, l2})
}

func listLimitOrders() methodFunc {
	return dbList("orders", dbForm(writeLimitOrder),
		// by_price is (sell_price descending, id ascending).
		ord("by_price", func(ch *chain) []*LimitOrder { return ch.orderByPrice },
			part((*tuple).price, func(x *LimitOrder, v Price) int { return -comparePrice(x.SellPrice, v) }),
			kID(func(x *LimitOrder) int64 { return x.ID })),
		ord("by_account", func(ch *chain) []*LimitOrder { return ch.orderByAccount },
			kName(func(x *LimitOrder) string { return x.Seller }), kU32(func(x *LimitOrder) uint32 { return x.OrderID })))
}
