package hivesim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Data of the methods beyond the database_api lists: hivemind communities and
// notifications, internal market trades, resource credit delegations,
// recurrent transfers and the lookup indexes (keys, transactions). It is
// generated after everything else from its own random stream, so that the
// rest of the chain does not depend on it.

// Community is a hivemind community.
type Community struct {
	ID          int64
	Name        string // "hive-1xxxxx"
	Title       string
	About       string
	Lang        string
	TypeID      int
	Created     time.Time
	Rank        int    // 1 = first
	Category    string // the posts of this category count as the community's
	Team        []CommunityRole
	subscribers []*Subscription // by account name
}

// CommunityRole is a member of a community with a role other than guest.
type CommunityRole struct {
	Account, Role, Title string
}

// Subscription is an account subscribed to a community.
type Subscription struct {
	Community *Community
	Account   string
	Role      string
	Title     string
	Created   time.Time
}

// Notification is a hivemind notification of an account or a post.
type Notification struct {
	ID      int64
	Type    string
	Score   int
	Date    time.Time
	Msg     string
	URL     string
	dst     string // the notified account
	comment int    // the post it is about, or -1
}

// Trade is a filled order of the internal market.
type Trade struct {
	Date        time.Time `hive:"date"`
	CurrentPays Asset     `hive:"current_pays"`
	OpenPays    Asset     `hive:"open_pays"`
	Taker       string    `hive:"taker"`
	Maker       string    `hive:"maker"`
}

// RCDelegation is resource credits delegated from one account to another.
type RCDelegation struct {
	From   string `hive:"from"`
	To     string `hive:"to"`
	Amount uint64 `hive:"delegated_rc"`
}

// RecurrentTransfer is a transfer repeated every Recurrence hours.
type RecurrentTransfer struct {
	ID                  int64     `hive:"id"`
	TriggerDate         time.Time `hive:"trigger_date"`
	From                string    `hive:"from"`
	To                  string    `hive:"to"`
	Amount              Asset     `hive:"amount"`
	Memo                string    `hive:"memo"`
	Recurrence          uint16    `hive:"recurrence"`
	ConsecutiveFailures uint8     `hive:"consecutive_failures"`
	RemainingExecutions uint16    `hive:"remaining_executions"`
}

// extraData is the data of extra_data.go, with its indexes.
type extraData struct {
	communities     []*Community // by rank
	communityByName map[string]*Community
	subsByAccount   map[string][]*Subscription // by community name
	notifications   []*Notification            // by id
	notesByAccount  map[string][]*Notification // id descending
	notesByComment  map[int][]*Notification    // id descending
	trades          []*Trade                   // by date
	rcDelegations   []*RCDelegation            // by (from, to)
	rcDelegated     map[string]uint64
	rcReceived      map[string]uint64
	recurrent       []*RecurrentTransfer // by (from, to)
	keyRefs         map[string][]string  // public key -> accounts, by name
	txByID          map[string]*txn
}

var communityTitles = []string{"Hive Builders", "Photography Lovers", "Daily Life", "Travel Stories",
	"Food & Recipes", "Crypto Talk", "Gaming Hub", "Music Makers", "Art Gallery", "World News"}

// genExtras generates extraData.
func (g *gen) genExtras(seed int64) {
	x := &gen{r: rand.New(rand.NewPCG(uint64(seed), 0x6578747261)), ch: g.ch, created: g.created}
	e := &g.ch.extra
	x.genCommunities(e)
	x.genNotifications(e)
	x.genTrades(e)
	x.genRC(e)
	x.genRecurrent(e)
	x.indexKeysAndTransactions(e)
}

func (g *gen) genCommunities(e *extraData) {
	ch := g.ch
	e.communityByName = map[string]*Community{}
	e.subsByAccount = map[string][]*Subscription{}
	for i, title := range communityTitles {
		owner := g.randAcct()
		c := &Community{
			ID: int64(1_300_000 + i*101), Name: "hive-1" + strconv.Itoa(10000+i*7919%90000),
			Title: title, About: "A simulated community about " + strings.ToLower(title) + ".",
			Lang: "en", TypeID: 1 + i%3, Created: g.ch.blockTime(g.blockAfter(g.createdBlock(owner))),
			Category: categories[i%len(categories)],
		}
		c.Team = append(c.Team, CommunityRole{Account: c.Name, Role: "owner"})
		seen := map[string]bool{}
		for k := 0; k < 2+g.r.IntN(3); k++ {
			a := g.randAcct()
			if seen[a.Name] {
				continue
			}
			seen[a.Name] = true
			role := "mod"
			if k == 0 {
				role = "admin"
			}
			c.Team = append(c.Team, CommunityRole{Account: a.Name, Role: role, Title: []string{"", "Curator", "Founder"}[g.r.IntN(3)]})
		}
		for k := 0; k < 5+g.r.IntN(len(ch.accounts)/4); k++ {
			a := g.randAcct()
			if seen[a.Name+"/s"] {
				continue
			}
			seen[a.Name+"/s"] = true
			s := &Subscription{Community: c, Account: a.Name, Role: "guest", Created: g.ch.blockTime(g.blockAfter(max(g.createdBlock(a), g.ch.blockOf(c.Created))))}
			for _, r := range c.Team {
				if r.Account == a.Name {
					s.Role, s.Title = r.Role, r.Title
				}
			}
			c.subscribers = append(c.subscribers, s)
			e.subsByAccount[a.Name] = append(e.subsByAccount[a.Name], s)
		}
		slices.SortFunc(c.subscribers, func(a, b *Subscription) int { return strings.Compare(a.Account, b.Account) })
		e.communities = append(e.communities, c)
		e.communityByName[c.Name] = c
	}
	slices.SortStableFunc(e.communities, func(a, b *Community) int { return -cmp.Compare(len(a.subscribers), len(b.subscribers)) })
	for i, c := range e.communities {
		c.Rank = i + 1
	}
	for _, ss := range e.subsByAccount {
		slices.SortFunc(ss, func(a, b *Subscription) int { return strings.Compare(a.Community.Name, b.Community.Name) })
	}
}

// genNotifications derives notifications from votes, replies, reblogs and
// follows, numbered in time order as hivemind's notification cache is.
func (g *gen) genNotifications(e *extraData) {
	ch := g.ch
	s := &ch.social
	score := func(name string) int { return 25 + int(ch.byName[name].ID%76) }
	var all []*Notification
	for _, v := range s.votes {
		c := s.comments[v.commentID]
		if v.Voter == c.Author || v.Rshares <= 0 {
			continue
		}
		all = append(all, &Notification{Type: "vote", Score: score(v.Voter), Date: v.LastUpdate, dst: c.Author, comment: int(c.ID),
			Msg: "@" + v.Voter + " voted on your post ($" + legacyAmount(asset(v.Rshares/100_000_000, HBD)) + ")",
			URL: "@" + c.Author + "/" + c.Permlink})
	}
	for _, c := range s.comments {
		if c.parent < 0 {
			continue
		}
		p := s.comments[c.parent]
		if p.Author == c.Author {
			continue
		}
		all = append(all, &Notification{Type: "reply", Score: score(c.Author), Date: c.Created, dst: p.Author, comment: c.parent,
			Msg: "@" + c.Author + " replied to your post", URL: "@" + c.Author + "/" + c.Permlink})
	}
	for _, a := range ch.accounts {
		for _, b := range s.blogs[a.Name] {
			if b.Author == b.Blog {
				continue
			}
			all = append(all, &Notification{Type: "reblog", Score: score(b.Blog), Date: b.RebloggedOn, dst: b.Author, comment: b.comment,
				Msg: "@" + b.Blog + " reblogged your post", URL: "@" + b.Author + "/" + b.Permlink})
		}
	}
	for _, a := range ch.accounts {
		for _, f := range s.following[a.Name] {
			if f.What != "blog" {
				continue
			}
			when := g.ch.blockTime(g.blockAfter(max(g.createdBlock(ch.byName[f.Follower]), g.createdBlock(ch.byName[f.Following]))))
			all = append(all, &Notification{Type: "follow", Score: score(f.Follower), Date: when, dst: f.Following, comment: -1,
				Msg: "@" + f.Follower + " followed you", URL: "@" + f.Follower})
		}
	}
	slices.SortStableFunc(all, func(a, b *Notification) int {
		return cmp.Or(a.Date.Compare(b.Date), strings.Compare(a.dst, b.dst), strings.Compare(a.Msg, b.Msg))
	})
	e.notesByAccount = map[string][]*Notification{}
	e.notesByComment = map[int][]*Notification{}
	for i, n := range all {
		n.ID = int64(9_000_000 + i)
	}
	e.notifications = all
	for i := len(all) - 1; i >= 0; i-- {
		n := all[i]
		e.notesByAccount[n.dst] = append(e.notesByAccount[n.dst], n)
		if n.comment >= 0 {
			e.notesByComment[n.comment] = append(e.notesByComment[n.comment], n)
		}
	}
}

// legacyAmount is the number part of a legacy asset ("0.123").
func legacyAmount(a Asset) string {
	s := a.String()
	return s[:strings.IndexByte(s, ' ')]
}

// genTrades fills orders of the internal market over the 30 days before the
// initial head, around 0.25 HBD per HIVE.
func (g *gen) genTrades(e *extraData) {
	ch := g.ch
	start := ch.headTime0.Add(-30 * day)
	t := start
	for i := 0; i < 40*len(ch.accounts)/10; i++ {
		t = t.Add(time.Duration(1+g.r.IntN(int(30*day/time.Second)/(4*len(ch.accounts)/10))) * time.Second)
		if !t.Before(ch.headTime0) {
			break
		}
		hive := int64(1 + g.r.IntN(50_000))
		hbd := hive * int64(230+g.r.IntN(40)) / 1000
		if hbd == 0 {
			hbd = 1
		}
		taker, maker := g.randAcct(), g.randAcct()
		tr := &Trade{Date: t, Taker: taker.Name, Maker: maker.Name}
		if g.r.IntN(2) == 0 {
			tr.CurrentPays, tr.OpenPays = asset(hbd, HBD), asset(hive, HIVE)
		} else {
			tr.CurrentPays, tr.OpenPays = asset(hive, HIVE), asset(hbd, HBD)
		}
		e.trades = append(e.trades, tr)
	}
}

// genRC generates direct RC delegations.
func (g *gen) genRC(e *extraData) {
	ch := g.ch
	seen := map[[2]string]bool{}
	for i := 0; i < len(ch.accounts)/3; i++ {
		from, to := g.randAcct(), g.randAcct()
		if from == to || seen[[2]string{from.Name, to.Name}] {
			continue
		}
		seen[[2]string{from.Name, to.Name}] = true
		e.rcDelegations = append(e.rcDelegations, &RCDelegation{From: from.Name, To: to.Name, Amount: uint64(1+g.r.IntN(50)) * 1_000_000_000})
	}
	// hived's by_from index: (delegator id, delegatee id).
	slices.SortFunc(e.rcDelegations, func(a, b *RCDelegation) int {
		return cmp.Or(cmp.Compare(ch.byName[a.From].ID, ch.byName[b.From].ID), cmp.Compare(ch.byName[a.To].ID, ch.byName[b.To].ID))
	})
	e.rcDelegated, e.rcReceived = map[string]uint64{}, map[string]uint64{}
	for _, d := range e.rcDelegations {
		e.rcDelegated[d.From] += d.Amount
		e.rcReceived[d.To] += d.Amount
	}
}

func (g *gen) genRecurrent(e *extraData) {
	ch := g.ch
	seen := map[[2]string]bool{}
	for i := 0; i < max(4, len(ch.accounts)/8); i++ {
		from, to := g.randAcct(), g.randAcct()
		if from == to || seen[[2]string{from.Name, to.Name}] {
			continue
		}
		seen[[2]string{from.Name, to.Name}] = true
		sym := HIVE
		if g.r.IntN(3) == 0 {
			sym = HBD
		}
		rec := uint16(24 * (1 + g.r.IntN(30)))
		e.recurrent = append(e.recurrent, &RecurrentTransfer{
			TriggerDate: ch.headTime0.Add(time.Duration(1+g.r.IntN(int(rec))) * time.Hour),
			From:        from.Name, To: to.Name, Amount: asset(int64(1+g.r.IntN(100))*1000, sym),
			Memo: memos[g.r.IntN(len(memos))], Recurrence: rec, RemainingExecutions: uint16(1 + g.r.IntN(24)),
		})
	}
	slices.SortFunc(e.recurrent, func(a, b *RecurrentTransfer) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	for i, r := range e.recurrent {
		r.ID = int64(i)
	}
}

func (g *gen) indexKeysAndTransactions(e *extraData) {
	ch := g.ch
	e.keyRefs = map[string][]string{}
	for _, a := range ch.accounts {
		seen := map[string]bool{}
		for _, auth := range []Authority{a.Owner, a.Active, a.Posting} {
			for _, k := range auth.KeyAuths {
				if !seen[k.Name] {
					seen[k.Name] = true
					e.keyRefs[k.Name] = append(e.keyRefs[k.Name], a.Name)
				}
			}
		}
	}
	for _, names := range e.keyRefs {
		slices.Sort(names)
	}
	e.txByID = map[string]*txn{}
	for _, txs := range ch.blocks {
		for _, tx := range txs {
			e.txByID[tx.ID] = tx
		}
	}
}
