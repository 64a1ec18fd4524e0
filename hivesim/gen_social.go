package hivesim

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// socialData is the hivemind side of the chain: comments, votes, follows, blogs, tags.
type socialData struct {
	comments       []*Comment          // by id (id == index)
	byKey          map[string]*Comment // "author/permlink"
	votes          []*Vote
	votesByComment [][]*Vote          // per comment id, by voter account id
	votesByVoter   map[string][]*Vote // per voter, by comment id
	cByCashout     []*Comment         // (cashout_time, id)
	cByPermlink    []*Comment         // (author, permlink)
	byRoot         map[int][]*Comment // root index -> thread (root included) by id
	byParent       map[int][]*Comment // parent index -> direct replies by id
	byParentAuthor map[string][]*Comment
	byAuthor       map[string][]*Comment // (last_update desc, id asc)
	postsByAuthor  map[string][]*Comment // root posts, newest first
	followers      map[string][]*Follow  // by following; sorted by follower
	following      map[string][]*Follow  // by follower; sorted by following
	blogs          map[string][]*BlogEntry
	reblogs        map[int][]string // comment index -> rebloggers
	tags           []*Tag           // (total_payouts desc, name asc)
	tagByName      map[string]*Tag
}

var categories = []string{"hive", "photography", "life", "travel", "food", "crypto", "gaming",
	"music", "art", "news", "dev", "science", "nature", "writing", "sports", "history"}

var words = []string{"hive", "block", "witness", "morning", "garden", "journey", "coffee", "market",
	"river", "mountain", "code", "update", "review", "story", "light", "winter", "summer", "city",
	"night", "friends", "recipe", "guide", "notes", "first", "new", "simple", "open", "quiet"}

func (g *gen) sentence(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[g.r.IntN(len(words))]
	}
	return strings.Join(ws, " ")
}

func permlinkTime(t time.Time) string {
	return strings.ToLower(t.Format("20060102t150405")) + "000z"
}

func (g *gen) genSocial() {
	ch, s := g.ch, &g.ch.social
	s.byKey = make(map[string]*Comment)
	var all []*Comment
	add := func(c *Comment) {
		c.indexText()
		key := c.Author + "/" + c.Permlink
		for i := 2; s.byKey[key] != nil; i++ {
			c.Permlink = strings.TrimRight(c.Permlink[:min(len(c.Permlink), 240)], "-") + "-" + strconv.Itoa(i)
			key = c.Author + "/" + c.Permlink
		}
		s.byKey[key] = c
		all = append(all, c)
	}
	for _, a := range ch.accounts[1:] {
		for k := g.r.IntN(7); k > 0; k-- {
			blk := g.blockAfter(g.createdBlock(a))
			title := g.sentence(2 + g.r.IntN(5))
			cat := categories[g.r.IntN(len(categories))]
			add(&Comment{
				Author: a.Name, Permlink: strings.ReplaceAll(title, " ", "-") + "-" + hexHash(4, uint64(blk)^uint64(a.ID)),
				Category: cat, ParentPermlink: cat, Title: strings.ToUpper(title[:1]) + title[1:],
				Body: g.sentence(10+g.r.IntN(40)) + ".", JSONMetadata: `{"tags":["` + cat + `"],"app":"hivesim/1.0"}`,
				block: blk, parent: -1,
			})
		}
	}
	posts := len(all)
	for i := 0; i < posts && posts > 0; i++ {
		pi := g.r.IntN(len(all))
		parent := all[pi]
		if parent.block >= ch.initialHead {
			continue
		}
		a := g.randAcct()
		blk := g.blockAfter(max(parent.block, g.createdBlock(a)))
		if blk-parent.block > 7*blocksPerDay {
			blk = parent.block + 1 + uint32(g.r.IntN(7*blocksPerDay))
		}
		short := strings.TrimRight(parent.Permlink[:min(len(parent.Permlink), 40)], "-")
		add(&Comment{
			Author: a.Name, Permlink: "re-" + parent.Author + "-" + short + "-" + permlinkTime(g.ch.blockTime(blk)),
			ParentAuthor: parent.Author, ParentPermlink: parent.Permlink,
			Body: g.sentence(5+g.r.IntN(20)) + ".", JSONMetadata: `{"app":"hivesim/1.0"}`,
			block: blk, parent: pi,
		})
	}
	// Ids follow block order, creation order within a block, as in hived;
	// parents were indexes in creation order.
	created := slices.Clone(all)
	slices.SortStableFunc(all, func(a, b *Comment) int { return cmp.Compare(a.block, b.block) })
	s.comments = all
	for i, c := range all {
		c.ID = int64(i)
	}
	for _, c := range all {
		if c.parent >= 0 {
			c.parent = int(created[c.parent].ID)
		}
	}
	for _, c := range s.comments {
		g.finishComment(c)
	}
	g.genVotes()
	for _, c := range s.comments {
		g.settlePayout(c)
		g.addEvent(c.block, opCommentOp(c))
	}
	g.genFollows()
	g.genBlogs()
	g.genTags()
}

// finishComment fills the fields derived from the parent chain (processed in id order,
// so parents are complete first).
func (g *gen) finishComment(c *Comment) {
	s := &g.ch.social
	c.Created = g.ch.blockTime(c.block)
	c.LastUpdate = c.Created
	if g.r.IntN(5) == 0 {
		c.LastUpdate = g.secondsAfter(c.Created, 3600)
		if c.LastUpdate.After(g.ch.headTime0) {
			c.LastUpdate = g.ch.headTime0
		}
	}
	c.PercentHBD = 10000
	c.LastPayout = Epoch
	if c.parent < 0 {
		c.root = int(c.ID)
		c.RootAuthor, c.RootPermlink = c.Author, c.Permlink
	} else {
		p := s.comments[c.parent]
		c.Depth = p.Depth + 1
		c.root = p.root
		root := s.comments[c.root]
		c.RootAuthor, c.RootPermlink, c.Category = root.Author, root.Permlink, root.Category
		for a := c.parent; a >= 0; a = s.comments[a].parent {
			s.comments[a].Children++
		}
	}
	a := g.ch.byName[c.Author]
	a.PostCount++
	if c.Created.After(a.LastPost) {
		a.LastPost = c.Created
	}
	if c.parent < 0 && c.Created.After(a.LastRootPost) {
		a.LastRootPost = c.Created
	}
}

func (g *gen) genVotes() {
	ch, s := g.ch, &g.ch.social
	s.votesByComment = make([][]*Vote, len(s.comments))
	s.votesByVoter = make(map[string][]*Vote)
	for _, c := range s.comments {
		var picked [8]*Account
		for k := g.r.IntN(9); k > 0; k-- {
			voter := g.randAcct()
			if slices.Contains(picked[:], voter) {
				continue
			}
			picked[k-1] = voter
			blk := c.block + 1 + uint32(g.r.IntN(7*blocksPerDay))
			if blk > ch.initialHead || g.createdBlock(voter) >= blk {
				continue
			}
			pct := int16(10000)
			switch g.r.IntN(10) {
			case 0:
				pct = -10000
			case 1, 2:
				pct = int16(100 * (1 + g.r.IntN(99)))
			}
			rshares := voter.VestingShares.Amount / 1000 * int64(pct) / 10000
			v := &Vote{
				ID: int64(len(s.votes)), Voter: voter.Name, Author: c.Author, Permlink: c.Permlink,
				Rshares: rshares, VotePercent: pct, LastUpdate: g.ch.blockTime(blk),
				voterID: voter.ID, commentID: c.ID,
			}
			if pct > 0 {
				v.Weight = uint64(rshares) * uint64(1+g.r.IntN(5000))
				c.VoteRshares += rshares
				c.TotalVoteWeight += v.Weight
				c.NetVotes++
			} else {
				c.NetVotes--
			}
			c.NetRshares += rshares
			c.AbsRshares += max(rshares, -rshares)
			if v.LastUpdate.After(voter.LastVoteTime) {
				voter.LastVoteTime = v.LastUpdate
			}
			s.votes = append(s.votes, v)
			s.votesByComment[c.ID] = append(s.votesByComment[c.ID], v)
			s.votesByVoter[voter.Name] = append(s.votesByVoter[voter.Name], v)
			g.addEvent(blk, opVoteOp(voter.Name, c.Author, c.Permlink, pct))
		}
		slices.SortFunc(s.votesByComment[c.ID], func(a, b *Vote) int { return cmp.Compare(a.voterID, b.voterID) })
	}
}

// settlePayout decides whether a comment is paid out at the initial head time.
func (g *gen) settlePayout(c *Comment) {
	value := max(c.NetRshares, 0) / 100_000_000
	cashout := c.Created.Add(7 * day)
	if cashout.After(g.ch.headTime0) {
		c.CashoutTime = cashout
		c.PendingPayout = asset(value, HBD)
		c.TotalPayout = asset(0, HBD)
		c.CuratorPayout = asset(0, HBD)
		return
	}
	c.CashoutTime = MaxTime
	c.LastPayout = cashout
	c.PendingPayout = asset(0, HBD)
	c.CuratorPayout = asset(value/4, HBD)
	c.TotalPayout = asset(value-value/4, HBD)
	c.AuthorRewards = (value - value/4) * 1000
}

func (g *gen) genFollows() {
	ch, s := g.ch, &g.ch.social
	s.followers = make(map[string][]*Follow)
	s.following = make(map[string][]*Follow)
	for _, a := range ch.accounts[1:] {
		seen := map[string]bool{a.Name: true}
		nFollow := g.r.IntN(min(len(ch.accounts)-2, 25))
		nIgnore := g.r.IntN(3)
		for i := 0; i < nFollow+nIgnore; i++ {
			b := g.randOther(a)
			if seen[b.Name] {
				continue
			}
			seen[b.Name] = true
			what := "blog"
			if i >= nFollow {
				what = "ignore"
			}
			f := &Follow{Follower: a.Name, Following: b.Name, What: what}
			s.following[a.Name] = append(s.following[a.Name], f)
			s.followers[b.Name] = append(s.followers[b.Name], f)
			js := `["follow",{"follower":"` + a.Name + `","following":"` + b.Name + `","what":["` + what + `"]}]`
			g.addEvent(g.blockAfter(max(g.createdBlock(a), g.createdBlock(b))), opCustomJSONOp(a.Name, "follow", js))
		}
	}
	for _, fs := range s.following {
		slices.SortFunc(fs, func(x, y *Follow) int { return strings.Compare(x.Following, y.Following) })
	}
	for _, fs := range s.followers {
		slices.SortFunc(fs, func(x, y *Follow) int { return strings.Compare(x.Follower, y.Follower) })
	}
}

// genBlogs builds every account's blog: its own posts plus reblogs, oldest first.
func (g *gen) genBlogs() {
	ch, s := g.ch, &g.ch.social
	s.blogs = make(map[string][]*BlogEntry)
	s.reblogs = make(map[int][]string)
	blocks := map[*BlogEntry]uint32{} // where each entry was made
	add := func(blog string, c *Comment, blk uint32, on time.Time) {
		e := &BlogEntry{Blog: blog, Author: c.Author, Permlink: c.Permlink, RebloggedOn: on, comment: int(c.ID)}
		blocks[e] = blk
		s.blogs[blog] = append(s.blogs[blog], e)
	}
	var roots []*Comment
	for _, c := range s.comments {
		if c.parent < 0 {
			roots = append(roots, c)
			add(c.Author, c, c.block, Epoch)
		}
	}
	seen := map[[2]int64]bool{}
	for i := 0; len(roots) > 0 && i < len(ch.accounts)/2; i++ {
		a := g.randAcct()
		c := roots[g.r.IntN(len(roots))]
		if c.Author == a.Name || seen[[2]int64{a.ID, c.ID}] || c.block >= ch.initialHead {
			continue
		}
		seen[[2]int64{a.ID, c.ID}] = true
		blk := g.blockAfter(max(c.block, g.createdBlock(a)))
		add(a.Name, c, blk, g.ch.blockTime(blk))
		s.reblogs[int(c.ID)] = append(s.reblogs[int(c.ID)], a.Name)
		js := `["reblog",{"account":"` + a.Name + `","author":"` + c.Author + `","permlink":"` + c.Permlink + `"}]`
		g.addEvent(blk, opCustomJSONOp(a.Name, "follow", js))
	}
	for _, es := range s.blogs {
		slices.SortStableFunc(es, func(x, y *BlogEntry) int { return cmp.Compare(blocks[x], blocks[y]) })
		for i, e := range es {
			e.EntryID = uint32(i)
		}
	}
}

func (g *gen) genTags() {
	s := &g.ch.social
	s.tagByName = make(map[string]*Tag)
	for _, c := range s.comments {
		t := s.tagByName[c.Category]
		if t == nil {
			t = &Tag{Name: c.Category, TotalPayouts: asset(0, HBD)}
			s.tagByName[c.Category] = t
			s.tags = append(s.tags, t)
		}
		if c.parent < 0 {
			t.TopPosts++
		} else {
			t.Comments++
		}
		t.TotalPayouts.Amount += payoutHBD(c)
	}
	slices.SortFunc(s.tags, func(a, b *Tag) int {
		return cmp.Or(-cmp.Compare(a.TotalPayouts.Amount, b.TotalPayouts.Amount), strings.Compare(a.Name, b.Name))
	})
}
