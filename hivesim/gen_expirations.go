package hivesim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"
)

// delegationReturnPeriod is HIVE_DELEGATION_RETURN_PERIOD_HF20 (5 days):
// VESTS a delegator takes back come home that long after the reduction.
const delegationReturnPeriod = 5 * day

// expiringDelegators is how many delegators have many expirations pending.
const expiringDelegators = 3

// genReturningDelegations gives the busiest delegators a series of pending
// vesting_delegation_expiration objects, as hived creates them when a
// delegation is reduced or removed: each reduction in the last 5 days
// returns its VESTS 5 days later, and reductions in one block share their
// expiration (ids break the tie). Hived numbers the objects in creation
// order, so ids follow expiration here.
//
// The data comes from its own random source derived from the seed, and is
// appended after the other expirations: every other generated object, and
// the main random sequence, stay as they were.
func (g *gen) genReturningDelegations() {
	ch := g.ch
	x := &gen{r: rand.New(rand.NewPCG(ch.seed, 0x657870697265)), ch: ch, created: g.created}
	owned := map[string][]*VestingDelegation{}
	for _, d := range ch.delegations {
		owned[d.Delegator] = append(owned[d.Delegator], d)
	}
	var delegators []*Account
	for name := range owned {
		delegators = append(delegators, ch.byName[name])
	}
	// The most delegations first, then by account id: no map order leaks.
	slices.SortFunc(delegators, func(a, b *Account) int {
		return cmp.Or(cmp.Compare(len(owned[b.Name]), len(owned[a.Name])), cmp.Compare(a.ID, b.ID))
	})
	var made []*DelegationExpiration
	for _, from := range delegators[:min(expiringDelegators, len(delegators))] {
		var last time.Time
		for k := range 8 + x.r.IntN(17) {
			at := ch.blockTime(x.blockWithin(5*blocksPerDay, g.createdBlock(from))).Add(delegationReturnPeriod)
			if k > 0 && x.r.IntN(4) == 0 {
				at = last // another reduction in the same block
			}
			last = at
			d := owned[from.Name][x.r.IntN(len(owned[from.Name]))]
			made = append(made, &DelegationExpiration{
				Delegator: from.Name, VestingShares: asset(1+x.r.Int64N(d.VestingShares.Amount), VESTS), Expiration: at,
			})
		}
	}
	slices.SortStableFunc(made, func(a, b *DelegationExpiration) int { return a.Expiration.Compare(b.Expiration) })
	for _, e := range made {
		e.ID = int64(len(ch.expirations))
		ch.expirations = append(ch.expirations, e)
	}
}
