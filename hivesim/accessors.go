package hivesim

import "slices"

// Read-only views of the generated data, for tests that compute expected pages or check a
// method's answers. Each call returns a fresh slice of copies; nested slices (authorities,
// witness votes) are shared and must not be modified.

func values[T any](rows []*T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = *r
	}
	return out
}

// Accounts returns all accounts sorted by name.
func (n *Node) Accounts() []Account { return values(n.ch.acctByName) }

// Account returns the named account.
func (n *Node) Account(name string) (Account, bool) {
	a := n.ch.byName[name]
	if a == nil {
		return Account{}, false
	}
	return *a, true
}

// Witnesses returns all witnesses sorted by owner name.
func (n *Node) Witnesses() []Witness { return values(n.ch.wByName) }

// WitnessVotes returns all witness votes by id.
func (n *Node) WitnessVotes() []WitnessVote { return values(n.ch.witnessVotes) }

// OwnerHistories returns all owner authority histories by id.
func (n *Node) OwnerHistories() []OwnerHistory { return values(n.ch.ownerHistories) }

// RecoveryRequests returns all account recovery requests by id.
func (n *Node) RecoveryRequests() []RecoveryRequest { return values(n.ch.recoveries) }

// ChangeRecoveryRequests returns all change-recovery-account requests by id.
func (n *Node) ChangeRecoveryRequests() []ChangeRecoveryRequest { return values(n.ch.changeRecoveries) }

// DeclineVotingRightsRequests returns all decline-voting-rights requests by id.
func (n *Node) DeclineVotingRightsRequests() []DeclineVotingRightsRequest {
	return values(n.ch.declines)
}

// Escrows returns all escrows by id.
func (n *Node) Escrows() []Escrow { return values(n.ch.escrows) }

// WithdrawRoutes returns all withdraw vesting routes by id.
func (n *Node) WithdrawRoutes() []WithdrawRoute { return values(n.ch.routes) }

// SavingsWithdrawals returns all savings withdrawals by id.
func (n *Node) SavingsWithdrawals() []SavingsWithdraw { return values(n.ch.savings) }

// VestingDelegations returns all vesting delegations by id.
func (n *Node) VestingDelegations() []VestingDelegation { return values(n.ch.delegations) }

// DelegationExpirations returns all vesting delegation expirations by id.
func (n *Node) DelegationExpirations() []DelegationExpiration { return values(n.ch.expirations) }

// ConvertRequests returns all HBD conversion requests by id.
func (n *Node) ConvertRequests() []ConvertRequest { return values(n.ch.converts) }

// CollateralizedConvertRequests returns all collateralized conversion requests by id.
func (n *Node) CollateralizedConvertRequests() []CollateralizedConvertRequest {
	return values(n.ch.collaterals)
}

// LimitOrders returns all open limit orders by id.
func (n *Node) LimitOrders() []LimitOrder { return values(n.ch.orders) }

// Proposals returns all proposals by id.
func (n *Node) Proposals() []Proposal { return values(n.ch.proposals) }

// ProposalVotes returns all proposal votes by id.
func (n *Node) ProposalVotes() []ProposalVote { return values(n.ch.proposalVotes) }

// Comments returns all comments (posts and replies) by id.
func (n *Node) Comments() []Comment { return values(n.ch.social.comments) }

// Votes returns all comment votes by id.
func (n *Node) Votes() []Vote { return values(n.ch.social.votes) }

// Follows returns all follow and ignore relations, by follower then following.
func (n *Node) Follows() []Follow {
	var out []Follow
	for _, a := range n.ch.acctByName {
		for _, f := range n.ch.social.following[a.Name] {
			out = append(out, *f)
		}
	}
	return out
}

// Blog returns the blog entries of account, oldest first (entry ids 0..n-1).
func (n *Node) Blog(account string) []BlogEntry { return values(n.ch.social.blogs[account]) }

// Tags returns the trending tags in get_trending_tags order.
func (n *Node) Tags() []Tag { return values(n.ch.social.tags) }

// HistoryLen returns the number of operations in account's history.
func (n *Node) HistoryLen(account string) int { return len(n.ch.history[account]) }

// BlocksWithTransactions returns the numbers of the generated blocks that contain
// transactions, ascending.
func (n *Node) BlocksWithTransactions() []uint32 {
	out := make([]uint32, 0, len(n.ch.blocks))
	for num := range n.ch.blocks {
		out = append(out, num)
	}
	slices.Sort(out)
	return out
}

// Communities returns the communities by rank.
func (n *Node) Communities() []Community { return values(n.ch.extra.communities) }

// Subscribers returns a community's subscribers by account name.
func (n *Node) Subscribers(community string) []Subscription {
	if cm := n.ch.extra.communityByName[community]; cm != nil {
		return values(cm.subscribers)
	}
	return nil
}

// Notifications returns an account's notifications, newest first.
func (n *Node) Notifications(account string) []Notification {
	return values(n.ch.extra.notesByAccount[account])
}

// PostNotifications returns a post's notifications, newest first.
func (n *Node) PostNotifications(author, permlink string) []Notification {
	if c := n.ch.social.byKey[author+"/"+permlink]; c != nil {
		return values(n.ch.extra.notesByComment[int(c.ID)])
	}
	return nil
}

// RCDelegations returns the RC delegations by (delegator id, delegatee id).
func (n *Node) RCDelegations() []RCDelegation { return values(n.ch.extra.rcDelegations) }

// Trades returns the internal market's trades, oldest first.
func (n *Node) Trades() []Trade { return values(n.ch.extra.trades) }

// FeedLen is the number of posts in an account's feed.
func (n *Node) FeedLen(account string) int { return len(n.ch.feed(account)) }

// Muted reports whether the simulated chain grays a post (voted below zero).
func Muted(c Comment) bool { return muted(&c) }
