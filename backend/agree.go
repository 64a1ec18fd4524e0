package backend

import (
	"cmp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// How the prober judges nodes and what the chain's head and last
// irreversible block (LIB) are taken to be.
//
// Each probe of a hived node yields its claim: head block, its time, LIB.
// A claim is implausible, and its node out of service, when
//   - it has no head block time, or its LIB is above its head;
//   - its head block time lies more than maxClockSkew in the future;
//   - it contradicts the backend's anchor, the head the nodes last agreed
//     on and its time: Hive makes at most one block per 3-second slot, so
//     a head d blocks past the anchor has a time at least 3d seconds
//     later, one d blocks before it a time at least 3d seconds earlier
//     (give or take forkSlack blocks). A head far beyond what time allows
//     needs a block time in the future, and one far behind with a fresh
//     time is a lie as well.
//
// The plausible claims then agree, once a quorum of the backend's nodes
// (a majority of those not down and not proven implausible, so that nodes
// not probed yet count against a lone early answer) have answered: the
// reference is the lower median claim by head (the lower of two: a node
// cannot raise what the gateway trusts by claiming more), and a claim that
// contradicts it (by the same rule as the anchor) is out of service too.
// The trusted head is the reference's, the trusted LIB the lower median of
// the claims' LIBs, so that a block is final only when most (of two,
// both) nodes say so, and never above the trusted head. Both are
// recomputed at every probe, never kept because they were higher: a LIB
// proven wrong comes down. Without a quorum the last agreement stays.
//
// Of two plausible nodes that contradict each other before any agreement,
// the gateway cannot tell which lies: it trusts the lower (safe for the
// cache) and takes the other out of service; with three or more the
// median decides.
//
// A node that agrees is still out of service while its head is more than
// MaxLagBlocks behind the best head of the nodes that agree (lagging) or
// its head block is older than MaxHeadAge (stale). hivemind and HAfAH nodes are judged by
// their own sync state (probe.go), nodes of other kinds by answering.

// forkSlack is how many blocks a claim may stray from what the 3-second
// rule allows: honest nodes on two sides of a short fork.
const forkSlack = 3

// Agreement is what the hived nodes of a backend agree on.
type Agreement struct {
	// Head is the trusted head block, Time its time.
	Head uint64
	Time time.Time
	// LIB is the trusted last irreversible block; never above Head.
	LIB uint64
	// At is when it was reached, by the pool's clock.
	At time.Time
	// Nodes is the number of nodes that agree.
	Nodes int
}

// trust is a backend's judging state.
type trust struct {
	// mu serializes the judging of the backend's nodes; anchor, under it,
	// is the head (and its time) they last agreed on.
	mu     sync.Mutex
	anchor *headView
	// agreed is the last agreement of the backend's hived nodes, nil
	// before the first.
	agreed atomic.Pointer[Agreement]
}

// judgement is a node's judging state.
type judgement struct {
	// verdict is the node's latest verdict; nil before its first probe.
	verdict atomic.Pointer[verdict]
	// last is the outcome of the node's last probe (nil: none, or it
	// failed), kind the kind it last answered as, probeErr why the last
	// probe failed; all under the backend's trust.mu.
	last     *probeOutcome
	kind     Kind
	probeErr string
}

// verdict is the prober's judgement of one node.
type verdict struct {
	kind    Kind
	view    headView
	hasView bool
	// out takes the node out of service (nodes.go); reason says why.
	out     bool
	lagging bool
	reason  string
}

// record keeps the outcome of a probe of n (nil: the probe failed) and
// judges the backend's nodes again.
func (p *Pool) record(be *backend, n *node, out *probeOutcome, cause error) {
	be.trust.mu.Lock()
	defer be.trust.mu.Unlock()
	n.judged.last = out
	if out != nil {
		n.judged.kind = out.kind
		n.judged.probeErr = ""
	} else if cause != nil {
		n.judged.probeErr = "last probe failed"
	}
	p.judgeLocked(be)
}

// claim is one node's plausible hived claim.
type claim struct {
	n *node
	v headView
}

// judgeLocked judges every node of be from its last probe and updates the
// backend's agreement. be.mu is held.
func (p *Pool) judgeLocked(be *backend) {
	now := p.opts.Now()
	verdicts := make(map[*node]*verdict, len(be.nodes))
	var claims []claim
	anchorOnly := 0 // claims whose only fault is to contradict the anchor
	eligible := 0   // nodes that may take part in the agreement
	for _, n := range be.nodes {
		v := &verdict{kind: n.judged.kind}
		verdicts[n] = v
		o := n.judged.last
		if o == nil {
			v.reason = n.judged.probeErr
			if v.reason == "" {
				v.reason = "not probed yet"
			}
			if prev := n.judged.verdict.Load(); prev != nil && prev.out {
				// Out it stays until a probe answers: failing a probe must
				// not bring a node judged unfit back.
				v.out, v.lagging, v.reason = true, prev.lagging, prev.reason
			}
			if !n.health.down.Load() && (v.kind == KindUnknown || v.kind == KindHived) {
				eligible++ // it may yet agree: its silence must not hand the vote to the others
			}
			continue
		}
		v.kind = o.kind
		if o.kind == KindHived || o.kind == KindHivemind {
			v.view, v.hasView = o.view, true
		}
		switch {
		case o.problem != "":
			v.out, v.reason = true, o.problem
		case o.kind == KindHived:
			if why := implausible(o.view, be.trust.anchor, now); why != "" {
				if implausible(o.view, nil, now) == "" {
					anchorOnly++
				}
				v.out, v.reason = true, "implausible: "+why
				continue
			}
			claims = append(claims, claim{n, o.view})
			eligible++
		}
	}
	if len(claims) == 0 && anchorOnly >= 2 && be.trust.anchor != nil {
		// Every node contradicts the anchor, and more than one says so:
		// the anchor is what is wrong (a chain restarted, a majority that
		// lied once). Judge again without it.
		p.logger.Warn("backend nodes all contradict the head they agreed on before: forgetting it", "backend", be.name, "head", be.trust.anchor.Head)
		be.trust.anchor = nil
		p.judgeLocked(be)
		return
	}
	if len(claims) > 0 {
		p.agreeLocked(be, claims, verdicts, now, eligible/2+1)
	}
	for _, n := range be.nodes {
		v := verdicts[n]
		if old := n.judged.verdict.Load(); (old == nil && v.out) || (old != nil && old.out != v.out) {
			if v.out {
				p.logger.Warn("backend node out of service", "backend", be.name, "node", n.index, "reason", v.reason, "head", v.view.Head, "lib", v.view.LIB, "time", v.view.Time)
			} else {
				p.logger.Info("backend node back in service", "backend", be.name, "node", n.index)
			}
		}
		n.judged.verdict.Store(v)
	}
}

// agreeLocked judges the plausible claims against their reference (the
// lower median by head) and, when at least quorum of them are in, stores
// their agreement and moves the anchor. Every plausible claim counts in
// the agreement, a contradicting one too: the lower median of two is the
// lower claim, whoever lies, and a liar among three is outvoted.
func (p *Pool) agreeLocked(be *backend, claims []claim, verdicts map[*node]*verdict, now time.Time, quorum int) {
	slices.SortStableFunc(claims, func(a, b claim) int { return cmp.Compare(a.v.Head, b.v.Head) })
	ref := claims[(len(claims)-1)/2].v
	if len(claims) >= quorum {
		libs := make([]uint64, len(claims))
		for i, c := range claims {
			libs[i] = c.v.LIB
		}
		slices.Sort(libs)
		a := &Agreement{Head: ref.Head, Time: ref.Time, LIB: min(libs[(len(libs)-1)/2], ref.Head), At: now, Nodes: len(claims)}
		be.trust.agreed.Store(a)
		be.trust.anchor = &headView{Head: ref.Head, Time: ref.Time}
	}
	// Laggards are found against the best head of the claims that agree
	// with the reference (honest nodes always do, whatever their lag).
	var best uint64
	for _, c := range claims {
		if why := contradicts(c.v, ref); why != "" {
			verdicts[c.n].out, verdicts[c.n].reason = true, "disagrees with the other nodes: "+why
			continue
		}
		best = max(best, c.v.Head)
	}
	maxLag := uint64(p.opts.MaxLagBlocks)
	for _, c := range claims {
		v := verdicts[c.n]
		if v.out {
			continue
		}
		behind := best - min(c.v.Head, best)
		v.lagging = maxLag > 0 && behind > maxLag
		switch age := now.Sub(c.v.Time); {
		case v.lagging:
			v.out, v.reason = true, "lagging: "+strconv.FormatUint(behind, 10)+" blocks behind "+strconv.FormatUint(best, 10)+" (max "+strconv.FormatUint(maxLag, 10)+")"
		case p.opts.MaxHeadAge > 0 && age > p.opts.MaxHeadAge:
			v.out, v.reason = true, "head block "+strconv.FormatUint(c.v.Head, 10)+" is "+roundAge(age)+" old (max "+p.opts.MaxHeadAge.String()+")"
		}
	}
}

// implausible says why a hived claim cannot be true ("" when it can): by
// itself, by the gateway's clock, and against the anchor (nil: none yet).
func implausible(v headView, anchor *headView, now time.Time) string {
	switch {
	case v.Time.IsZero():
		return "no head block time"
	case v.LIB > v.Head:
		return "last irreversible block " + strconv.FormatUint(v.LIB, 10) + " above head block " + strconv.FormatUint(v.Head, 10)
	case v.Time.After(now.Add(maxClockSkew)):
		return "head block time " + v.Time.Format(time.DateTime) + " is in the future"
	case anchor != nil:
		return contradicts(v, *anchor)
	}
	return ""
}

// contradicts says why claim v cannot be on the same chain as ref ("" when
// it can): a head d blocks past ref's needs a time at least 3d seconds
// after ref's, one d blocks before it a time at least 3d seconds before.
func contradicts(v, ref headView) string {
	slack := forkSlack * blockInterval
	switch {
	case v.Head >= ref.Head:
		d := v.Head - ref.Head
		if earliest := ref.Time.Add(time.Duration(min(d, 1<<31)) * blockInterval).Add(-slack); v.Time.Before(earliest) {
			return "head " + strconv.FormatUint(v.Head, 10) + " is " + strconv.FormatUint(d, 10) + " blocks past " + strconv.FormatUint(ref.Head, 10) + ", more than its time allows"
		}
	default:
		d := ref.Head - v.Head
		if latest := ref.Time.Add(-time.Duration(min(d, 1<<31)) * blockInterval).Add(slack); v.Time.After(latest) {
			return "head " + strconv.FormatUint(v.Head, 10) + " is " + strconv.FormatUint(d, 10) + " blocks behind " + strconv.FormatUint(ref.Head, 10) + " with a block time too late for it"
		}
	}
	return ""
}

// Agreement returns what the hived nodes of the named backend last agreed
// on; ok is false while they have not (no plausible probe answer yet, or
// a backend of other nodes).
func (p *Pool) Agreement(name string) (Agreement, bool) {
	be, ok := p.backends[name]
	if !ok {
		return Agreement{}, false
	}
	a := be.trust.agreed.Load()
	if a == nil {
		return Agreement{}, false
	}
	return *a, true
}

// chainHead is the highest head any backend's hived nodes agree on, 0 when
// none does: HAfAH nodes are judged against it.
func (p *Pool) chainHead() uint64 {
	var h uint64
	for _, be := range p.backends {
		if a := be.trust.agreed.Load(); a != nil {
			h = max(h, a.Head)
		}
	}
	return h
}
