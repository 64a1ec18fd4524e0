package hivesim

import (
	"cmp"
	"time"
)

// database_api list methods for witnesses and accounts.

func listWitnesses() methodFunc {
	return dbList("witnesses", dbForm(writeWitness),
		bare("by_name", func(ch *chain) []*Witness { return ch.wByName }, kName(func(x *Witness) string { return x.Owner })),
		ord("by_vote_name", func(ch *chain) []*Witness { return ch.wByVote },
			part((*tuple).i64, func(x *Witness, v int64) int { return -cmp.Compare(x.Votes, v) }),
			kName(func(x *Witness) string { return x.Owner })),
		ord("by_schedule_time", func(ch *chain) []*Witness { return ch.wBySchedule },
			part((*tuple).u128, func(x *Witness, v U128) int { return x.VirtualScheduledTime.Cmp(v) }),
			func(t *tuple, i int) func() (func(*Witness) int, *rpcError) {
				name := t.name(i)
				return func() (func(*Witness) int, *rpcError) {
					wit := t.c.n.ch.witnessByName[name]
					if wit == nil {
						return nil, t.c.unknownKey()
					}
					return func(x *Witness) int { return cmp.Compare(x.ID, wit.ID) }, nil
				}
			}))
}

func listWitnessVotes() methodFunc {
	account := kName(func(x *WitnessVote) string { return x.Account })
	witness := kName(func(x *WitnessVote) string { return x.Witness })
	return dbList("votes", dbForm(writeObject[WitnessVote]),
		ord("by_account_witness", func(ch *chain) []*WitnessVote { return ch.wvByAccount }, account, witness),
		ord("by_witness_account", func(ch *chain) []*WitnessVote { return ch.wvByWitness }, witness, account))
}

// delayedVotes reads find_accounts' and list_accounts' delayed_votes_active
// (default true) and picks the account writer.
func (c *callCtx) delayedVotes(o map[string]any) (func(*jw, *Account), *rpcError) {
	delayed, err := true, (*rpcError)(nil)
	if v, ok := o["delayed_votes_active"]; ok {
		delayed, err = c.asBool(v)
	}
	return func(w *jw, x *Account) { writeAccount(w, x, false, delayed) }, err
}

func listAccounts() methodFunc {
	name := kName(func(x *Account) string { return x.Name })
	return dbListWith("accounts", func(c *callCtx, a *listArgs) (func(*jw, *Account), *rpcError) { return c.delayedVotes(a.obj) },
		bare("by_name", func(ch *chain) []*Account { return ch.acctByName }, name),
		ord("by_proxy", func(ch *chain) []*Account { return ch.acctByProxy }, // no proxy sorts first
			kAccount(func(x *Account) string { return x.Proxy }, false, "proxy != nullptr", "Given proxy account does not exist."), name),
		ord("by_next_vesting_withdrawal", func(ch *chain) []*Account { return ch.acctByNVW },
			kTime(func(x *Account) time.Time { return x.NextVestingWithdrawal }), name))
}

var findAccounts = raising(func(c *callCtx, p any, w *jw) {
	o := need(c.asObject(p))
	arr := need(c.asArray(orEmptyArray(o["accounts"])))
	names := make([]string, len(arr))
	for i, v := range arr {
		names[i] = need(c.asName(v))
	}
	write := need(c.delayedVotes(o))
	if len(names) == 0 || len(names) > 1000 {
		raiseIf(c.assertFail("0 < args.accounts.size() && args.accounts.size() <= DATABASE_API_SINGLE_QUERY_LIMIT",
			"list of accounts to find not filled or too big"))
	}
	var rows []*Account
	for _, n := range names {
		if acct := c.n.ch.byName[n]; acct != nil {
			rows = append(rows, acct)
		}
	}
	writeList(w, "accounts", rows, write)
})

// orEmptyArray maps a missing member to an empty array (fc keeps the default).
func orEmptyArray(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}

func listOwnerHistories() methodFunc {
	return dbList("owner_auths", writeOwnerHistory, ord("not_set", func(ch *chain) []*OwnerHistory { return ch.ohByAccount },
		kName(func(x *OwnerHistory) string { return x.Account }),
		kTime(func(x *OwnerHistory) time.Time { return x.LastValidTime })))
}

// accountOrTime is a request list hived indexes two ways: by_account (start:
// a bare account name) and timeOrder (start: [time, account]).
func accountOrTime[T any](timeOrder string, byAcc, byTime func(*chain) []*T, account func(*T) string,
	at func(*T) time.Time, write func(*jw, *T)) methodFunc {
	return dbList("requests", write, bare("by_account", byAcc, kName(account)), ord(timeOrder, byTime, kTime(at), kName(account)))
}

func listAccountRecoveryRequests() methodFunc {
	type request = RecoveryRequest
	return accountOrTime("by_expiration", func(ch *chain) []*request { return ch.recByAccount },
		func(ch *chain) []*request { return ch.recByExpiration }, func(x *request) string { return x.AccountToRecover },
		func(x *request) time.Time { return x.Expires }, writeRecoveryRequest)
}

func listChangeRecoveryRequests() methodFunc {
	type request = ChangeRecoveryRequest
	return accountOrTime("by_effective_date", func(ch *chain) []*request { return ch.crByAccount },
		func(ch *chain) []*request { return ch.crByEffective }, func(x *request) string { return x.AccountToRecover },
		func(x *request) time.Time { return x.EffectiveOn }, dbForm(writeObject[request]))
}

func listDeclineVotingRights() methodFunc {
	type request = DeclineVotingRightsRequest
	return accountOrTime("by_effective_date", func(ch *chain) []*request { return ch.dvrByAccount },
		func(ch *chain) []*request { return ch.dvrByEffective }, func(x *request) string { return x.Account },
		func(x *request) time.Time { return x.EffectiveDate }, dbForm(writeObject[request]))
}
