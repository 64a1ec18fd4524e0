package hivesim

import (
	"cmp"
	"math/bits"
	"strings"
	"time"
)

// database_api list methods for balances in motion and the internal market.

func listEscrows(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*Escrow
	switch a.order {
	case byFromID:
		t := c.tuple(a.start)
		from, id := t.name(0), t.u32(1)
		if t.err != nil {
			return t.err
		}
		rows = page(ch.escByFrom, func(x *Escrow) int {
			return cmp.Or(strings.Compare(x.From, from), cmp.Compare(x.EscrowID, id))
		}, a.limit)
	case byRatificationDeadline:
		t := c.tuple(a.start)
		t.need3("by_ratification_deadline start requires 3 values. (bool, time_point_sec, escrow_id_type)")
		approved, when, id := t.boolean(0), t.time(1), int64(t.u64(2))
		if t.err != nil {
			return t.err
		}
		rows = page(ch.escByRatification, func(x *Escrow) int {
			return cmp.Or(cmpBool(x.ToApproved && x.AgentApproved, approved),
				x.RatificationDeadline.Compare(when), cmp.Compare(x.ID, id))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "escrows", rows, dbForm(writeEscrow))
	return nil
}

func listWithdrawVestingRoutes(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*WithdrawRoute
	switch a.order {
	case byWithdrawRoute:
		t := c.tuple(a.start)
		from, to := t.name(0), t.name(1)
		if t.err != nil {
			return t.err
		}
		rows = page(ch.routeByWithdraw, func(x *WithdrawRoute) int {
			return cmp.Or(strings.Compare(x.FromAccount, from), strings.Compare(x.ToAccount, to))
		}, a.limit)
	case byDestination:
		t := c.tuple(a.start)
		to, id := t.name(0), int64(t.u64(1))
		if t.err != nil {
			return t.err
		}
		rows = page(ch.routeByDestination, func(x *WithdrawRoute) int {
			return cmp.Or(strings.Compare(x.ToAccount, to), cmp.Compare(x.ID, id))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "routes", rows, writeRoute)
	return nil
}

func listSavingsWithdrawals(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*SavingsWithdraw
	switch a.order {
	case byFromID:
		t := c.tuple(a.start)
		from, rid := t.name(0), t.u32(1)
		if t.err != nil {
			return t.err
		}
		rows = page(ch.savByFrom, func(x *SavingsWithdraw) int {
			return cmp.Or(strings.Compare(x.From, from), cmp.Compare(x.RequestID, rid))
		}, a.limit)
	case byCompleteFromID:
		t := c.tuple(a.start)
		t.need3("by_complete_from_id start requires 3 values. (time_point_sec, account_name_type, uint32_t)")
		when, from, rid := t.time(0), t.name(1), t.u32(2)
		if t.err != nil {
			return t.err
		}
		rows = page(ch.savByComplete, func(x *SavingsWithdraw) int {
			return cmp.Or(x.Complete.Compare(when), strings.Compare(x.From, from), cmp.Compare(x.RequestID, rid))
		}, a.limit)
	case byToComplete:
		t := c.tuple(a.start)
		t.need3("by_to_complete start requires 3 values. (account_name_type, time_point_sec, savings_withdraw_id_type")
		to, when, id := t.name(0), t.time(1), int64(t.u64(2))
		if t.err != nil {
			return t.err
		}
		rows = page(ch.savByTo, func(x *SavingsWithdraw) int {
			return cmp.Or(strings.Compare(x.To, to), x.Complete.Compare(when), cmp.Compare(x.ID, id))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "withdrawals", rows, dbForm(writeSavings))
	return nil
}

// delegationsFrom runs list_vesting_delegations by_delegation; condenser's
// get_vesting_delegations reuses it.
func (c *callCtx) delegationsFrom(start any, limit uint32) ([]*VestingDelegation, *rpcError) {
	ch := c.n.ch
	t := c.tuple(start)
	delegator, delegatee := t.name(0), t.name(1)
	if t.err != nil {
		return nil, t.err
	}
	fromID, err := c.existingAccountID(delegator, "delegator != nullptr", "Given account does not exist.")
	if err != nil {
		return nil, err
	}
	toID := int64(-1)
	if delegatee != "" {
		if toID, err = c.existingAccountID(delegatee, "delegatee != nullptr", "Given account does not exist."); err != nil {
			return nil, err
		}
	}
	return page(ch.delByDelegation, func(x *VestingDelegation) int {
		return cmp.Or(cmp.Compare(ch.accountID(x.Delegator), fromID), cmp.Compare(ch.accountID(x.Delegatee), toID))
	}, limit), nil
}

func listVestingDelegations(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	if a.order != byDelegation {
		return c.unknownOrder(a.order)
	}
	rows, err := c.delegationsFrom(a.start, a.limit)
	if err != nil {
		return err
	}
	writeList(w, "delegations", rows, dbForm(writeDelegation))
	return nil
}

func listVestingDelegationExpirations(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*DelegationExpiration
	switch a.order {
	case byExpiration:
		t := c.tuple(a.start)
		when, id := t.time(0), int64(t.u64(1))
		if t.err != nil {
			return t.err
		}
		rows = page(ch.expByExpiration, func(x *DelegationExpiration) int {
			return cmp.Or(x.Expiration.Compare(when), cmp.Compare(x.ID, id))
		}, a.limit)
	case byAccountExpiration:
		t := c.tuple(a.start)
		t.need3("by_account_expiration start requires 3 values. (account_name_type, time_point_sec, vesting_delegation_expiration_id_type")
		name, when, id := t.name(0), t.time(1), int64(t.u64(2))
		if t.err != nil {
			return t.err
		}
		delegatorID := int64(-1)
		if name != "" {
			if delegatorID, err = c.existingAccountID(name, "delegator != nullptr", "Given account does not exist."); err != nil {
				return err
			}
		}
		rows = page(ch.expByAccount, func(x *DelegationExpiration) int {
			return cmp.Or(cmp.Compare(ch.accountID(x.Delegator), delegatorID), x.Expiration.Compare(when), cmp.Compare(x.ID, id))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "delegations", rows, dbForm(writeExpiration))
	return nil
}

// conversionKey decodes the start of the two conversion-request lists; by_account keys
// by owner account id ("" = before every account).
func (c *callCtx) conversionKey(a *listArgs) (when time.Time, ownerID int64, second uint64, err *rpcError) {
	t := c.tuple(a.start)
	switch a.order {
	case byConversionDate:
		when, second = t.time(0), t.u64(1)
		return when, 0, second, t.err
	case byAccount:
		owner, rid := t.name(0), t.u32(1)
		if t.err != nil {
			return when, 0, 0, t.err
		}
		ownerID = -1
		if owner != "" {
			if ownerID, err = c.existingAccountID(owner, "owner != nullptr", "Given account does not exist."); err != nil {
				return when, 0, 0, err
			}
		}
		return when, ownerID, uint64(rid), nil
	}
	return when, 0, 0, c.unknownOrder(a.order)
}

func listHBDConversionRequests(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	when, ownerID, second, err := c.conversionKey(a)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*ConvertRequest
	if a.order == byConversionDate {
		rows = page(ch.convByDate, func(x *ConvertRequest) int {
			return cmp.Or(x.ConversionDate.Compare(when), cmp.Compare(x.ID, int64(second)))
		}, a.limit)
	} else {
		rows = page(ch.convByAccount, func(x *ConvertRequest) int {
			return cmp.Or(cmp.Compare(ch.accountID(x.Owner), ownerID), cmp.Compare(uint64(x.RequestID), second))
		}, a.limit)
	}
	writeList(w, "requests", rows, dbForm(writeConvert))
	return nil
}

func listCollateralizedConversionRequests(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	when, ownerID, second, err := c.conversionKey(a)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*CollateralizedConvertRequest
	if a.order == byConversionDate {
		rows = page(ch.collByDate, func(x *CollateralizedConvertRequest) int {
			return cmp.Or(x.ConversionDate.Compare(when), cmp.Compare(x.ID, int64(second)))
		}, a.limit)
	} else {
		rows = page(ch.collByAccount, func(x *CollateralizedConvertRequest) int {
			return cmp.Or(cmp.Compare(ch.accountID(x.Owner), ownerID), cmp.Compare(uint64(x.RequestID), second))
		}, a.limit)
	}
	writeList(w, "requests", rows, dbForm(writeCollateral))
	return nil
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

func listLimitOrders(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*LimitOrder
	switch a.order {
	case byPrice:
		t := c.tuple(a.start)
		price, id := t.price(0), int64(t.u64(1))
		if t.err != nil {
			return t.err
		}
		// by_price is (sell_price descending, id ascending).
		rows = page(ch.orderByPrice, func(x *LimitOrder) int {
			return cmp.Or(-comparePrice(x.SellPrice, price), cmp.Compare(x.ID, id))
		}, a.limit)
	case byAccount:
		t := c.tuple(a.start)
		seller, orderID := t.name(0), t.u32(1)
		if t.err != nil {
			return t.err
		}
		rows = page(ch.orderByAccount, func(x *LimitOrder) int {
			return cmp.Or(strings.Compare(x.Seller, seller), cmp.Compare(x.OrderID, orderID))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "orders", rows, dbForm(writeLimitOrder))
	return nil
}
