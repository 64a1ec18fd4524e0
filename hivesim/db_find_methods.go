package hivesim

// database_api find_* methods: lookups by owner or key, not paged.

// nameList reads a JSON array of account names (at most 1000).
func (c *callCtx) nameList(v any, expr string) ([]string, *rpcError) {
	arr, err := c.asArray(orEmptyArray(v))
	if err != nil {
		return nil, err
	}
	if len(arr) > 1000 {
		return nil, c.assertFail(expr, "")
	}
	names := make([]string, len(arr))
	for i, x := range arr {
		if names[i], err = c.asName(x); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// findByNames serves the finds that take a list of names in member: the rows
// of index named by each, in turn.
func findByNames[T any](member, key string, index func(*chain) []*T, name func(*T) string, write func(*jw, *T)) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		o, err := c.asObject(p)
		if err != nil {
			return err
		}
		names, err := c.nameList(o[member], "args."+member+".size() <= DATABASE_API_SINGLE_QUERY_LIMIT")
		if err != nil {
			return err
		}
		var rows []*T
		for _, n := range names {
			rows = append(rows, ownedBy(index(c.n.ch), name, n)...)
		}
		writeList(w, key, rows, write)
		return nil
	}
}

// ownerCheck is how a find_* by owner treats an account that does not
// exist. hived 1.28.7 (database_api_financial.cpp) resolves the owner to its
// id in five finds, FC_ASSERT(expr, msg) failing for an unknown name; the
// others look the name up in an index and answer an empty list. The zero
// ownerCheck is the latter.
type ownerCheck struct {
	expr, msg string
}

// refuse is hived's assert failure when name is no account and the check
// asks for one, else nil.
func (check ownerCheck) refuse(c *callCtx, name string) *rpcError {
	if check.expr == "" || c.n.ch.byName[name] != nil {
		return nil
	}
	return c.assertFail(check.expr, check.msg)
}

// ownerMustExist is the ownerCheck of a find whose owner hived resolves
// with _db.find_account and asserts expr (e.g. "delegator != nullptr").
func ownerMustExist(expr string) ownerCheck { return ownerCheck{expr, noAccount} }

// findByOwner serves the finds that list one account's objects; that
// account is member, checked as check says.
func findByOwner[T any](member, key string, check ownerCheck, index func(*chain) []*T, owner func(*T) string, write func(*jw, *T)) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		name := get(in, c.asName, get(in, c.asObject, p)[member])
		if in.err == nil {
			in.err = check.refuse(c, name)
		}
		if in.err == nil {
			writeList(w, key, ownedBy(index(c.n.ch), owner, name), write)
		}
		return in.err
	}
}

// ownedBy is the rows of index whose owner is name.
func ownedBy[T any](index []*T, owner func(*T) string, name string) []*T {
	var rows []*T
	for _, x := range index {
		if owner(x) == name {
			rows = append(rows, x)
		}
	}
	return rows
}

func findWithdrawVestingRoutes(c *callCtx, p any, w *jw) *rpcError {
	in := &conv{}
	o := get(in, c.asObject, p)
	account := get(in, c.asName, o["account"])
	if in.err != nil {
		return in.err
	}
	order, err := c.sortOrder(o["order"])
	switch {
	case err != nil:
		return err
	case order == "by_withdraw_route":
		writeList(w, "routes", ownedBy(c.n.ch.routeByWithdraw, func(r *WithdrawRoute) string { return r.FromAccount }, account), writeRoute)
	case order == "by_destination":
		writeList(w, "routes", ownedBy(c.n.ch.routeByDestination, func(r *WithdrawRoute) string { return r.ToAccount }, account), writeRoute)
	default:
		return c.unknownOrder(order)
	}
	return nil
}

func findProposals(c *callCtx, o map[string]any) (any, *rpcError) {
	ids, err := c.asArray(orEmptyArray(o["proposal_ids"]))
	if err != nil {
		return nil, err
	}
	if len(ids) > 1000 {
		return nil, c.assertFail("args.proposal_ids.size() <= DATABASE_API_SINGLE_QUERY_LIMIT", "")
	}
	var rows []any
	for _, v := range ids {
		id, err := c.asI64(v)
		if err != nil {
			return nil, err
		}
		if id >= 0 && id < int64(len(c.n.ch.proposals)) {
			x := c.n.ch.proposals[id]
			rows = append(rows, func(w *jw) { writeProposal(w, x, statusNames[proposalStatus(x, c.now())], false) })
		}
	}
	return obj{"proposals", rows}, nil
}

// findComments is hivemind's database_api.find_comments.
func findComments(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "comments")
	if err != nil {
		return err
	}
	arr, ok := m["comments"].([]any)
	if !ok {
		return c.hivemindError("Expected array of author+permlink pairs")
	}
	if len(arr) > 1000 {
		return c.hivemindError("Parameters count is greather than max allowed (1000)")
	}
	var rows []*Comment
	for _, v := range arr {
		pair, ok := v.([]any)
		if !ok || len(pair) != 2 {
			return c.hivemindError("Expected array of author+permlink pairs")
		}
		author, err := c.hmAccount(pair[0], false)
		if err != nil {
			return err
		}
		permlink, err := c.hmPermlink(pair[1], false)
		if err != nil {
			return err
		}
		if cm := c.n.ch.social.byKey[author+"/"+permlink]; cm != nil {
			rows = append(rows, cm)
		}
	}
	writeList(w, "comments", rows, writeDBComment)
	return nil
}

// findVotes is hivemind's database_api.find_votes.
func findVotes(c *callCtx, p any, w *jw) *rpcError {
	m, err := c.hmParams(p, "author", "permlink")
	if err != nil {
		return err
	}
	author, err := c.hmAccount(m["author"], false)
	if err != nil {
		return err
	}
	permlink, err := c.hmPermlink(m["permlink"], false)
	if err != nil {
		return err
	}
	post, err := c.hmPost(author, permlink)
	if err != nil {
		return err
	}
	writeList(w, "votes", c.n.ch.social.votesByComment[post.ID], writeCommentVote)
	return nil
}

// registerFindMethods adds the find_* methods to the method table.
func registerFindMethods(r registry) {
	r.hived("database_api.find_witnesses", findByNames("owners", "witnesses",
		func(ch *chain) []*Witness { return ch.wByName }, func(x *Witness) string { return x.Owner }, dbForm(writeWitness)))
	r.hived("database_api.find_account_recovery_requests", findByNames("accounts", "requests",
		func(ch *chain) []*RecoveryRequest { return ch.recByAccount }, func(x *RecoveryRequest) string { return x.AccountToRecover }, writeRecoveryRequest))
	r.hived("database_api.find_change_recovery_account_requests", findByNames("accounts", "requests",
		func(ch *chain) []*ChangeRecoveryRequest { return ch.crByAccount }, func(x *ChangeRecoveryRequest) string { return x.AccountToRecover },
		dbForm(writeObject[ChangeRecoveryRequest])))
	r.hived("database_api.find_decline_voting_rights_requests", findByNames("accounts", "requests",
		func(ch *chain) []*DeclineVotingRightsRequest { return ch.dvrByAccount }, func(x *DeclineVotingRightsRequest) string { return x.Account },
		dbForm(writeObject[DeclineVotingRightsRequest])))
	r.hived("database_api.find_owner_histories", findByOwner("owner", "owner_auths", ownerCheck{},
		func(ch *chain) []*OwnerHistory { return ch.ohByAccount }, func(x *OwnerHistory) string { return x.Account }, writeOwnerHistory))
	r.hived("database_api.find_escrows", findByOwner("from", "escrows", ownerCheck{},
		func(ch *chain) []*Escrow { return ch.escByFrom }, func(x *Escrow) string { return x.From }, dbForm(writeEscrow)))
	r.hived("database_api.find_withdraw_vesting_routes", findWithdrawVestingRoutes)
	r.hived("database_api.find_savings_withdrawals", findByOwner("account", "withdrawals", ownerCheck{},
		func(ch *chain) []*SavingsWithdraw { return ch.savByFrom }, func(x *SavingsWithdraw) string { return x.From }, dbForm(writeSavings)))
	r.hived("database_api.find_vesting_delegations", findByOwner("account", "delegations", ownerMustExist("delegator != nullptr"),
		func(ch *chain) []*VestingDelegation { return ch.delByDelegation }, func(x *VestingDelegation) string { return x.Delegator },
		dbForm(writeDelegation)))
	r.hived("database_api.find_vesting_delegation_expirations", findByOwner("account", "delegations", ownerMustExist("delegator != nullptr"),
		func(ch *chain) []*DelegationExpiration { return ch.expByAccount }, func(x *DelegationExpiration) string { return x.Delegator }, dbForm(writeExpiration)))
	r.hived("database_api.find_hbd_conversion_requests", findByOwner("account", "requests", ownerMustExist("owner != nullptr"),
		func(ch *chain) []*ConvertRequest { return ch.convByAccount }, func(x *ConvertRequest) string { return x.Owner }, dbForm(writeConvert)))
	r.hived("database_api.find_collateralized_conversion_requests", findByOwner("account", "requests", ownerMustExist("owner != nullptr"),
		func(ch *chain) []*CollateralizedConvertRequest { return ch.collByAccount }, func(x *CollateralizedConvertRequest) string { return x.Owner }, dbForm(writeCollateral)))
	r.hived("database_api.find_limit_orders", findByOwner("account", "orders", ownerCheck{},
		func(ch *chain) []*LimitOrder { return ch.orderByAccount }, func(x *LimitOrder) string { return x.Seller }, dbForm(writeLimitOrder)))
	r.hived("database_api.find_recurrent_transfers", findByOwner("from", "recurrent_transfers", ownerCheck{"from_account != nullptr", "Given 'from' account does not exist."},
		func(ch *chain) []*RecurrentTransfer { return ch.extra.recurrent }, func(x *RecurrentTransfer) string { return x.From }, dbForm(writeRecurrent)))
	r.object("database_api.find_proposals", findProposals)
	r.mind("database_api.find_comments", findComments)
	r.mind("database_api.find_votes", findVotes)
}
