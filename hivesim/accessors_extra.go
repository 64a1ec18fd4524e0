package hivesim

// Accessors of the data behind the methods of extra_data.go, for tests that
// check a method's answers against the node's data.

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
