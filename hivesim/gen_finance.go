package hivesim

import (
	"strconv"
	"time"
)

const day = 24 * time.Hour

// blocksPerDay is the number of 3-second blocks in a day.
const blocksPerDay = 28800

func (g *gen) secondsAfter(t time.Time, maxSeconds int) time.Time {
	return t.Add(time.Duration(1+g.r.IntN(maxSeconds)) * time.Second)
}

// genAccountRequests creates owner histories and the recovery, change-recovery and
// decline-voting-rights requests.
func (g *gen) genAccountRequests() {
	ch := g.ch
	n := len(ch.accounts)
	for i := 0; i < n/5; i++ {
		a := g.randAcct()
		t := g.secondsAfter(ch.headTime0.Add(-30*day), 30*86400-1)
		if t.Before(a.Created) {
			t = a.Created.Add(time.Hour)
		}
		ch.ownerHistories = append(ch.ownerHistories, &OwnerHistory{
			ID: int64(i), Account: a.Name, PreviousOwnerAuthority: g.simpleAuth(6, int64(i)), LastValidTime: t,
		})
		if t.After(a.LastOwnerUpdate) {
			a.LastOwnerUpdate = t
		}
	}
	perm := g.r.Perm(n - 1)
	next := 0
	take := func() *Account { a := ch.accounts[1+perm[next%(n-1)]]; next++; return a }
	for i := 0; i < n/12; i++ {
		a := take()
		ch.recoveries = append(ch.recoveries, &RecoveryRequest{
			ID: int64(i), AccountToRecover: a.Name, NewOwnerAuthority: g.simpleAuth(7, int64(i)),
			Expires: g.secondsAfter(ch.headTime0, 86400),
		})
	}
	for i := 0; i < n/12; i++ {
		a := take()
		ch.changeRecoveries = append(ch.changeRecoveries, &ChangeRecoveryRequest{
			ID: int64(i), AccountToRecover: a.Name, RecoveryAccount: g.randOther(a).Name,
			EffectiveOn: g.secondsAfter(ch.headTime0, 30*86400),
		})
	}
	for i := 0; i < n/20; i++ {
		a := take()
		ch.declines = append(ch.declines, &DeclineVotingRightsRequest{
			ID: int64(i), Account: a.Name, EffectiveDate: g.secondsAfter(ch.headTime0, 30*86400),
		})
	}
}

// genFinance creates escrows, withdraw routes, savings withdrawals, delegations,
// delegation expirations and conversion requests.
func (g *gen) genFinance() {
	ch := g.ch
	n := len(ch.accounts)
	nextEscrow := map[string]uint32{}
	for i := 0; i < n/5; i++ {
		from := g.randAcct()
		to := g.randOther(from)
		agent := g.randOther(from)
		deadline := g.secondsAfter(ch.headTime0, 3*86400)
		e := &Escrow{
			ID: int64(i), EscrowID: nextEscrow[from.Name], From: from.Name, To: to.Name, Agent: agent.Name,
			RatificationDeadline: deadline, EscrowExpiration: deadline.Add(time.Duration(1+g.r.IntN(30)) * day),
			HBDBalance: asset(g.r.Int64N(100_000), HBD), HiveBalance: asset(g.r.Int64N(100_000), HIVE),
			PendingFee: asset(int64(g.r.IntN(1000)), HIVE), ToApproved: g.r.IntN(2) == 0, AgentApproved: g.r.IntN(2) == 0,
		}
		e.Disputed = e.ToApproved && e.AgentApproved && g.r.IntN(4) == 0
		nextEscrow[from.Name] += 1 + uint32(g.r.IntN(3))
		from.PendingTransfers++
		ch.escrows = append(ch.escrows, e)
	}
	routeSeen := map[[2]string]bool{}
	for i := 0; len(ch.routes) < n/5 && i < n; i++ {
		from := g.randAcct()
		to := g.randOther(from)
		if routeSeen[[2]string{from.Name, to.Name}] {
			continue
		}
		routeSeen[[2]string{from.Name, to.Name}] = true
		ch.routes = append(ch.routes, &WithdrawRoute{
			ID: int64(len(ch.routes)), FromAccount: from.Name, ToAccount: to.Name,
			Percent: uint16(100 * (1 + g.r.IntN(100))), AutoVest: g.r.IntN(2) == 0,
		})
		from.WithdrawRoutes++
	}
	for i := 0; i < n/5; i++ {
		from := g.randAcct()
		to := from
		if g.r.IntN(4) == 0 {
			to = g.randOther(from)
		}
		sym := HIVE
		if g.r.IntN(2) == 0 {
			sym = HBD
		}
		ch.savings = append(ch.savings, &SavingsWithdraw{
			ID: int64(i), From: from.Name, To: to.Name, RequestID: g.r.Uint32(),
			Amount: asset(1+g.r.Int64N(1_000_000), sym), Complete: g.secondsAfter(ch.headTime0, 3*86400),
		})
		if g.r.IntN(3) == 0 {
			ch.savings[i].Memo = "savings " + strconv.Itoa(i)
		}
		from.SavingsWithdrawRequests++
	}
	delSeen := map[[2]string]bool{}
	for i := 0; len(ch.delegations) < n*3/4 && i < 4*n; i++ {
		from := g.randAcct()
		to := g.randOther(from)
		if delSeen[[2]string{from.Name, to.Name}] {
			continue
		}
		delSeen[[2]string{from.Name, to.Name}] = true
		blk := g.blockAfter(max(g.createdBlock(from), g.createdBlock(to)))
		d := &VestingDelegation{
			ID: int64(len(ch.delegations)), Delegator: from.Name, Delegatee: to.Name,
			VestingShares:     asset(1_000_000+from.VestingShares.Amount/int64(10+g.r.IntN(90)), VESTS),
			MinDelegationTime: g.ch.blockTime(blk),
		}
		from.DelegatedVestingShares.Amount += d.VestingShares.Amount
		to.ReceivedVestingShares.Amount += d.VestingShares.Amount
		ch.delegations = append(ch.delegations, d)
		g.addEvent(blk, opDelegateOp(d))
	}
	for i := 0; i < n/4; i++ {
		from := g.randAcct()
		ch.expirations = append(ch.expirations, &DelegationExpiration{
			ID: int64(i), Delegator: from.Name, VestingShares: asset(1+g.r.Int64N(1<<40), VESTS),
			Expiration: g.secondsAfter(ch.headTime0, 5*86400),
		})
		if i%5 == 4 { // equal expirations: ties resolve by id
			ch.expirations[i].Expiration = ch.expirations[i-1].Expiration
		}
	}
	g.genReturningDelegations() // its own random source: g.r is not drawn from
	nextReq := map[string]uint32{}
	for i := 0; i < n/5; i++ {
		owner := g.randAcct()
		blk := g.blockWithin(blocksPerDay*7/2, g.createdBlock(owner))
		c := &ConvertRequest{
			ID: int64(i), Owner: owner.Name, RequestID: nextReq[owner.Name],
			Amount: asset(1+g.r.Int64N(100_000), HBD), ConversionDate: g.ch.blockTime(blk).Add(84 * time.Hour),
		}
		nextReq[owner.Name] += 1 + uint32(g.r.IntN(5))
		ch.converts = append(ch.converts, c)
		g.addEvent(blk, opConvertOp(c.Owner, c.RequestID, c.Amount))
	}
	for i := 0; i < n/8; i++ {
		owner := g.randAcct()
		coll := 1 + g.r.Int64N(200_000)
		ch.collaterals = append(ch.collaterals, &CollateralizedConvertRequest{
			ID: int64(i), Owner: owner.Name, RequestID: nextReq[owner.Name],
			CollateralAmount: asset(coll, HIVE), ConvertedAmount: asset(coll/8, HBD),
			ConversionDate: g.secondsAfter(ch.headTime0, 7*86400/2),
		})
		nextReq[owner.Name] += 1 + uint32(g.r.IntN(5))
	}
}

// genMarket creates the open limit orders. Prices are drawn from a small set so that
// equal prices (ordered by id) occur.
func (g *gen) genMarket() {
	ch := g.ch
	n := len(ch.accounts)
	nextOrder := map[string]uint32{}
	for i := 0; i < n/2; i++ {
		seller := g.randAcct()
		blk := g.blockWithin(28*blocksPerDay, g.createdBlock(seller))
		created := g.ch.blockTime(blk)
		hbdPerK := int64(250 + 10*g.r.IntN(15)) // HBD satoshis per 1.000 HIVE
		units := int64(1 + g.r.IntN(500))
		var p Price
		if g.r.IntN(2) == 0 {
			p = Price{Base: asset(units*1000, HIVE), Quote: asset(units*hbdPerK, HBD)}
		} else {
			p = Price{Base: asset(units*hbdPerK, HBD), Quote: asset(units*1000, HIVE)}
		}
		o := &LimitOrder{
			ID: int64(i), Created: created, Expiration: created.Add(28 * day), Seller: seller.Name,
			OrderID: nextOrder[seller.Name] + uint32(g.r.IntN(1000)), ForSale: p.Base.Amount, SellPrice: p,
		}
		nextOrder[seller.Name] = o.OrderID + 1
		ch.orders = append(ch.orders, o)
		g.addEvent(blk, opLimitOrderCreateOp(o))
	}
}

var proposalSubjects = []string{"Core development", "Block explorer hosting", "Wallet maintenance",
	"Community meetups", "API node infrastructure", "Documentation sprint", "Security audit", "Translation work"}

// genProposals creates DHF proposals (a mix of inactive, active and expired ones at the
// initial head time) and the votes for them.
func (g *gen) genProposals() {
	ch := g.ch
	n := len(ch.accounts)
	for i := 0; i < max(8, n/10); i++ {
		creator := g.randAcct()
		start := ch.headTime0.Add(time.Duration(g.r.IntN(120*86400)-90*86400) * time.Second)
		p := &Proposal{
			ID: int64(i), Creator: creator.Name, Receiver: g.randAcct().Name, StartDate: start,
			EndDate:  start.Add(time.Duration(30+g.r.IntN(300)) * day),
			DailyPay: asset(int64(1000*(1+g.r.IntN(500))), HBD),
			Subject:  proposalSubjects[i%len(proposalSubjects)] + " #" + strconv.Itoa(i),
			Permlink: "proposal-" + strconv.Itoa(i),
		}
		ch.proposals = append(ch.proposals, p)
	}
	seen := map[[2]int64]bool{}
	for i := 0; len(ch.proposalVotes) < n*2 && i < n*6; i++ {
		voter := g.randAcct()
		p := ch.proposals[g.r.IntN(len(ch.proposals))]
		if seen[[2]int64{voter.ID, p.ID}] {
			continue
		}
		seen[[2]int64{voter.ID, p.ID}] = true
		ch.proposalVotes = append(ch.proposalVotes, &ProposalVote{ID: int64(len(ch.proposalVotes)), Voter: voter.Name, ProposalID: p.ID})
		p.TotalVotes += uint64(voter.VestingShares.Amount)
	}
}
