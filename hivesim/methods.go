package hivesim

import (
	"strings"
)

// The method table. Every file of methods has one register function that
// adds its methods to a registry; methodSets lists those functions. To serve
// a new method: write its methodFunc, add it in the register function of its
// file with the error style of the software that serves it on a real API
// node (r.hived, r.mind for hivemind, r.hafah), and, for a new file, add the
// file's register function to methodSets.

// methodFunc serves one call: it decodes params (the decoded JSON value) and writes the
// result into w, or returns an error (any partial output is discarded).
type methodFunc func(c *callCtx, params any, w *jw) *rpcError

type method struct {
	fn    methodFunc
	style errStyle
}

// registry maps "api.method" to its handler and error style.
type registry map[string]method

func (r registry) add(name string, style errStyle, fn methodFunc) {
	r[name] = method{fn: fn, style: style}
}

// hived adds a method hived serves (fc errors with hived's data object).
func (r registry) hived(name string, fn methodFunc) { r.add(name, styleHived, fn) }

// hafah adds a method HAfAH serves.
func (r registry) hafah(name string, fn methodFunc) { r.add(name, styleHAfAH, fn) }

// mind adds a method hivemind serves.
func (r registry) mind(name string, fn methodFunc) { r.add(name, styleHivemind, fn) }

// methodSets are the register functions of the node's method files.
func methodSets() []func(registry) {
	return []func(registry){
		registerCoreMethods, registerFindMethods, registerStateMethods, registerCondenserStateMethods,
		registerRCMethods, registerMarketMethods, registerHistoryMethods,
		registerBridgeMethods, registerContentMethods, registerGetStateMethods,
		registerPromotedMethods, // hivesim/promoted_methods.go (issue 28 item 6)
	}
}

// registerMethods builds the method table and the set of API names.
func registerMethods() (registry, map[string]bool) {
	r := registry{}
	for _, set := range methodSets() {
		set(r)
	}
	apis := map[string]bool{}
	for name := range r {
		apis[name[:strings.IndexByte(name, '.')]] = true
	}
	return r, apis
}

// registerCoreMethods adds the methods of the first simulated node: the
// database_api lists, blocks, history, broadcasts and hivemind's social calls.
func registerCoreMethods(r registry) {
	r.hived("database_api.get_dynamic_global_properties", raising(dbGetDGPO))
	r.hived("database_api.find_accounts", findAccounts)
	r.hived("database_api.list_accounts", listAccounts())
	r.hived("database_api.list_witnesses", listWitnesses())
	r.hived("database_api.list_witness_votes", listWitnessVotes())
	r.hived("database_api.list_owner_histories", listOwnerHistories())
	r.hived("database_api.list_account_recovery_requests", listAccountRecoveryRequests())
	r.hived("database_api.list_change_recovery_account_requests", listChangeRecoveryRequests())
	r.hived("database_api.list_decline_voting_rights_requests", listDeclineVotingRights())
	r.hived("database_api.list_escrows", listEscrows())
	r.hived("database_api.list_withdraw_vesting_routes", listWithdrawVestingRoutes())
	r.hived("database_api.list_savings_withdrawals", listSavingsWithdrawals())
	r.hived("database_api.list_vesting_delegations", listVestingDelegations())
	r.hived("database_api.list_vesting_delegation_expirations", listVestingDelegationExpirations())
	r.hived("database_api.list_hbd_conversion_requests", listHBDConversionRequests())
	r.hived("database_api.list_collateralized_conversion_requests", listCollateralizedConversionRequests())
	r.hived("database_api.list_limit_orders", listLimitOrders())
	r.hived("database_api.list_proposals", listProposals)
	r.hived("database_api.list_proposal_votes", listProposalVotes)
	r.hived("database_api.list_smt_contributions", smtList("contributions", "by_symbol_contributor", "by_symbol_id", "by_contributor"))
	r.hived("database_api.list_smt_tokens", smtList("tokens", "by_symbol", "by_control_account"))
	r.hived("database_api.list_smt_token_emissions", smtList("token_emissions", "by_symbol_time"))
	r.mind("database_api.list_votes", listVotes)
	r.add("database_api.list_comments", stylePython, listComments)

	r.hived("condenser_api.get_dynamic_global_properties", condNoArgs(func(c *callCtx, w *jw) { writeDGPO(w, c, true) }))
	r.hived("condenser_api.get_accounts", raising(condGetAccounts))
	r.hived("condenser_api.get_vesting_delegations", raising(condGetVestingDelegations))
	r.hived("condenser_api.get_block", getBlock(false))
	r.hived("condenser_api.get_block_header", getBlock(true))
	r.hived("condenser_api.broadcast_transaction", broadcastTransaction(false))
	r.hived("condenser_api.broadcast_transaction_synchronous", broadcastTransaction(true))
	r.hafah("condenser_api.get_account_history", raising(getAccountHistory))
	r.hafah("condenser_api.get_ops_in_block", raising(getOpsInBlock))
	r.mind("condenser_api.get_blog", getBlog(false))
	r.mind("condenser_api.get_blog_entries", getBlog(true))
	r.mind("condenser_api.get_feed", getFeed(false))
	r.mind("condenser_api.get_feed_entries", getFeed(true))
	r.mind("condenser_api.get_followers", getFollows(false))
	r.mind("condenser_api.get_following", getFollows(true))
	r.mind("condenser_api.get_replies_by_last_update", getRepliesByLastUpdate)
	r.mind("condenser_api.get_discussions_by_author_before_date", getDiscussionsByAuthorBeforeDate(false))
	r.mind("condenser_api.get_trending_tags", getTrendingTags)
	r.mind("condenser_api.get_account_reputations", getAccountReputations(false))
	r.mind("condenser_api.get_content", getContent)

	r.hafah("account_history_api.get_account_history", raising(getAccountHistory))
	r.hafah("account_history_api.get_ops_in_block", raising(getOpsInBlock))
	r.hafah("block_api.get_block", getBlock(false))
	r.hafah("block_api.get_block_header", getBlock(true))
	r.hafah("block_api.get_block_range", raising(blockAPIGetBlockRange))
	r.mind("follow_api.get_account_reputations", getAccountReputations(true))
	r.hived("reputation_api.get_account_reputations", raising(reputationAPIGet))
	r.mind("tags_api.get_discussions_by_author_before_date", getDiscussionsByAuthorBeforeDate(true))
	r.hived("network_broadcast_api.broadcast_transaction", broadcastTransaction(false))
	r.hived("jsonrpc.get_methods", raising(getMethods))
}

// A twin is a method that rc_api or market_history_api serves and
// condenser_api serves again under the same name. The first reads named
// members, writes NAI assets and wraps its result in {"<key>": ...}; the
// condenser form reads the same arguments by position and writes legacy
// assets, unwrapped.
type twin struct {
	api      string   // "rc_api" or "market_history_api"
	name     string   // the method name in both APIs
	obj      []string // the arguments, in condenser's order
	optional int      // how many trailing arguments may be left out
	key      string   // the first form's result member ("": not wrapped)
	serve    func(c *callCtx, args []any, w *jw, legacy bool) *rpcError
}

// twins registers both forms of each twin.
func (r registry) twins(ts ...twin) {
	for _, t := range ts {
		lo, hi := len(t.obj)-t.optional, len(t.obj)
		r.hived(t.api+"."+t.name, func(c *callCtx, p any, w *jw) *rpcError {
			o, err := c.asObject(p)
			if err != nil {
				return err
			}
			var args []any
			for i, m := range t.obj {
				if v, ok := o[m]; ok || i < lo {
					args = append(args, v)
				}
			}
			if t.key == "" {
				return t.serve(c, args, w, false)
			}
			w.objBegin()
			w.key(t.key)
			err = t.serve(c, args, w, false)
			w.objEnd()
			return err
		})
		r.hived("condenser_api."+t.name, func(c *callCtx, p any, w *jw) *rpcError {
			args, err := c.condN(p, hi)
			if lo < hi {
				args, err = c.condRange(p, lo, hi)
			}
			if err != nil {
				return err
			}
			return t.serve(c, args, w, true)
		})
	}
}

// writeRows writes rows as a JSON array.
func writeRows[T any](w *jw, rows []*T, write func(*jw, *T)) {
	w.arrBegin()
	for _, r := range rows {
		write(w, r)
	}
	w.arrEnd()
}
