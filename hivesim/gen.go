package hivesim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// chain is the generated, immutable chain state. Every index slice is sorted in the
// order of the hived (or hivemind) index it stands for.
type chain struct {
	seed        uint64
	initialHead uint32
	genesis     time.Time // time of block 0
	headTime0   time.Time // time of the initial head block

	accounts                            []*Account // by id
	byName                              map[string]*Account
	acctByName, acctByProxy, acctByNVW  []*Account
	witnesses                           []*Witness
	witnessByName                       map[string]*Witness
	wByName, wByVote, wBySchedule       []*Witness
	schedule                            []*Witness // block producers, block n uses schedule[n%len]
	witnessVotes                        []*WitnessVote
	wvByAccount, wvByWitness            []*WitnessVote
	ownerHistories                      []*OwnerHistory
	ohByAccount                         []*OwnerHistory
	recoveries                          []*RecoveryRequest
	recByAccount, recByExpiration       []*RecoveryRequest
	changeRecoveries                    []*ChangeRecoveryRequest
	crByAccount, crByEffective          []*ChangeRecoveryRequest
	declines                            []*DeclineVotingRightsRequest
	dvrByAccount, dvrByEffective        []*DeclineVotingRightsRequest
	escrows                             []*Escrow
	escByFrom, escByRatification        []*Escrow
	routes                              []*WithdrawRoute
	routeByWithdraw, routeByDestination []*WithdrawRoute
	savings                             []*SavingsWithdraw
	savByFrom, savByComplete, savByTo   []*SavingsWithdraw
	delegations                         []*VestingDelegation
	delByDelegation                     []*VestingDelegation
	expirations                         []*DelegationExpiration
	expByExpiration, expByAccount       []*DelegationExpiration
	converts                            []*ConvertRequest
	convByDate, convByAccount           []*ConvertRequest
	collaterals                         []*CollateralizedConvertRequest
	collByDate, collByAccount           []*CollateralizedConvertRequest
	orders                              []*LimitOrder
	orderByPrice, orderByAccount        []*LimitOrder
	proposals                           []*Proposal
	propByCreator, propByStart          []*Proposal
	propByEnd, propByVotes              []*Proposal
	proposalVotes                       []*ProposalVote
	pvByVoter, pvByProposal             []*ProposalVote
	social                              socialData
	extra                               extraData
	blocks                              map[uint32][]*txn
	history                             map[string][]histEntry
	supply                              supplyTotals
}

// supplyTotals are the global amounts reported by get_dynamic_global_properties.
type supplyTotals struct {
	currentSupply, virtualSupply, hbdSupply    Asset
	totalVestingFund, totalVestingShares       Asset
	totalRewardFund, pendingVests, pendingHive Asset
}

// gen holds the generator's state.
type gen struct {
	r       *rand.Rand
	ch      *chain
	created []uint32 // creation block per account id
	events  []event
}

// generate builds the chain of o whose initial head block is dated start.
func generate(o Options, start time.Time) *chain {
	ch := &chain{
		seed:        splitmix64(uint64(o.Seed) ^ 0x68697665),
		initialHead: o.InitialHead,
		genesis:     start.UTC().Truncate(time.Second).Add(-time.Duration(o.InitialHead) * chainBlockInterval),
		byName:      make(map[string]*Account, o.Accounts),
	}
	ch.headTime0 = ch.blockTime(o.InitialHead)
	g := &gen{r: rand.New(rand.NewPCG(uint64(o.Seed), 0x68697665736d)), ch: ch}
	g.genAccounts(o.Accounts)
	g.genWitnesses()
	g.genWitnessVotes()
	g.genAccountRequests()
	g.genFinance()
	g.genMarket()
	g.genProposals()
	g.genSocial()
	g.genTransfers()
	g.buildHistory()
	g.buildIndexes()
	g.genExtras(o.Seed)
	return ch
}

// sortedBy returns a copy of rows sorted by cmpFn (stable).
func sortedBy[T any](rows []*T, cmpFn func(a, b *T) int) []*T {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, cmpFn)
	return out
}

// blockAfter returns a random block in (b, initialHead], or initialHead.
func (g *gen) blockAfter(b uint32) uint32 {
	if b >= g.ch.initialHead {
		return g.ch.initialHead
	}
	return b + 1 + uint32(g.r.IntN(int(g.ch.initialHead-b)))
}

// blockWithin returns a random block in (initialHead-span, initialHead] that is also after b.
func (g *gen) blockWithin(span uint32, b uint32) uint32 {
	lo := uint32(0)
	if g.ch.initialHead > span {
		lo = g.ch.initialHead - span
	}
	return g.blockAfter(max(lo, b))
}

// randAcct picks a random account other than initminer (id 0).
func (g *gen) randAcct() *Account { return g.ch.accounts[1+g.r.IntN(len(g.ch.accounts)-1)] }

// randOther picks a random account different from a.
func (g *gen) randOther(a *Account) *Account {
	for {
		b := g.randAcct()
		if b != a {
			return b
		}
	}
}

func (g *gen) createdBlock(a *Account) uint32 { return g.created[a.ID] }

var fixedNames = []string{"initminer", "alice", "bob", "carol", "dave", "eve", "frank", "grace",
	"heidi", "ivan", "judy", "mallory", "oscar", "peggy", "trent", "victor", "walter"}

var syllables = []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "be", "do", "fa", "gu",
	"hi", "jo", "pe", "sa", "te", "wi", "xa", "yo", "ar", "el", "on", "us", "ix", "qua", "bri", "sto"}

func (g *gen) randomName(used map[string]bool) string {
	for {
		var b strings.Builder
		for n := 1 + g.r.IntN(3); n >= 0; n-- {
			b.WriteString(syllables[g.r.IntN(len(syllables))])
		}
		switch p := g.r.IntN(10); {
		case p < 3:
			b.WriteString(strconv.Itoa(g.r.IntN(1000)))
		case p == 3:
			b.WriteString("-" + syllables[g.r.IntN(len(syllables))] + syllables[g.r.IntN(len(syllables))])
		case p == 4:
			b.WriteString("." + syllables[g.r.IntN(len(syllables))] + syllables[g.r.IntN(len(syllables))])
		}
		s := b.String()
		if len(s) >= 3 && len(s) <= 16 && !used[s] {
			used[s] = true
			return s
		}
	}
}

func (g *gen) key(kind uint64, id int64) string {
	return publicKey(g.ch.seed ^ splitmix64(kind<<40^uint64(id)))
}

func (g *gen) simpleAuth(kind uint64, id int64) Authority {
	return Authority{WeightThreshold: 1, KeyAuths: []AuthWeight{{Name: g.key(kind, id), Weight: 1}}}
}

func (g *gen) genAccounts(n int) {
	ch := g.ch
	used := make(map[string]bool, n)
	phase := ch.initialHead / 5
	g.created = make([]uint32, n)
	for i := 0; i < n; i++ {
		var name string
		if i < len(fixedNames) {
			name = fixedNames[i]
			used[name] = true
		} else {
			name = g.randomName(used)
		}
		blk := uint32(0)
		if i > 0 {
			blk = 1 + uint32(i)*(phase/uint32(n))
		}
		g.created[i] = blk
		created := g.ch.blockTime(blk)
		vests := g.r.Int64N(5_000_000_000_000) + 1_000_000
		if g.r.IntN(8) == 0 {
			vests = 9_000_000_000_000_000 + g.r.Int64N(1<<56) // whales exceed 2^53
		}
		a := &Account{
			ID: int64(i), Name: name, Mined: i == 0, CanVote: true, Created: created, LastAccountUpdate: created,
			Owner: demoAuthority(name, "owner"), Active: demoAuthority(name, "active"), // demo_accounts.go: real keys from DemoPassword
			Posting: demoAuthority(name, "posting"), MemoKey: demoPublicKey(name, "memo"),
			RecoveryAccount: "initminer", LastOwnerUpdate: Epoch, LastAccountRecovery: Epoch, DownvoteMana: vests / 4,
			VotingMana: vests / 10 * int64(1+g.r.IntN(10)), ManaLastUpdate: uint32(ch.headTime0.Unix()) - uint32(g.r.IntN(86400*10)),
			Balance: asset(g.r.Int64N(100_000_000), HIVE), SavingsBalance: asset(g.r.Int64N(10_000_000)*int64(g.r.IntN(2)), HIVE),
			HBDBalance: asset(g.r.Int64N(5_000_000), HBD), SavingsHBDBalance: asset(g.r.Int64N(5_000_000)*int64(g.r.IntN(2)), HBD),
			RewardHBDBalance: asset(0, HBD), RewardHiveBalance: asset(0, HIVE),
			RewardVestingBalance: asset(g.r.Int64N(2_000_000), VESTS), RewardVestingHive: asset(g.r.Int64N(1_000), HIVE),
			VestingShares: asset(vests, VESTS), DelegatedVestingShares: asset(0, VESTS), ReceivedVestingShares: asset(0, VESTS),
			VestingWithdrawRate: asset(0, VESTS), NextVestingWithdrawal: MaxTime,
			CurationRewards: g.r.Int64N(10_000_000), PostingRewards: g.r.Int64N(10_000_000),
			LastPost: Epoch, LastRootPost: Epoch, LastVoteTime: Epoch, GovernanceVoteExpiration: MaxTime,
		}
		if g.r.IntN(4) == 0 {
			a.JSONMetadata = `{"profile":{"name":"` + strings.ToUpper(name[:1]) + name[1:] + `","about":"simulated account"}}`
			a.PostingJSONMetadata = a.JSONMetadata
		}
		if g.r.IntN(6) == 0 {
			app := fixedNames[1+g.r.IntN(len(fixedNames)-1)]
			if app != name {
				a.Posting.AccountAuths = []AuthWeight{{Name: app, Weight: 1}}
			}
		}
		if i > 0 && g.r.IntN(7) == 0 {
			rate := vests / 13
			a.VestingWithdrawRate = asset(rate, VESTS)
			a.ToWithdraw = vests
			a.Withdrawn = rate * int64(g.r.IntN(5))
			a.NextVestingWithdrawal = ch.headTime0.Add(time.Duration(1+g.r.IntN(7*86400)) * time.Second)
		}
		if i > 0 && g.r.IntN(3) == 0 {
			a.Reputation = g.r.Int64N(1 << 48)
			if g.r.IntN(10) == 0 {
				a.Reputation = 1<<53 + g.r.Int64N(1<<55)
			}
		}
		ch.accounts = append(ch.accounts, a)
		ch.byName[name] = a
	}
	// Proxies point to older accounts, so chains cannot loop.
	for _, a := range ch.accounts[2:] {
		if g.r.IntN(10) == 0 {
			p := ch.accounts[1+g.r.IntN(int(a.ID)-1)]
			a.Proxy = p.Name
			p.ProxiedVSFVotes[0] += a.VestingShares.Amount
		}
	}
}

func (g *gen) genWitnesses() {
	ch := g.ch
	n := len(ch.accounts)
	// At least 25 witnesses (hived schedules 21), never more than the
	// accounts there are.
	count := min(max(n/5, 25), 100, n)
	perm := g.r.Perm(n - 1)
	picked := []*Account{ch.accounts[0]}
	for _, i := range perm[:count-1] {
		picked = append(picked, ch.accounts[i+1])
	}
	slices.SortFunc(picked, func(a, b *Account) int { return cmp.Compare(a.ID, b.ID) })
	for i, a := range picked {
		w := &Witness{
			ID: int64(i), Owner: a.Name, Created: a.Created, URL: "https://hive.blog/@" + a.Name + "/witness",
			SigningKey: g.key(5, a.ID), AccountCreationFee: asset(3000, HIVE), MaximumBlockSize: 65536,
			HBDInterestRate: uint16(g.r.IntN(2000)), HBDExchangeRate: Price{asset(int64(200+g.r.IntN(200)), HBD), asset(1000, HIVE)},
			LastHBDExchangeUpdate: ch.headTime0.Add(-time.Duration(g.r.IntN(86400)) * time.Second), RunningVersion: "1.27.11",
			HardforkTimeVote: ch.genesis, TotalMissed: uint32(g.r.IntN(500)), VirtualScheduledTime: MaxU128,
		}
		if i%4 != 3 { // every fourth witness has no votes
			w.Votes = g.r.Int64N(1 << 62)
			if i%7 == 5 && i > 0 {
				w.Votes = ch.witnesses[i-1].Votes // equal votes: ties resolve by name
			}
			w.VirtualLastUpdate = U128{Lo: g.r.Uint64()}
			w.VirtualPosition = U128{Hi: g.r.Uint64N(1 << 20), Lo: g.r.Uint64()}
			w.VirtualScheduledTime = U128{Hi: g.r.Uint64N(3), Lo: g.r.Uint64()}
			w.LastConfirmedBlockNum = uint64(ch.initialHead) - uint64(g.r.IntN(1000))
			w.LastAslot = w.LastConfirmedBlockNum + uint64(g.r.IntN(1000))
		}
		if i == 0 {
			w.URL = ""
		}
		ch.witnesses = append(ch.witnesses, w)
	}
	ch.witnessByName = make(map[string]*Witness, len(ch.witnesses))
	for _, w := range ch.witnesses {
		ch.witnessByName[w.Owner] = w
	}
	ch.wByVote = sortedBy(ch.witnesses, cmpWitnessVote)
	for _, w := range ch.wByVote {
		if len(ch.schedule) == 21 || (w.Votes == 0 && len(ch.schedule) > 0) {
			break
		}
		ch.schedule = append(ch.schedule, w)
	}
}

// cmpWitnessVote is the by_vote_name order: votes descending, then name ascending.
func cmpWitnessVote(a, b *Witness) int {
	return cmp.Or(-cmp.Compare(a.Votes, b.Votes), strings.Compare(a.Owner, b.Owner))
}

func (g *gen) genWitnessVotes() {
	ch := g.ch
	for _, a := range ch.accounts[1:] {
		if a.Proxy != "" {
			g.addEvent(g.blockAfter(g.createdBlock(a)), opAccountWitnessProxy(a.Name, a.Proxy))
			continue
		}
		k := g.r.IntN(min(len(ch.witnesses), 12))
		for _, wi := range g.r.Perm(len(ch.witnesses))[:k] {
			w := ch.witnesses[wi]
			v := &WitnessVote{ID: int64(len(ch.witnessVotes)), Witness: w.Owner, Account: a.Name}
			ch.witnessVotes = append(ch.witnessVotes, v)
			a.WitnessVotes = append(a.WitnessVotes, w.Owner)
			wAcct := ch.byName[w.Owner]
			blk := g.blockAfter(max(g.createdBlock(a), g.createdBlock(wAcct)))
			g.addEvent(blk, opAccountWitnessVote(a.Name, w.Owner))
		}
		slices.Sort(a.WitnessVotes)
	}
}
