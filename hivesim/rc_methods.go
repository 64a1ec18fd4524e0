package hivesim

import (
	"cmp"
	"strings"
)

// rc_api and condenser_api's RC methods.

// writeRCAccount writes rc_account_api_object.
func writeRCAccount(w *jw, ch *chain, a *Account, legacy bool) {
	e := &ch.extra
	maxRC := postVotingPower(a) + int64(e.rcReceived[a.Name]) - int64(e.rcDelegated[a.Name])
	w.objBegin()
	w.kstr("account", a.Name)
	writeManabar(w, "rc_manabar", maxRC*(70+a.ID%30)/100, a.ManaLastUpdate)
	w.kasset("max_rc_creation_adjustment", asset(2_020_748_973, VESTS), legacy)
	w.ki64("max_rc", maxRC)
	w.ku64("delegated_rc", e.rcDelegated[a.Name])
	w.ku64("received_delegated_rc", e.rcReceived[a.Name])
	w.objEnd()
}

// rcLimit is rc_api's limit assert.
func (c *callCtx) rcLimit(limit uint32) *rpcError {
	if limit == 0 || limit > 1000 {
		return c.assertFail("0 < args.limit && args.limit <= RC_API_SINGLE_QUERY_LIMIT", "limit not set or too big")
	}
	return nil
}

// rcAccountsFrom lists accounts by name from start (inclusive).
func (c *callCtx) rcAccountsFrom(startV any, limit uint32) ([]*Account, *rpcError) {
	start, err := c.asName(startV)
	if err != nil {
		return nil, err
	}
	if err := c.rcLimit(limit); err != nil {
		return nil, err
	}
	return page(c.n.ch.acctByName, func(a *Account) int { return strings.Compare(a.Name, start) }, limit), nil
}

// rcDelegationsFrom is list_rc_direct_delegations: start is [from, to].
func (c *callCtx) rcDelegationsFrom(startV any, limit uint32) ([]*RCDelegation, *rpcError) {
	if err := c.rcLimit(limit); err != nil {
		return nil, err
	}
	key, err := c.asArray(startV)
	if err != nil {
		return nil, err
	}
	if len(key) != 2 {
		return nil, c.assertFail("key.size() == 2", "by_from start requires 2 value. (from, to)")
	}
	in := &conv{}
	from := get(in, c.asName, key[0])
	to := get(in, c.asName, key[1])
	if in.err != nil {
		return nil, in.err
	}
	ch := c.n.ch
	toID := int64(0)
	if to != "" {
		a := ch.byName[to]
		if a == nil {
			return nil, c.assertFail("delegatee", "Account "+to+" does not exist")
		}
		toID = a.ID
	}
	delegator := ch.byName[from]
	if delegator == nil {
		return nil, c.assertFail("delegator", "Account "+from+" does not exist")
	}
	rows := ch.extra.rcDelegations
	i := lowerBound(rows, func(d *RCDelegation) int {
		return cmp.Or(cmp.Compare(ch.byName[d.From].ID, delegator.ID), cmp.Compare(ch.byName[d.To].ID, toID))
	})
	return collect(rows, i, limit, func(d *RCDelegation) bool { return d.From == from }), nil
}

func registerRCMethods(r registry) {
	writeRC := func(c *callCtx, legacy bool) func(*jw, *Account) {
		return func(w *jw, a *Account) { writeRCAccount(w, c.n.ch, a, legacy) }
	}
	// list reads [start, limit] (the limit first) and pages from start.
	list := func(name, key string, write func(c *callCtx, w *jw, start any, limit uint32, legacy bool) *rpcError) twin {
		return twin{api: "rc_api", name: name, members: []string{"start", "limit"}, key: key,
			serve: func(c *callCtx, args []any, w *jw, legacy bool) *rpcError {
				limit, err := c.asU32(args[1])
				if err != nil {
					return err
				}
				return write(c, w, args[0], limit, legacy)
			}}
	}
	r.twins(twin{api: "rc_api", name: "find_rc_accounts", members: []string{"accounts"}, key: "rc_accounts",
		serve: func(c *callCtx, args []any, w *jw, legacy bool) *rpcError {
			names, err := c.nameList(args[0], "args.accounts.size() <= RC_API_SINGLE_QUERY_LIMIT")
			if err != nil {
				return err
			}
			var rows []*Account
			for _, n := range names {
				if a := c.n.ch.byName[n]; a != nil {
					rows = append(rows, a)
				}
			}
			writeRows(w, rows, writeRC(c, legacy))
			return nil
		}},
		list("list_rc_accounts", "rc_accounts", func(c *callCtx, w *jw, start any, limit uint32, legacy bool) *rpcError {
			rows, err := c.rcAccountsFrom(start, limit)
			if err == nil {
				writeRows(w, rows, writeRC(c, legacy))
			}
			return err
		}),
		list("list_rc_direct_delegations", "rc_direct_delegations", func(c *callCtx, w *jw, start any, limit uint32, _ bool) *rpcError {
			rows, err := c.rcDelegationsFrom(start, limit)
			if err == nil {
				writeRows(w, rows, dbForm(writeObject[RCDelegation]))
			}
			return err
		}))
	r.hived("rc_api.get_resource_pool", func(c *callCtx, p any, w *jw) *rpcError {
		if err := c.noArgs(p); err != nil {
			return err
		}
		w.objBegin()
		w.key("resource_pool")
		w.objBegin()
		for i, r := range rcResources {
			w.key(r.name)
			w.objBegin()
			w.ki64("pool", r.pool)
			w.knum("fill_level", int64(8000+i*400))
			w.objEnd()
		}
		w.objEnd()
		w.objEnd()
		return nil
	})
	r.hived("rc_api.get_resource_params", func(c *callCtx, p any, w *jw) *rpcError {
		if err := c.noArgs(p); err != nil {
			return err
		}
		w.objBegin()
		w.key("resource_names")
		w.arrBegin()
		for _, r := range rcResources {
			w.str(r.name)
		}
		w.arrEnd()
		w.key("resource_params")
		w.objBegin()
		for _, r := range rcResources {
			w.key(r.name)
			w.objBegin()
			w.key("price_curve_params")
			w.objBegin()
			w.ku64("coeff_a", 14969827235074865152)
			w.ku64("coeff_b", uint64(r.budget)*1000)
			w.knum("shift", 50)
			w.objEnd()
			writeRdParams(w, "resource_dynamics_params", r.budget, 2539677724, 42, r.pool, 0)
			w.objEnd()
		}
		w.objEnd()
		w.key("size_info")
		w.objBegin()
		w.key("resource_execution_time")
		w.objBegin()
		w.knum("transaction_time", 6622)
		w.knum("transfer_time", 5999)
		w.knum("vote_time", 26286)
		w.objEnd()
		w.key("resource_state_bytes")
		w.objBegin()
		w.knum("authority_base_size", 48)
		w.knum("transaction_base_size", 34)
		w.objEnd()
		w.objEnd()
		w.objEnd()
		return nil
	})
	r.hived("rc_api.get_rc_stats", func(c *callCtx, p any, w *jw) *rpcError {
		if err := c.noArgs(p); err != nil {
			return err
		}
		w.objBegin()
		w.key("rc_stats")
		w.objBegin()
		w.knum("block", int64(c.head-c.head%1200))
		w.key("budget")
		w.arrBegin()
		for _, r := range rcResources {
			w.num(r.budget)
		}
		w.arrEnd()
		w.ki64("comment", 1347217793)
		w.key("ops")
		w.objBegin()
		for _, op := range []string{"comment_operation", "custom_json_operation", "transfer_operation", "vote_operation"} {
			w.key(op)
			w.objBegin()
			w.ki64("avg_cost", int64(80_000_000+len(op)*1_000_000))
			w.knum("count", int64(1000+len(op)*37))
			w.objEnd()
		}
		w.objEnd()
		w.key("payers")
		w.arrBegin()
		for rank := 0; rank < 3; rank++ {
			w.objBegin()
			w.knum("count", int64(1000*(rank+1)))
			w.knum("lt20", int64(10*(rank+1)))
			w.knum("rank", int64(rank))
			w.objEnd()
		}
		w.arrEnd()
		w.key("pool")
		w.arrBegin()
		for _, r := range rcResources {
			w.i64(r.pool)
		}
		w.arrEnd()
		w.ki64("regen", 2182356237432)
		w.key("share")
		w.arrBegin()
		for _, s := range []int64{4513, 10000, 591, 2742, 2153} {
			w.num(s)
		}
		w.arrEnd()
		w.kstr("stamp", hexHash(64, uint64(c.head/1200)))
		w.ki64("transfer", 147357209)
		w.ki64("vote", 84076692)
		w.objEnd()
		w.objEnd()
		return nil
	})
	r.hived("rc_api.get_rc_operation_stats", func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		o := get(in, c.asObject, p)
		op := get(in, c.asString, o["operation"])
		if in.err != nil {
			return in.err
		}
		if op != "multiop" && !strings.HasSuffix(op, "_operation") {
			return c.assertFail("false", "Unknown operation "+op)
		}
		w.objBegin()
		w.knum("count", int64(100+len(op)))
		w.ki64("avg_cost_rc", int64(50_000_000+len(op)*1_000_000))
		w.key("resource_cost")
		w.objBegin()
		for _, k := range []string{"history_rc", "tokens_rc", "market_rc", "state_rc", "exec_rc"} {
			w.ki64(k, int64(10_000_000+len(k)))
		}
		w.objEnd()
		w.key("resource_cost_share")
		w.objBegin()
		for _, k := range []string{"history_bp", "tokens_bp", "market_bp", "state_bp", "exec_bp"} {
			w.knum(k, 2000)
		}
		w.objEnd()
		w.key("resource_usage")
		w.objBegin()
		w.ki64("history_bytes", 200)
		w.kstr("tokens", "0.00000")
		w.ki64("market_bytes", 0)
		w.ki64("state_hbytes", 4000)
		w.ki64("exec_ns", 12000)
		w.objEnd()
		w.objEnd()
		return nil
	})
}

// rcResources are the RC resources in hived's order.
var rcResources = []struct {
	name         string
	budget, pool int64
}{
	{"resource_history_bytes", 43403, 23209173060},
	{"resource_new_accounts", 797, 4500555},
	{"resource_market_bytes", 72338, 1965951984},
	{"resource_state_bytes", 43546196, 24431706720637},
	{"resource_execution_time", 40000000, 64953409331},
}
