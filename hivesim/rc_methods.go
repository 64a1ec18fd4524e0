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
	writeValue(w, obj{"account", a.Name, "rc_manabar", manabar(maxRC*(70+a.ID%30)/100, a.ManaLastUpdate),
		"max_rc_creation_adjustment", asset(2_020_748_973, VESTS), "max_rc", maxRC,
		"delegated_rc", e.rcDelegated[a.Name], "received_delegated_rc", e.rcReceived[a.Name]}, legacy)
}

// rcLimit is rc_api's limit assert.
func (c *callCtx) rcLimit(limit uint32) {
	if limit == 0 || limit > 1000 {
		raiseIf(c.assertFail("0 < args.limit && args.limit <= RC_API_SINGLE_QUERY_LIMIT", "limit not set or too big"))
	}
}

// rcAccountsFrom lists accounts by name from start (inclusive).
func (c *callCtx) rcAccountsFrom(startV any, limit uint32) []*Account {
	start := need(c.asName(startV))
	c.rcLimit(limit)
	return page(c.n.ch.acctByName, func(a *Account) int { return strings.Compare(a.Name, start) }, limit)
}

// rcDelegationsFrom is list_rc_direct_delegations: start is [from, to].
func (c *callCtx) rcDelegationsFrom(startV any, limit uint32) []*RCDelegation {
	c.rcLimit(limit)
	key := need(c.asArray(startV))
	if len(key) != 2 {
		raiseIf(c.assertFail("key.size() == 2", "by_from start requires 2 value. (from, to)"))
	}
	in := &conv{}
	from, to := get(in, c.asName, key[0]), get(in, c.asName, key[1])
	raiseIf(in.err)
	ch := c.n.ch
	toID := int64(0)
	if to != "" {
		a := ch.byName[to]
		if a == nil {
			raiseIf(c.assertFail("delegatee", "Account "+to+" does not exist"))
		}
		toID = a.ID
	}
	delegator := ch.byName[from]
	if delegator == nil {
		raiseIf(c.assertFail("delegator", "Account "+from+" does not exist"))
	}
	rows := ch.extra.rcDelegations
	i := lowerBound(rows, func(d *RCDelegation) int {
		return cmp.Or(cmp.Compare(ch.byName[d.From].ID, delegator.ID), cmp.Compare(ch.byName[d.To].ID, toID))
	})
	return collect(rows, i, limit, func(d *RCDelegation) bool { return d.From == from })
}

func registerRCMethods(r registry) {
	writeRC := func(c *callCtx, legacy bool) func(*jw, *Account) {
		return func(w *jw, a *Account) { writeRCAccount(w, c.n.ch, a, legacy) }
	}
	r.twins(twin{api: "rc_api", name: "find_rc_accounts", obj: []string{"accounts"}, key: "rc_accounts",
		serve: raisingServe(func(c *callCtx, args []any, w *jw, legacy bool) {
			var rows []*Account
			for _, n := range need(c.nameList(args[0], "args.accounts.size() <= RC_API_SINGLE_QUERY_LIMIT")) {
				if a := c.n.ch.byName[n]; a != nil {
					rows = append(rows, a)
				}
			}
			writeRows(w, rows, writeRC(c, legacy))
		})},
		// The lists read [start, limit], the limit first.
		twin{api: "rc_api", name: "list_rc_accounts", obj: []string{"start", "limit"}, key: "rc_accounts",
			serve: raisingServe(func(c *callCtx, args []any, w *jw, legacy bool) {
				writeRows(w, c.rcAccountsFrom(args[0], need(c.asU32(args[1]))), writeRC(c, legacy))
			})},
		twin{api: "rc_api", name: "list_rc_direct_delegations", obj: []string{"start", "limit"}, key: "rc_direct_delegations",
			serve: raisingServe(func(c *callCtx, args []any, w *jw, _ bool) {
				writeRows(w, c.rcDelegationsFrom(args[0], need(c.asU32(args[1]))), dbForm(writeObject[RCDelegation]))
			})})
	r.getter("rc_api.get_resource_pool", func(*callCtx) any {
		pool := obj{}
		for i, r := range rcResources {
			pool = append(pool, r.name, obj{"pool", r.pool, "fill_level", 8000 + i*400})
		}
		return obj{"resource_pool", pool}
	})
	r.getter("rc_api.get_resource_params", func(*callCtx) any {
		var names []string
		params := obj{}
		for _, r := range rcResources {
			names = append(names, r.name)
			params = append(params, r.name, obj{
				"price_curve_params", obj{"coeff_a", uint64(14969827235074865152), "coeff_b", uint64(r.budget) * 1000, "shift", 50},
				"resource_dynamics_params", rdParams(r.budget, 2539677724, 42, r.pool, 0)})
		}
		return obj{"resource_names", names, "resource_params", params, "size_info", obj{
			"resource_execution_time", obj{"transaction_time", 6622, "transfer_time", 5999, "vote_time", 26286},
			"resource_state_bytes", obj{"authority_base_size", 48, "transaction_base_size", 34}}}
	})
	r.getter("rc_api.get_rc_stats", func(c *callCtx) any {
		var budget, pool []int64
		for _, r := range rcResources {
			budget, pool = append(budget, r.budget), append(pool, r.pool)
		}
		ops := obj{}
		for _, op := range []string{"comment_operation", "custom_json_operation", "transfer_operation", "vote_operation"} {
			ops = append(ops, op, obj{"avg_cost", int64(80_000_000 + len(op)*1_000_000), "count", 1000 + len(op)*37})
		}
		var payers []obj
		for rank := range 3 {
			payers = append(payers, obj{"count", 1000 * (rank + 1), "lt20", 10 * (rank + 1), "rank", rank})
		}
		return obj{"rc_stats", obj{"block", int(c.head - c.head%1200), "budget", budget, "comment", int64(1347217793), "ops", ops,
			"payers", payers, "pool", pool, "regen", int64(2182356237432), "share", []int{4513, 10000, 591, 2742, 2153},
			"stamp", hexHash(64, uint64(c.head/1200)), "transfer", int64(147357209), "vote", int64(84076692)}}
	})
	r.hivedR("rc_api.get_rc_operation_stats", func(c *callCtx, p any, w *jw) {
		op := need(c.asString(need(c.asObject(p))["operation"]))
		if op != "multiop" && !strings.HasSuffix(op, "_operation") {
			raiseIf(c.assertFail("false", "Unknown operation "+op))
		}
		cost, share := obj{}, obj{}
		for _, k := range []string{"history", "tokens", "market", "state", "exec"} {
			rc := k + "_rc"
			cost, share = append(cost, rc, int64(10_000_000+len(rc))), append(share, k+"_bp", 2000)
		}
		writeValue(w, obj{"count", 100 + len(op), "avg_cost_rc", int64(50_000_000 + len(op)*1_000_000), "resource_cost", cost,
			"resource_cost_share", share, "resource_usage", obj{"history_bytes", int64(200), "tokens", "0.00000",
				"market_bytes", int64(0), "state_hbytes", int64(4000), "exec_ns", int64(12000)}}, false)
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
