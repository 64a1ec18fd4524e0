package hivesim

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hivegate/hivegate/hivetx"
)

// Applying a verified transaction to the simulated chain, so that a demo
// user sees what they did: votes and comments appear in get_content and
// the discussion lists, authority and profile changes in get_accounts,
// follows in get_followers, claimed rewards and transfers in balances.
// Operations the node does not model are accepted and change nothing.
//
// The caller holds the node's write lock; every index a read method uses
// is kept in order.

// ledger is what the node remembers of accepted transactions.
type ledger struct {
	applied map[string]bool   // transaction ids (hived's duplicate check)
	inBlock map[uint32]uint32 // transactions counted per block (trx_num)
	blockOf map[string]uint32 // the block each broadcast transaction counts in
}

// applyOps applies every operation, or none: all are checked before any
// is applied, and a comment an earlier operation of the transaction
// creates counts as existing for the later ones (a post and its
// comment_options, or a vote on it).
func (c *callCtx) applyOps(tx *hivetx.Transaction) *rpcError {
	created := map[string]bool{}
	for _, op := range tx.Operations {
		if e := c.checkOp(op, created); e != nil {
			return e
		}
		if op.Name() == "comment" {
			created[op.String("author")+"/"+op.String("permlink")] = true
		}
	}
	for _, op := range tx.Operations {
		c.applyOp(op)
	}
	return nil
}

// opFail is an FC_ASSERT failing in hived's chain code, outside the API
// (an evaluator refusing an operation, a signature check): assert_exception, -32000.
func (c *callCtx) opFail(expr, msg string) *rpcError {
	return c.fcError(codeServerError, assertExceptionCode, "assert_exception", "Assert Exception", expr+": "+msg, expr)
}

// checkOp refuses what hived's evaluators refuse, for the operations the
// node applies.
func (c *callCtx) checkOp(op hivetx.Operation, created map[string]bool) *rpcError {
	ch := c.n.ch
	s := &ch.social
	key := op.String("author") + "/" + op.String("permlink")
	noComment := func(key string) *rpcError {
		if s.byKey[key] != nil || created[key] {
			return nil
		}
		return c.opFail("comment != nullptr", "Could not find comment "+key)
	}
	account := func(name string) *rpcError {
		if ch.byName[name] == nil {
			return c.opFail("account != nullptr", "Account \""+name+"\" must exist.")
		}
		return nil
	}
	switch op.Name() {
	case "vote":
		w := op.Get("weight").(int16)
		if e := account(op.String("voter")); e != nil {
			return e
		}
		if w > 10000 || w < -10000 {
			return c.opFail("abs(weight) <= HIVE_100_PERCENT", "Weight is not a HIVE percentage")
		}
		if e := noComment(key); e != nil {
			return e
		}
		if cm := s.byKey[key]; cm != nil {
			if v := findVote(s, cm, op.String("voter")); v != nil && v.VotePercent == w {
				return c.opFail("itr->vote_percent != o.weight", "Your current vote on this comment is identical to this vote.")
			}
		}
	case "comment":
		if e := account(op.String("author")); e != nil {
			return e
		}
		if pa := op.String("parent_author"); pa != "" && s.byKey[pa+"/"+op.String("parent_permlink")] == nil && !created[pa+"/"+op.String("parent_permlink")] {
			return c.opFail("parent != nullptr", "Parent comment @"+pa+"/"+op.String("parent_permlink")+" not found.")
		}
		if js := op.String("json_metadata"); js != "" && !json.Valid([]byte(js)) {
			return c.opFail("fc::is_utf8( json_metadata ) && fc::json::is_valid( json_metadata )", "JSON Metadata not valid JSON")
		}
	case "delete_comment":
		cm := s.byKey[key]
		switch {
		case cm == nil:
			return c.opFail("comment != nullptr", "Could not find comment "+key)
		case cm.Children > 0:
			return c.opFail("comment.children == 0", "Cannot delete a comment with replies.")
		case cm.NetRshares > 0:
			return c.opFail("comment.net_rshares <= 0", "Cannot delete a comment with net positive votes.")
		}
	case "comment_options":
		return noComment(key)
	case "account_update", "account_update2":
		return c.checkAuthorityUpdate(op)
	case "claim_reward_balance":
		a := ch.byName[op.String("account")]
		if a == nil {
			return account(op.String("account"))
		}
		for _, r := range []struct {
			field string
			have  Asset
		}{{"reward_hive", a.RewardHiveBalance}, {"reward_hbd", a.RewardHBDBalance}, {"reward_vests", a.RewardVestingBalance}} {
			if claim := op.Get(r.field).(hivetx.Asset); claim.Amount > r.have.Amount {
				return c.opFail("op.reward_hive <= acnt.reward_hive_balance", "Cannot claim that much "+r.have.Symbol+". Claim: "+claim.String()+" Actual: "+r.have.String())
			}
		}
	case "transfer":
		from, to := ch.byName[op.String("from")], ch.byName[op.String("to")]
		if from == nil || to == nil {
			return c.opFail("to_account != nullptr", "Account must exist.")
		}
		amt := op.Get("amount").(hivetx.Asset)
		if bal := balanceOf(from, amt.Symbol); bal == nil || bal.Amount < amt.Amount || amt.Amount <= 0 {
			return c.opFail("_db.get_balance( from_account, o.amount.symbol ) >= o.amount", "Account does not have sufficient funds for transfer.")
		}
	}
	return nil
}

func balanceOf(a *Account, symbol string) *Asset {
	switch symbol {
	case "HIVE":
		return &a.Balance
	case "HBD":
		return &a.HBDBalance
	}
	return nil
}

// applyOp changes the chain for one checked operation.
func (c *callCtx) applyOp(op hivetx.Operation) {
	ch := c.n.ch
	now := c.now()
	switch op.Name() {
	case "vote":
		c.applyVote(op, now)
	case "comment":
		c.applyComment(op, now)
	case "delete_comment":
		deleteComment(ch, ch.social.byKey[op.String("author")+"/"+op.String("permlink")])
	case "comment_options":
		ch.social.byKey[op.String("author")+"/"+op.String("permlink")].PercentHBD = op.Get("percent_hbd").(uint16)
	case "custom_json":
		applyFollow(ch, op)
	case "account_update", "account_update2":
		a := ch.byName[op.String("account")]
		for _, r := range []struct {
			field string
			dst   *Authority
		}{{"owner", &a.Owner}, {"active", &a.Active}, {"posting", &a.Posting}} {
			if v, ok := op.Get(r.field).(hivetx.Authority); ok {
				*r.dst = simAuthority(v)
			}
		}
		if k, ok := op.Get("memo_key").(hivetx.PublicKey); ok {
			a.MemoKey = k.String()
		}
		if js := op.String("json_metadata"); js != "" || op.Name() == "account_update" {
			a.JSONMetadata = js
		}
		if op.Name() == "account_update2" && op.String("posting_json_metadata") != "" {
			a.PostingJSONMetadata = op.String("posting_json_metadata")
		}
		a.LastAccountUpdate = now
	case "claim_reward_balance":
		a := ch.byName[op.String("account")]
		hive, hbd, vests := op.Get("reward_hive").(hivetx.Asset), op.Get("reward_hbd").(hivetx.Asset), op.Get("reward_vests").(hivetx.Asset)
		a.RewardHiveBalance.Amount -= hive.Amount
		a.Balance.Amount += hive.Amount
		a.RewardHBDBalance.Amount -= hbd.Amount
		a.HBDBalance.Amount += hbd.Amount
		a.RewardVestingBalance.Amount -= vests.Amount
		a.VestingShares.Amount += vests.Amount
	case "transfer":
		amt := op.Get("amount").(hivetx.Asset)
		balanceOf(ch.byName[op.String("from")], amt.Symbol).Amount -= amt.Amount
		balanceOf(ch.byName[op.String("to")], amt.Symbol).Amount += amt.Amount
	}
}

func simAuthority(a hivetx.Authority) Authority {
	out := Authority{WeightThreshold: a.WeightThreshold}
	for _, aw := range a.AccountAuths {
		out.AccountAuths = append(out.AccountAuths, AuthWeight{Name: aw.Account, Weight: aw.Weight})
	}
	for _, kw := range a.KeyAuths {
		out.KeyAuths = append(out.KeyAuths, AuthWeight{Name: kw.Key.String(), Weight: kw.Weight})
	}
	return out
}

func findVote(s *socialData, cm *Comment, voter string) *Vote {
	for _, v := range s.votesByComment[cm.ID] {
		if v.Voter == voter {
			return v
		}
	}
	return nil
}

// applyVote adds or changes the voter's vote, with rshares from the
// voter's vesting shares as the generated votes have them.
func (c *callCtx) applyVote(op hivetx.Operation, now time.Time) {
	ch := c.n.ch
	s := &ch.social
	cm := s.byKey[op.String("author")+"/"+op.String("permlink")]
	voter := ch.byName[op.String("voter")]
	pct := op.Get("weight").(int16)
	rshares := voter.VestingShares.Amount / 1000 * int64(pct) / 10000
	v := findVote(s, cm, voter.Name)
	if v != nil { // take the old vote out of the totals
		cm.NetRshares -= v.Rshares
		cm.AbsRshares -= max(v.Rshares, -v.Rshares)
		if v.VotePercent > 0 {
			cm.VoteRshares -= v.Rshares
			cm.NetVotes--
		} else if v.VotePercent < 0 {
			cm.NetVotes++
		}
		v.NumChanges++
	} else {
		v = &Vote{ID: int64(len(s.votes)), Voter: voter.Name, Author: cm.Author, Permlink: cm.Permlink,
			voterID: voter.ID, commentID: cm.ID}
		s.votes = append(s.votes, v)
		s.votesByComment[cm.ID] = insertSorted(s.votesByComment[cm.ID], v, func(a, b *Vote) int { return cmp.Compare(a.voterID, b.voterID) })
		s.votesByVoter[voter.Name] = insertSorted(s.votesByVoter[voter.Name], v, func(a, b *Vote) int { return cmp.Compare(a.commentID, b.commentID) })
	}
	v.VotePercent, v.Rshares, v.LastUpdate = pct, rshares, now
	v.Weight = 0
	if pct > 0 {
		v.Weight = uint64(rshares)
		cm.VoteRshares += rshares
		cm.NetVotes++
	} else if pct < 0 {
		cm.NetVotes--
	}
	cm.NetRshares += rshares
	cm.AbsRshares += max(rshares, -rshares)
	voter.LastVoteTime = now
}

// applyComment creates a post or reply, or edits an existing one.
func (c *callCtx) applyComment(op hivetx.Operation, now time.Time) {
	ch := c.n.ch
	s := &ch.social
	key := op.String("author") + "/" + op.String("permlink")
	if cm := s.byKey[key]; cm != nil {
		cm.Title, cm.Body, cm.JSONMetadata = op.String("title"), op.String("body"), op.String("json_metadata")
		cm.indexText()
		cm.LastUpdate = now
		sortByUpdate(s.byAuthor[cm.Author])
		if cm.parent >= 0 {
			sortByUpdate(s.byParentAuthor[cm.ParentAuthor])
		}
		return
	}
	cm := &Comment{
		ID: int64(len(s.comments)), Author: op.String("author"), Permlink: op.String("permlink"),
		ParentAuthor: op.String("parent_author"), ParentPermlink: op.String("parent_permlink"),
		Title: op.String("title"), Body: op.String("body"), JSONMetadata: op.String("json_metadata"),
		Created: now, LastUpdate: now, CashoutTime: now.Add(7 * day), LastPayout: Epoch,
		TotalPayout: asset(0, HBD), CuratorPayout: asset(0, HBD), PendingPayout: asset(0, HBD),
		PercentHBD: 10000, parent: -1, block: c.head,
	}
	if cm.ParentAuthor == "" {
		cm.Category, cm.root = cm.ParentPermlink, int(cm.ID)
		cm.RootAuthor, cm.RootPermlink = cm.Author, cm.Permlink
	} else {
		p := s.byKey[cm.ParentAuthor+"/"+cm.ParentPermlink]
		cm.parent, cm.root, cm.Depth = int(p.ID), p.root, p.Depth+1
		root := s.comments[p.root]
		cm.Category, cm.RootAuthor, cm.RootPermlink = root.Category, root.Author, root.Permlink
		for a := cm.parent; a >= 0; a = s.comments[a].parent {
			s.comments[a].Children++
		}
	}
	cm.indexText()
	s.comments = append(s.comments, cm)
	s.byKey[key] = cm
	s.votesByComment = append(s.votesByComment, nil)
	s.byRoot[cm.root] = append(s.byRoot[cm.root], cm)
	if cm.parent >= 0 {
		s.byParent[cm.parent] = append(s.byParent[cm.parent], cm)
		s.byParentAuthor[cm.ParentAuthor] = append([]*Comment{cm}, s.byParentAuthor[cm.ParentAuthor]...)
	} else {
		s.postsByAuthor[cm.Author] = append([]*Comment{cm}, s.postsByAuthor[cm.Author]...)
		blog := s.blogs[cm.Author]
		s.blogs[cm.Author] = append(blog, &BlogEntry{Blog: cm.Author, EntryID: uint32(len(blog)), Author: cm.Author,
			Permlink: cm.Permlink, RebloggedOn: Epoch, comment: int(cm.ID)})
	}
	s.byAuthor[cm.Author] = append([]*Comment{cm}, s.byAuthor[cm.Author]...)
	s.cByPermlink = insertSorted(s.cByPermlink, cm, func(a, b *Comment) int {
		return cmp.Or(strings.Compare(a.Author, b.Author), strings.Compare(a.Permlink, b.Permlink))
	})
	s.cByCashout = insertSorted(s.cByCashout, cm, func(a, b *Comment) int {
		return cmp.Or(a.CashoutTime.Compare(b.CashoutTime), cmp.Compare(a.ID, b.ID))
	})
	a := ch.byName[cm.Author]
	a.PostCount++
	a.LastPost = now
	if cm.parent < 0 {
		a.LastRootPost = now
	}
}

// deleteComment removes a comment without replies from every index (its
// id stays used, as in hived).
func deleteComment(ch *chain, cm *Comment) {
	s := &ch.social
	drop := func(list []*Comment) []*Comment {
		return slices.DeleteFunc(list, func(x *Comment) bool { return x == cm })
	}
	delete(s.byKey, cm.Author+"/"+cm.Permlink)
	s.byRoot[cm.root] = drop(s.byRoot[cm.root])
	s.byAuthor[cm.Author] = drop(s.byAuthor[cm.Author])
	s.cByPermlink = drop(s.cByPermlink)
	s.cByCashout = drop(s.cByCashout)
	if cm.parent >= 0 {
		s.byParent[cm.parent] = drop(s.byParent[cm.parent])
		s.byParentAuthor[cm.ParentAuthor] = drop(s.byParentAuthor[cm.ParentAuthor])
		for a := cm.parent; a >= 0; a = s.comments[a].parent {
			s.comments[a].Children--
		}
	} else {
		s.postsByAuthor[cm.Author] = drop(s.postsByAuthor[cm.Author])
		s.blogs[cm.Author] = slices.DeleteFunc(s.blogs[cm.Author], func(e *BlogEntry) bool { return e.comment == int(cm.ID) })
	}
}

func sortByUpdate(cs []*Comment) {
	slices.SortStableFunc(cs, func(a, b *Comment) int { return cmp.Or(-a.LastUpdate.Compare(b.LastUpdate), cmp.Compare(a.ID, b.ID)) })
}

// insertSorted inserts x into list, sorted by cmpFn, before its equals.
func insertSorted[T any](list []T, x T, cmpFn func(a, b T) int) []T {
	i, _ := slices.BinarySearchFunc(list, x, cmpFn)
	return slices.Insert(list, i, x)
}

// applyFollow applies hivemind's follow custom_json
// ["follow", {"follower", "following", "what": ["blog"|"ignore"] or []}]
// when the follower signed it; anything else is ignored, as hivemind
// ignores it.
func applyFollow(ch *chain, op hivetx.Operation) {
	auths := op.Strings("required_posting_auths")
	if op.String("id") != "follow" || len(auths) != 1 {
		return
	}
	var body []json.RawMessage
	var f struct {
		Follower, Following string
		What                []string
	}
	if json.Unmarshal([]byte(op.String("json")), &body) != nil || len(body) != 2 ||
		string(body[0]) != `"follow"` || json.Unmarshal(body[1], &f) != nil ||
		f.Follower != auths[0] || ch.byName[f.Following] == nil || f.Follower == f.Following {
		return
	}
	s := &ch.social
	s.following[f.Follower] = slices.DeleteFunc(s.following[f.Follower], func(x *Follow) bool { return x.Following == f.Following })
	s.followers[f.Following] = slices.DeleteFunc(s.followers[f.Following], func(x *Follow) bool { return x.Follower == f.Follower })
	if len(f.What) == 0 || (f.What[0] != "blog" && f.What[0] != "ignore") {
		return // unfollow
	}
	nf := &Follow{Follower: f.Follower, Following: f.Following, What: f.What[0]}
	s.following[f.Follower] = insertSorted(s.following[f.Follower], nf, func(a, b *Follow) int { return strings.Compare(a.Following, b.Following) })
	s.followers[f.Following] = insertSorted(s.followers[f.Following], nf, func(a, b *Follow) int { return strings.Compare(a.Follower, b.Follower) })
}

// checkAuthorityUpdate refuses an account_update or account_update2 as
// hived's evaluators do (hive_evaluator.cpp): the account must exist, each
// new authority may have at most HIVE_MAX_AUTHORITY_MEMBERSHIP entries
// (validate_auth_size, owner, active, posting), and each account it names
// must exist (verify_authority_accounts_exist, owner, active, posting).
// Neither an impossible authority (weights below the threshold) nor a
// threshold of 0 is refused: hived checks is_impossible only when an
// account is recovered.
func (c *callCtx) checkAuthorityUpdate(op hivetx.Operation) *rpcError {
	ch := c.n.ch
	name := op.String("account")
	if ch.byName[name] == nil {
		return c.opFail("account != nullptr", "Account \""+name+"\" must exist.")
	}
	roles := []string{"owner", "active", "posting"}
	for _, role := range roles {
		if a, ok := op.Get(role).(hivetx.Authority); ok {
			if n := len(a.AccountAuths) + len(a.KeyAuths); n > hivetx.MaxAuthorityMembership {
				return c.opFail("size <= HIVE_MAX_AUTHORITY_MEMBERSHIP", "Authority membership exceeded. Max: "+
					strconv.Itoa(hivetx.MaxAuthorityMembership)+" Current: "+strconv.Itoa(n))
			}
		}
	}
	for _, role := range roles {
		if a, ok := op.Get(role).(hivetx.Authority); ok {
			for _, aw := range a.AccountAuths {
				if ch.byName[aw.Account] == nil {
					return c.opFail("a != nullptr", "New "+role+" authority on account "+name+
						" references non-existing account "+aw.Account)
				}
			}
		}
	}
	return nil
}
