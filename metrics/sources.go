package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hivegate/hivegate/cache"
)

// Sources are read at scrape time. Each function is called once per scrape
// and must be safe for concurrent use; a nil function leaves its metrics
// out. They read whatever the gateway uses at that moment, so metrics follow
// a config reload (a new backend pool) without re-registering anything.
type Sources struct {
	// Cache returns the in-process cache's counters; ok is false when
	// caching is off.
	Cache func() (st cache.Stats, ok bool)
	// Flights returns the coalesced upstream calls in flight and the
	// clients waiting on them (leaders included).
	Flights func() (calls, waiters int)
	// Chain returns the last irreversible block and head block seen (0 when
	// unknown).
	Chain func() (lib, head uint64)
	// Backends returns every configured backend and whether it is up (can
	// be called: a node neither down nor cordoned).
	Backends func() []BackendState
	// Nodes returns every node of every backend.
	Nodes func() []NodeState
	// BlockWait returns the calls the block wait (streams.block_wait)
	// holds now and, since the start, those it released because the block
	// came, because the call's timeout passed (forwarded), or because the
	// client went away.
	BlockWait func() (held, arrived, timedOut, gone int64)
}

// BackendState is one backend's health.
type BackendState struct {
	Name string
	Up   bool
}

// NodeState is one backend node's state. Node is its 1-based position
// among its backend's nodes (a label value, never its URL).
type NodeState struct {
	Backend, Node string
	// Up is false after consecutive failures; InService also needs the
	// node not to lag behind the others.
	Up, InService bool
	// Head is the node's head block as its probes see it (0: unknown).
	Head uint64
	// InFlight is the number of calls being made to it.
	InFlight int64
	// Cordoned is set while an operator keeps new calls away from it.
	Cordoned bool
}

// sourceCollector turns Sources into metrics at scrape time.
type sourceCollector struct {
	src Sources

	cacheHits, cacheMisses, cacheEvictions, cacheExpired *prometheus.Desc
	cacheBytes, cacheEntries, cacheCapacity              *prometheus.Desc
	flights, waiters                                     *prometheus.Desc
	lib, head                                            *prometheus.Desc
	backendUp                                            *prometheus.Desc
	nodeUp, nodeInService, nodeHead, nodeInFlight        *prometheus.Desc
	nodeCordoned                                         *prometheus.Desc
	blockWaitHeld, blockWaits                            *prometheus.Desc
}

func newSourceCollector(ns string, src Sources) *sourceCollector {
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(ns, "", name), help, labels, nil)
	}
	return &sourceCollector{
		src:            src,
		cacheHits:      desc("cache_hits_total", "In-process cache lookups that found a live entry."),
		cacheMisses:    desc("cache_misses_total", "In-process cache lookups that found none (expired entries included)."),
		cacheEvictions: desc("cache_evictions_total", "Cache entries removed to stay within cache_max_capacity."),
		cacheExpired:   desc("cache_expired_total", "Cache entries removed because their TTL had passed."),
		cacheBytes:     desc("cache_bytes", "Bytes of the cache budget in use."),
		cacheEntries:   desc("cache_entries", "Entries in the cache (expired ones not yet removed included)."),
		cacheCapacity:  desc("cache_capacity_bytes", "The cache budget (cache_max_capacity)."),
		flights:        desc("coalesced_flights", "Coalesced upstream calls in flight (one per distinct cache key being fetched)."),
		waiters:        desc("coalesced_waiters", "Clients waiting on coalesced upstream calls, leaders included."),
		lib:            desc("last_irreversible_block", "The highest last irreversible block number seen (0: unknown)."),
		head:           desc("head_block", "The highest head block number seen (0: unknown)."),
		backendUp:      desc("backend_up", "1 when the backend can be called: a node is neither down (node_fail_threshold failures in a row) nor cordoned; 0 otherwise.", "backend"),
		nodeUp:         desc("backend_node_up", "1 when the backend node is reachable, 0 after node_fail_threshold failures in a row.", "backend", "node"),
		nodeInService:  desc("backend_node_in_service", "1 when the backend node takes calls: up, at most node_max_lag_blocks behind its backend's best head, and not cordoned.", "backend", "node"),
		nodeHead:       desc("backend_node_head_block", "The backend node's head block as its probes see it (0: unknown).", "backend", "node"),
		nodeInFlight:   desc("backend_node_requests_in_flight", "Calls being made to the backend node.", "backend", "node"),
		nodeCordoned:   desc("backend_node_cordoned", "1 while an operator has cordoned the backend node: it gets no new calls.", "backend", "node"),
		blockWaitHeld:  desc("block_wait_held", "get_block calls held now until their block exists (streams.block_wait)."),
		blockWaits:     desc("block_wait_total", "get_block calls the block wait held, by how the wait ended: arrived (the block came), timeout (forwarded), gone (the client left).", "outcome"),
	}
}

// Describe implements prometheus.Collector.
func (c *sourceCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		c.cacheHits, c.cacheMisses, c.cacheEvictions, c.cacheExpired,
		c.cacheBytes, c.cacheEntries, c.cacheCapacity,
		c.flights, c.waiters, c.lib, c.head, c.backendUp,
		c.nodeUp, c.nodeInService, c.nodeHead, c.nodeInFlight, c.nodeCordoned,
		c.blockWaitHeld, c.blockWaits,
	} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *sourceCollector) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	if c.src.Cache != nil {
		if st, ok := c.src.Cache(); ok {
			counter(c.cacheHits, float64(st.Hits))
			counter(c.cacheMisses, float64(st.Misses))
			counter(c.cacheEvictions, float64(st.Evictions))
			counter(c.cacheExpired, float64(st.Expired))
			gauge(c.cacheBytes, float64(st.Bytes))
			gauge(c.cacheEntries, float64(st.Entries))
			gauge(c.cacheCapacity, float64(st.Capacity))
		}
	}
	if c.src.Flights != nil {
		calls, waiters := c.src.Flights()
		gauge(c.flights, float64(calls))
		gauge(c.waiters, float64(waiters))
	}
	if c.src.BlockWait != nil {
		held, arrived, timedOut, gone := c.src.BlockWait()
		gauge(c.blockWaitHeld, float64(held))
		counter(c.blockWaits, float64(arrived), "arrived")
		counter(c.blockWaits, float64(timedOut), "timeout")
		counter(c.blockWaits, float64(gone), "gone")
	}
	if c.src.Chain != nil {
		lib, head := c.src.Chain()
		gauge(c.lib, float64(lib))
		gauge(c.head, float64(head))
	}
	if c.src.Backends != nil {
		for _, b := range c.src.Backends() {
			up := 0.0
			if b.Up {
				up = 1
			}
			gauge(c.backendUp, up, b.Name)
		}
	}
	if c.src.Nodes != nil {
		one := func(b bool) float64 {
			if b {
				return 1
			}
			return 0
		}
		for _, n := range c.src.Nodes() {
			gauge(c.nodeUp, one(n.Up), n.Backend, n.Node)
			gauge(c.nodeInService, one(n.InService), n.Backend, n.Node)
			gauge(c.nodeHead, float64(n.Head), n.Backend, n.Node)
			gauge(c.nodeInFlight, float64(n.InFlight), n.Backend, n.Node)
			gauge(c.nodeCordoned, one(n.Cordoned), n.Backend, n.Node)
		}
	}
}
