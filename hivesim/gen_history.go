package hivesim

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// txnLifetime is how long after its block a generated transaction expires.
const txnLifetime = 10 * time.Minute

// txn is a transaction included in a generated block.
type txn struct {
	Block          uint32
	Index          uint32 // trx_in_block
	ID             string
	RefBlockNum    uint16
	RefBlockPrefix uint32
	Expiration     time.Time
	Ops            []*operation
	sigSeed        uint64
}

// Signature returns the transaction's (synthetic) signature.
func (t *txn) Signature() string { return "1f" + hexHash(128, t.sigSeed) }

// event is a transaction waiting to be placed into its block.
type event struct {
	block uint32
	seq   int
	ops   []*operation
}

// histEntry is one operation in an account's history.
type histEntry struct {
	tx      *txn
	op      *operation
	opInTrx uint32
}

func (g *gen) addEvent(block uint32, ops ...*operation) {
	g.events = append(g.events, event{block: block, seq: len(g.events), ops: ops})
}

var memos = []string{"", "", "thanks!", "for the coffee", "invoice 42", "rent", "tip", "see you soon"}

func (g *gen) genTransfers() {
	ch := g.ch
	for i := 0; i < 2*len(ch.accounts); i++ {
		from := g.randAcct()
		to := g.randOther(from)
		sym := HIVE
		if g.r.IntN(3) == 0 {
			sym = HBD
		}
		blk := g.blockAfter(max(g.createdBlock(from), g.createdBlock(to)))
		g.addEvent(blk, opTransferOp(from.Name, to.Name, asset(1+g.r.Int64N(100_000), sym), memos[g.r.IntN(len(memos))]))
	}
}

// buildHistory turns the collected events into blocks, transactions and account histories.
func (g *gen) buildHistory() {
	ch := g.ch
	for _, a := range ch.accounts[1:] {
		g.addEvent(g.createdBlock(a), opAccountCreateOp("initminer", a),
			opTransferToVestingOp("initminer", a.Name, asset(1000+g.r.Int64N(10_000), HIVE)))
	}
	slices.SortFunc(g.events, func(a, b event) int { return cmp.Or(cmp.Compare(a.block, b.block), cmp.Compare(a.seq, b.seq)) })
	ch.blocks = make(map[uint32][]*txn)
	ch.history = make(map[string][]histEntry, len(ch.accounts))
	for _, ev := range g.events {
		txs := ch.blocks[ev.block]
		idx := uint32(len(txs))
		h := ch.seed ^ splitmix64(uint64(ev.block)<<16|uint64(idx))
		tx := &txn{
			Block: ev.block, Index: idx, ID: hexHash(40, h),
			RefBlockNum: uint16(ev.block - 1), RefBlockPrefix: uint32(splitmix64(h + 1)),
			Expiration: g.ch.blockTime(ev.block).Add(txnLifetime), Ops: ev.ops,
			sigSeed: h + 2,
		}
		ch.blocks[ev.block] = append(txs, tx)
		for i, op := range ev.ops {
			for _, name := range op.impacted {
				ch.history[name] = append(ch.history[name], histEntry{tx: tx, op: op, opInTrx: uint32(i)})
			}
		}
	}
	g.events = nil
}

// buildIndexes sorts every family into the orders of its indexes.
func (g *gen) buildIndexes() {
	ch := g.ch
	id := ch.accountID
	ch.indexAccounts()
	ch.wByName = sortedBy(ch.witnesses, func(a, b *Witness) int { return strings.Compare(a.Owner, b.Owner) })
	ch.wBySchedule = sortedBy(ch.witnesses, func(a, b *Witness) int {
		return cmp.Or(a.VirtualScheduledTime.Cmp(b.VirtualScheduledTime), cmp.Compare(a.ID, b.ID))
	})
	ch.wvByAccount = sortedBy(ch.witnessVotes, func(a, b *WitnessVote) int {
		return cmp.Or(strings.Compare(a.Account, b.Account), strings.Compare(a.Witness, b.Witness))
	})
	ch.wvByWitness = sortedBy(ch.witnessVotes, func(a, b *WitnessVote) int {
		return cmp.Or(strings.Compare(a.Witness, b.Witness), strings.Compare(a.Account, b.Account))
	})
	ch.ohByAccount = sortedBy(ch.ownerHistories, func(a, b *OwnerHistory) int {
		return cmp.Or(strings.Compare(a.Account, b.Account), a.LastValidTime.Compare(b.LastValidTime), cmp.Compare(a.ID, b.ID))
	})
	ch.recByAccount = sortedBy(ch.recoveries, func(a, b *RecoveryRequest) int { return strings.Compare(a.AccountToRecover, b.AccountToRecover) })
	ch.recByExpiration = sortedBy(ch.recoveries, func(a, b *RecoveryRequest) int {
		return cmp.Or(a.Expires.Compare(b.Expires), strings.Compare(a.AccountToRecover, b.AccountToRecover))
	})
	ch.crByAccount = sortedBy(ch.changeRecoveries, func(a, b *ChangeRecoveryRequest) int {
		return strings.Compare(a.AccountToRecover, b.AccountToRecover)
	})
	ch.crByEffective = sortedBy(ch.changeRecoveries, func(a, b *ChangeRecoveryRequest) int {
		return cmp.Or(a.EffectiveOn.Compare(b.EffectiveOn), strings.Compare(a.AccountToRecover, b.AccountToRecover))
	})
	ch.dvrByAccount = sortedBy(ch.declines, func(a, b *DeclineVotingRightsRequest) int { return strings.Compare(a.Account, b.Account) })
	ch.dvrByEffective = sortedBy(ch.declines, func(a, b *DeclineVotingRightsRequest) int {
		return cmp.Or(a.EffectiveDate.Compare(b.EffectiveDate), strings.Compare(a.Account, b.Account))
	})
	ch.escByFrom = sortedBy(ch.escrows, func(a, b *Escrow) int {
		return cmp.Or(strings.Compare(a.From, b.From), cmp.Compare(a.EscrowID, b.EscrowID))
	})
	ch.escByRatification = sortedBy(ch.escrows, func(a, b *Escrow) int {
		return cmp.Or(cmpBool(a.ToApproved && a.AgentApproved, b.ToApproved && b.AgentApproved),
			a.RatificationDeadline.Compare(b.RatificationDeadline), cmp.Compare(a.ID, b.ID))
	})
	ch.routeByWithdraw = sortedBy(ch.routes, func(a, b *WithdrawRoute) int {
		return cmp.Or(strings.Compare(a.FromAccount, b.FromAccount), strings.Compare(a.ToAccount, b.ToAccount))
	})
	ch.routeByDestination = sortedBy(ch.routes, func(a, b *WithdrawRoute) int {
		return cmp.Or(strings.Compare(a.ToAccount, b.ToAccount), cmp.Compare(a.ID, b.ID))
	})
	ch.savByFrom = sortedBy(ch.savings, func(a, b *SavingsWithdraw) int {
		return cmp.Or(strings.Compare(a.From, b.From), cmp.Compare(a.RequestID, b.RequestID))
	})
	ch.savByComplete = sortedBy(ch.savings, func(a, b *SavingsWithdraw) int {
		return cmp.Or(a.Complete.Compare(b.Complete), strings.Compare(a.From, b.From), cmp.Compare(a.RequestID, b.RequestID))
	})
	ch.savByTo = sortedBy(ch.savings, func(a, b *SavingsWithdraw) int {
		return cmp.Or(strings.Compare(a.To, b.To), a.Complete.Compare(b.Complete), cmp.Compare(a.ID, b.ID))
	})
	ch.delByDelegation = sortedBy(ch.delegations, func(a, b *VestingDelegation) int {
		return cmp.Or(cmp.Compare(id(a.Delegator), id(b.Delegator)), cmp.Compare(id(a.Delegatee), id(b.Delegatee)))
	})
	ch.expByExpiration = sortedBy(ch.expirations, func(a, b *DelegationExpiration) int {
		return cmp.Or(a.Expiration.Compare(b.Expiration), cmp.Compare(a.ID, b.ID))
	})
	ch.expByAccount = sortedBy(ch.expirations, func(a, b *DelegationExpiration) int {
		return cmp.Or(cmp.Compare(id(a.Delegator), id(b.Delegator)), a.Expiration.Compare(b.Expiration), cmp.Compare(a.ID, b.ID))
	})
	ch.convByDate = sortedBy(ch.converts, func(a, b *ConvertRequest) int {
		return cmp.Or(a.ConversionDate.Compare(b.ConversionDate), cmp.Compare(a.ID, b.ID))
	})
	ch.convByAccount = sortedBy(ch.converts, func(a, b *ConvertRequest) int {
		return cmp.Or(cmp.Compare(id(a.Owner), id(b.Owner)), cmp.Compare(a.RequestID, b.RequestID))
	})
	ch.collByDate = sortedBy(ch.collaterals, func(a, b *CollateralizedConvertRequest) int {
		return cmp.Or(a.ConversionDate.Compare(b.ConversionDate), cmp.Compare(a.ID, b.ID))
	})
	ch.collByAccount = sortedBy(ch.collaterals, func(a, b *CollateralizedConvertRequest) int {
		return cmp.Or(cmp.Compare(id(a.Owner), id(b.Owner)), cmp.Compare(a.RequestID, b.RequestID))
	})
	ch.orderByPrice = sortedBy(ch.orders, func(a, b *LimitOrder) int {
		return cmp.Or(-comparePrice(a.SellPrice, b.SellPrice), cmp.Compare(a.ID, b.ID))
	})
	ch.orderByAccount = sortedBy(ch.orders, func(a, b *LimitOrder) int {
		return cmp.Or(strings.Compare(a.Seller, b.Seller), cmp.Compare(a.OrderID, b.OrderID))
	})
	ch.propByCreator = sortedBy(ch.proposals, func(a, b *Proposal) int {
		return cmp.Or(strings.Compare(a.Creator, b.Creator), cmp.Compare(a.ID, b.ID))
	})
	ch.propByStart = sortedBy(ch.proposals, func(a, b *Proposal) int { return cmp.Or(a.StartDate.Compare(b.StartDate), cmp.Compare(a.ID, b.ID)) })
	ch.propByEnd = sortedBy(ch.proposals, func(a, b *Proposal) int { return cmp.Or(a.EndDate.Compare(b.EndDate), cmp.Compare(a.ID, b.ID)) })
	ch.propByVotes = sortedBy(ch.proposals, func(a, b *Proposal) int {
		return cmp.Or(cmp.Compare(a.TotalVotes, b.TotalVotes), cmp.Compare(a.ID, b.ID))
	})
	ch.pvByVoter = sortedBy(ch.proposalVotes, func(a, b *ProposalVote) int {
		return cmp.Or(strings.Compare(a.Voter, b.Voter), cmp.Compare(a.ProposalID, b.ProposalID))
	})
	ch.pvByProposal = sortedBy(ch.proposalVotes, func(a, b *ProposalVote) int {
		return cmp.Or(cmp.Compare(a.ProposalID, b.ProposalID), strings.Compare(a.Voter, b.Voter))
	})
	g.buildSocialIndexes()
	g.computeSupply()
}

func (g *gen) buildSocialIndexes() {
	s := &g.ch.social
	s.cByCashout = sortedBy(s.comments, func(a, b *Comment) int { return cmp.Or(a.CashoutTime.Compare(b.CashoutTime), cmp.Compare(a.ID, b.ID)) })
	s.cByPermlink = sortedBy(s.comments, func(a, b *Comment) int {
		return cmp.Or(strings.Compare(a.Author, b.Author), strings.Compare(a.Permlink, b.Permlink))
	})
	s.byRoot = make(map[int][]*Comment)
	s.byParent = make(map[int][]*Comment)
	s.byParentAuthor = make(map[string][]*Comment)
	s.byAuthor = make(map[string][]*Comment)
	s.postsByAuthor = make(map[string][]*Comment)
	for _, c := range s.comments { // id order
		s.byRoot[c.root] = append(s.byRoot[c.root], c)
		if c.parent >= 0 {
			s.byParent[c.parent] = append(s.byParent[c.parent], c)
			s.byParentAuthor[c.ParentAuthor] = append(s.byParentAuthor[c.ParentAuthor], c)
		} else {
			s.postsByAuthor[c.Author] = append(s.postsByAuthor[c.Author], c)
		}
		s.byAuthor[c.Author] = append(s.byAuthor[c.Author], c)
	}
	byUpdate := func(a, b *Comment) int { return cmp.Or(-a.LastUpdate.Compare(b.LastUpdate), cmp.Compare(a.ID, b.ID)) }
	for _, cs := range s.byParentAuthor {
		slices.SortStableFunc(cs, byUpdate)
	}
	for _, cs := range s.byAuthor {
		slices.SortStableFunc(cs, byUpdate)
	}
	for _, cs := range s.postsByAuthor {
		slices.Reverse(cs)
	}
	for _, vs := range s.votesByVoter {
		slices.SortFunc(vs, func(a, b *Vote) int { return cmp.Compare(a.commentID, b.commentID) })
	}
}

func (g *gen) computeSupply() {
	ch := g.ch
	var hive, hbd, vests int64
	for _, a := range ch.accounts {
		hive += a.Balance.Amount + a.SavingsBalance.Amount
		hbd += a.HBDBalance.Amount + a.SavingsHBDBalance.Amount
		vests += a.VestingShares.Amount / 1000
	}
	vestingFund := vests / 1800 // vests were summed in thousandths of their satoshis
	ch.supply = supplyTotals{
		currentSupply:      asset(hive+vestingFund, HIVE),
		virtualSupply:      asset(hive+vestingFund+hbd*4, HIVE),
		hbdSupply:          asset(hbd, HBD),
		totalVestingFund:   asset(vestingFund, HIVE),
		totalVestingShares: asset(vests, VESTS),
		totalRewardFund:    asset(int64(len(ch.accounts))*1_234_567, HIVE),
		pendingVests:       asset(int64(len(ch.accounts))*7_654_321, VESTS),
		pendingHive:        asset(int64(len(ch.accounts))*4_321, HIVE),
	}
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// accountID returns the id of name or -1 (used for indexes keyed by account ids).
func (ch *chain) accountID(name string) int64 {
	if a := ch.byName[name]; a != nil {
		return a.ID
	}
	return -1
}

// blockID is the hived block id: the block number in the first 8 hex digits, then 32
// digits derived from the seed.
func (ch *chain) blockID(num uint32) string {
	if num == 0 {
		return "0000000000000000000000000000000000000000"
	}
	b := make([]byte, 0, 40)
	s := strconv.FormatUint(uint64(num), 16)
	for i := len(s); i < 8; i++ {
		b = append(b, '0')
	}
	b = append(b, s...)
	return string(appendHex(b, 32, ch.seed^uint64(num)*0x9e3779b97f4a7c15))
}

// producer returns the witness that produced block num.
func (ch *chain) producer(num uint32) *Witness {
	return ch.schedule[int(num)%len(ch.schedule)]
}

// indexAccounts sorts the account indexes (by name, by proxy, by next
// vesting withdrawal): after generation, and again when app accounts are
// added, so that lists and counts agree.
func (ch *chain) indexAccounts() {
	id := ch.accountID
	ch.acctByName = sortedBy(ch.accounts, func(a, b *Account) int { return strings.Compare(a.Name, b.Name) })
	ch.acctByProxy = sortedBy(ch.accounts, func(a, b *Account) int {
		return cmp.Or(cmp.Compare(id(a.Proxy), id(b.Proxy)), strings.Compare(a.Name, b.Name))
	})
	ch.acctByNVW = sortedBy(ch.accounts, func(a, b *Account) int {
		return cmp.Or(a.NextVestingWithdrawal.Compare(b.NextVestingWithdrawal), strings.Compare(a.Name, b.Name))
	})
}
