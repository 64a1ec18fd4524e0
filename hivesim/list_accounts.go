package hivesim

import (
	"cmp"
	"strings"
	"time"
)

// database_api list methods for witnesses and accounts.

func listWitnesses(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*Witness
	switch a.order {
	case byName:
		name, err := c.asName(a.start)
		if err != nil {
			return err
		}
		rows = page(ch.wByName, func(x *Witness) int { return strings.Compare(x.Owner, name) }, a.limit)
	case byVoteName:
		t := c.tuple(a.start)
		votes, name := t.i64(0), t.name(1)
		if t.err != nil {
			return t.err
		}
		rows = page(ch.wByVote, func(x *Witness) int {
			return cmp.Or(-cmp.Compare(x.Votes, votes), strings.Compare(x.Owner, name))
		}, a.limit)
	case byScheduleTime:
		t := c.tuple(a.start)
		vst, name := t.u128(0), t.name(1)
		if t.err != nil {
			return t.err
		}
		wit := ch.witnessByName[name]
		if wit == nil {
			return c.unknownKey()
		}
		rows = page(ch.wBySchedule, func(x *Witness) int {
			return cmp.Or(x.VirtualScheduledTime.Cmp(vst), cmp.Compare(x.ID, wit.ID))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "witnesses", rows, dbForm(writeWitness))
	return nil
}

func listWitnessVotes(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*WitnessVote
	switch a.order {
	case byAccountWitness, byWitnessAccount:
		t := c.tuple(a.start)
		first, second := t.name(0), t.name(1)
		if t.err != nil {
			return t.err
		}
		if a.order == byAccountWitness {
			rows = page(ch.wvByAccount, func(x *WitnessVote) int {
				return cmp.Or(strings.Compare(x.Account, first), strings.Compare(x.Witness, second))
			}, a.limit)
		} else {
			rows = page(ch.wvByWitness, func(x *WitnessVote) int {
				return cmp.Or(strings.Compare(x.Witness, first), strings.Compare(x.Account, second))
			}, a.limit)
		}
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "votes", rows, writeWitnessVote)
	return nil
}

func listAccounts(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.listArgs(p, true)
	if err != nil {
		return err
	}
	delayed := true
	if v, ok := a.obj["delayed_votes_active"]; ok {
		if delayed, err = c.asBool(v); err != nil {
			return err
		}
	}
	if err := c.checkLimit(a.limit); err != nil {
		return err
	}
	ch := c.n.ch
	var rows []*Account
	switch a.order {
	case byName:
		name, err := c.asName(a.start)
		if err != nil {
			return err
		}
		rows = page(ch.acctByName, func(x *Account) int { return strings.Compare(x.Name, name) }, a.limit)
	case byProxy:
		t := c.tuple(a.start)
		proxy, name := t.name(0), t.name(1)
		if t.err != nil {
			return t.err
		}
		proxyID := int64(-1) // no proxy sorts first
		if proxy != "" {
			if proxyID, err = c.existingAccountID(proxy, "proxy != nullptr", "Given proxy account does not exist."); err != nil {
				return err
			}
		}
		rows = page(ch.acctByProxy, func(x *Account) int {
			return cmp.Or(cmp.Compare(ch.accountID(x.Proxy), proxyID), strings.Compare(x.Name, name))
		}, a.limit)
	case byNextVestingWithdrawal:
		t := c.tuple(a.start)
		when, name := t.time(0), t.name(1)
		if t.err != nil {
			return t.err
		}
		rows = page(ch.acctByNVW, func(x *Account) int {
			return cmp.Or(x.NextVestingWithdrawal.Compare(when), strings.Compare(x.Name, name))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "accounts", rows, func(w *jw, x *Account) { writeAccount(w, x, false, delayed) })
	return nil
}

func findAccounts(c *callCtx, p any, w *jw) *rpcError {
	o, err := c.asObject(p)
	if err != nil {
		return err
	}
	arr, err := c.asArray(orEmptyArray(o["accounts"]))
	if err != nil {
		return err
	}
	names := make([]string, len(arr))
	for i, v := range arr {
		if names[i], err = c.asName(v); err != nil {
			return err
		}
	}
	delayed := true
	if v, ok := o["delayed_votes_active"]; ok {
		if delayed, err = c.asBool(v); err != nil {
			return err
		}
	}
	if len(names) == 0 || len(names) > 1000 {
		return c.assertFail("0 < args.accounts.size() && args.accounts.size() <= DATABASE_API_SINGLE_QUERY_LIMIT",
			"list of accounts to find not filled or too big")
	}
	var rows []*Account
	for _, n := range names {
		if acct := c.n.ch.byName[n]; acct != nil {
			rows = append(rows, acct)
		}
	}
	writeList(w, "accounts", rows, func(w *jw, x *Account) { writeAccount(w, x, false, delayed) })
	return nil
}

// orEmptyArray maps a missing member to an empty array (fc keeps the default).
func orEmptyArray(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}

func listOwnerHistories(c *callCtx, p any, w *jw) *rpcError {
	a, err := c.listArgs(p, false)
	if err != nil {
		return err
	}
	if err := c.checkLimit(a.limit); err != nil {
		return err
	}
	t := c.tuple(a.start)
	name, when := t.name(0), t.time(1)
	if t.err != nil {
		return t.err
	}
	rows := page(c.n.ch.ohByAccount, func(x *OwnerHistory) int {
		return cmp.Or(strings.Compare(x.Account, name), x.LastValidTime.Compare(when))
	}, a.limit)
	writeList(w, "owner_auths", rows, writeOwnerHistory)
	return nil
}

func listAccountRecoveryRequests(c *callCtx, p any, w *jw) *rpcError {
	ch := c.n.ch
	return listAccountOrTime(c, p, w, byExpiration, ch.recByAccount, ch.recByExpiration,
		func(x *RecoveryRequest) (string, time.Time) { return x.AccountToRecover, x.Expires }, writeRecoveryRequest)
}

func listChangeRecoveryRequests(c *callCtx, p any, w *jw) *rpcError {
	ch := c.n.ch
	return listAccountOrTime(c, p, w, byEffectiveDate, ch.crByAccount, ch.crByEffective,
		func(x *ChangeRecoveryRequest) (string, time.Time) { return x.AccountToRecover, x.EffectiveOn }, writeChangeRecovery)
}

func listDeclineVotingRights(c *callCtx, p any, w *jw) *rpcError {
	ch := c.n.ch
	return listAccountOrTime(c, p, w, byEffectiveDate, ch.dvrByAccount, ch.dvrByEffective,
		func(x *DeclineVotingRightsRequest) (string, time.Time) { return x.Account, x.EffectiveDate }, writeDecline)
}

// listAccountOrTime serves the request lists hived indexes two ways:
// by_account (start: a bare account name) and timeOrder (start: [time,
// account]). keys returns a row's account and time; the result is
// {"requests": [...]}.
func listAccountOrTime[T any](c *callCtx, p any, w *jw, timeOrder int, byAcc, byTime []*T,
	keys func(*T) (string, time.Time), write func(*jw, *T)) *rpcError {
	a, err := c.orderedListArgs(p)
	if err != nil {
		return err
	}
	var rows []*T
	switch a.order {
	case byAccount:
		name, err := c.asName(a.start)
		if err != nil {
			return err
		}
		rows = page(byAcc, func(x *T) int { acc, _ := keys(x); return strings.Compare(acc, name) }, a.limit)
	case timeOrder:
		t := c.tuple(a.start)
		when, name := t.time(0), t.name(1)
		if t.err != nil {
			return t.err
		}
		rows = page(byTime, func(x *T) int {
			acc, at := keys(x)
			return cmp.Or(at.Compare(when), strings.Compare(acc, name))
		}, a.limit)
	default:
		return c.unknownOrder(a.order)
	}
	writeList(w, "requests", rows, write)
	return nil
}
