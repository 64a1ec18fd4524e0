package hivesim

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// Chain-wide state shared by database_api and condenser_api (legacy selects
// condenser's asset strings): witness schedule, feeds, reward fund,
// hardforks, version, configuration and the order book.

const (
	blockchainVersion = "1.27.11"
	hardforkVersion   = "1.27.0"
	mainnetChainID    = "beeab0de00000000000000000000000000000000000000000000000000000000"
	hiveRevision      = "db292750555320d8495fda8f86ac5f8715038184"
)

// medianFeed is the median of the witnesses' HBD price feeds.
func (ch *chain) medianFeed() Price {
	feeds := make([]Price, 0, len(ch.witnesses))
	for _, x := range ch.witnesses {
		feeds = append(feeds, x.HBDExchangeRate)
	}
	slices.SortFunc(feeds, func(a, b Price) int { return cmp.Compare(a.Base.Amount, b.Base.Amount) })
	return feeds[len(feeds)/2]
}

// activeWitnesses are the witnesses of the round producing block head.
func (ch *chain) activeWitnesses(head uint32) []string {
	n := len(ch.schedule)
	out := make([]string, 0, min(n, 21))
	start := int(head) - int(head)%n
	for i := 0; i < min(n, 21); i++ {
		out = append(out, ch.schedule[(start+i)%n].Owner)
	}
	return out
}

// rdParams is an rd_dynamic_params object.
func rdParams(budget, decay, shift, pool, minDecay int64) obj {
	return obj{"resource_unit", 10000, "budget_per_time_unit", budget, "pool_eq", pool, "max_pool_size", pool,
		"decay_params", obj{"decay_per_time_unit", decay, "decay_per_time_unit_denom_shift", shift}, "min_decay", minDecay}
}

// chainProps are the median chain properties.
var chainProps = obj{"account_creation_fee", asset(3000, HIVE), "maximum_block_size", 65536, "hbd_interest_rate", 2000,
	"account_subsidy_budget", 797, "account_subsidy_decay", 347321}

func writeChainProps(w *jw, k string, legacy bool) { w.members(legacy, k, chainProps) }

// writeWitnessSchedule writes api_witness_schedule_object.
func writeWitnessSchedule(w *jw, c *callCtx, legacy, future bool) {
	ch := c.n.ch
	n := uint32(len(ch.schedule))
	w.objBegin()
	w.members(legacy, "id", 0, "current_virtual_time", U128{Lo: uint64(c.head) << 20}.String(),
		"next_shuffle_block_num", c.head-c.head%n+n, "current_shuffled_witnesses", ch.activeWitnesses(c.head))
	if future {
		w.kstrs("future_shuffled_witnesses", ch.activeWitnesses(c.head+n))
	}
	w.members(legacy, "num_scheduled_witnesses", min(n, 21), "elected_weight", 1, "timeshare_weight", 5, "miner_weight", 1,
		"witness_pay_normalization_factor", 25, "median_props", chainProps, "majority_version", blockchainVersion,
		"max_voted_witnesses", 20, "max_miner_witnesses", 0, "max_runner_witnesses", 1, "hardfork_required_witnesses", 17,
		"account_subsidy_rd", rdParams(797, 347321, 36, 157691079, 0),
		"account_subsidy_witness_rd", rdParams(996, 7293741, 36, 9384019, 179), "min_witness_account_subsidy_decay", int64(0))
	if future {
		w.members(legacy, "future_changes", obj{"majority_version", blockchainVersion})
	}
	w.objEnd()
}

// feedHistory is the hourly median feed of the last 3.5 days, oldest first.
func (ch *chain) feedHistory(head uint32) []Price {
	median := ch.medianFeed()
	out := make([]Price, 84)
	hour := head / 1200
	for i := range out {
		h := uint64(hour) - uint64(len(out)-1-i)
		out[i] = Price{Base: asset(median.Base.Amount+int64(splitmix64(ch.seed^h)%21)-10, HBD), Quote: asset(1000, HIVE)}
	}
	return out
}

func writeFeedHistory(w *jw, c *callCtx, legacy bool) {
	hist := c.n.ch.feedHistory(c.head)
	sorted := slices.Clone(hist)
	slices.SortFunc(sorted, func(a, b Price) int { return cmp.Compare(a.Base.Amount, b.Base.Amount) })
	median := sorted[len(sorted)/2]
	w.objBegin()
	w.members(legacy, "id", 0, "current_median_history", median, "market_median_history", median,
		"current_min_history", sorted[0], "current_max_history", sorted[len(sorted)-1])
	w.members(legacy, "price_history", hist)
	w.objEnd()
}

func writeRewardFund(w *jw, c *callCtx, legacy bool) {
	w.value(obj{"id", 0, "name", "post", "reward_balance", c.n.ch.supply.totalRewardFund,
		"recent_claims", "709847774236745463", "last_update", c.now(), "content_constant", "2000000000000",
		"percent_curation_rewards", 5000, "percent_content_rewards", 10000,
		"author_reward_curve", "linear", "curation_reward_curve", "linear"}, legacy)
}

// hardforkTimes are the times of hardforks 0..27, spread over the chain's
// first blocks (the simulated chain starts at hardfork 27).
func (ch *chain) hardforkTimes() []time.Time {
	out := make([]time.Time, 28)
	for i := range out {
		out[i] = ch.genesis.Add(time.Duration(i) * time.Hour)
	}
	return out
}

func writeHardforkProps(w *jw, ch *chain) {
	times := ch.hardforkTimes()
	w.value(obj{"id", 0, "processed_hardforks", times, "last_hardfork", len(times) - 1, "current_hardfork_version", hardforkVersion, "next_hardfork", hardforkVersion,
		"next_hardfork_time", times[len(times)-1]}, false)
}

func writeVersion(w *jw) {
	w.value(obj{"blockchain_version", blockchainVersion, "hive_revision", hiveRevision, "fc_revision", hiveRevision,
		"chain_id", mainnetChainID, "node_type", "mainnet"}, false)
}

// writeConfig writes a subset of hived's compile-time constants (mainnet
// values); legacy adds condenser_api's STEEM-era aliases of a few.
func writeConfig(w *jw, legacy bool) {
	w.objBegin()
	w.members(false, "HIVE_100_PERCENT", 10000, "HIVE_1_PERCENT", 100, "HIVE_BLOCK_INTERVAL", 3,
		"HIVE_BLOCKS_PER_DAY", 28800, "HIVE_BLOCKS_PER_YEAR", 10512000,
		"HIVE_CASHOUT_WINDOW_SECONDS", 604800, "HIVE_MAX_ACCOUNT_NAME_LENGTH", 16,
		"HIVE_MIN_ACCOUNT_NAME_LENGTH", 3, "HIVE_MAX_WITNESSES", 21, "HIVE_MAX_VOTED_WITNESSES_HF17", 20,
		"HIVE_VOTING_MANA_REGENERATION_SECONDS", 432000, "HIVE_BLOCKCHAIN_PRECISION", 1000,
		"HIVE_BLOCKCHAIN_PRECISION_DIGITS", 3, "HIVE_IRREVERSIBLE_THRESHOLD", 7500,
		"HIVE_MAX_PROXY_RECURSION_DEPTH", 4, "HIVE_VESTING_WITHDRAW_INTERVALS", 13,
		"HIVE_SAVINGS_WITHDRAW_TIME", 259200000000, "HIVE_DELEGATION_RETURN_PERIOD_HF20", 432000,
		"HIVE_ADDRESS_PREFIX", "STM", "HIVE_BLOCKCHAIN_VERSION", blockchainVersion,
		"HIVE_BLOCKCHAIN_HARDFORK_VERSION", hardforkVersion, "HIVE_CHAIN_ID", mainnetChainID,
		"HIVE_GENESIS_TIME", "2016-03-24T16:00:00")
	for _, s := range []Asset{asset(0, HBD), asset(0, HIVE), asset(0, VESTS)} {
		if legacy {
			w.kstr(s.Symbol+"_SYMBOL", s.Symbol)
		} else {
			w.members(false, s.Symbol+"_SYMBOL", obj{"nai", s.NAI(), "decimals", s.Precision})
		}
	}
	w.objEnd()
}

// orderBookSide lists the bids (orders selling HBD, highest price first) or
// the asks (orders selling HIVE, cheapest first), at most limit of them.
func (ch *chain) orderBookSide(bids bool, limit int) []*LimitOrder {
	var rows []*LimitOrder
	for _, o := range ch.orders {
		if (o.SellPrice.Base.Symbol == HBD) == bids {
			rows = append(rows, o)
		}
	}
	slices.SortStableFunc(rows, func(a, b *LimitOrder) int {
		return cmp.Or(-cmpPrice(a.SellPrice, b.SellPrice), cmp.Compare(a.ID, b.ID))
	})
	if len(rows) > limit {
		rows = rows[:limit]
	}
	return rows
}

// cmpPrice compares base/quote prices of the same pair.
func cmpPrice(a, b Price) int {
	return cmp.Compare(a.Base.Amount*b.Quote.Amount, b.Base.Amount*a.Quote.Amount)
}

// realPrice is an order's price in HBD per HIVE, as hived writes doubles.
func realPrice(p Price) string {
	hive, hbd := p.Base, p.Quote
	if p.Base.Symbol == HBD {
		hive, hbd = p.Quote, p.Base
	}
	if hive.Amount == 0 {
		return "0.00000000000000000"
	}
	return strconv.FormatFloat(float64(hbd.Amount)/float64(hive.Amount), 'f', 17, 64)
}

// writeOrderBook writes the order book's bids and asks (orderBookSide).
func writeOrderBook(w *jw, c *callCtx, limit int, legacy bool) {
	side := func(bids bool) []obj {
		var rows []obj
		for _, o := range c.n.ch.orderBookSide(bids, limit) {
			hive, hbd := o.SellPrice.Base, o.SellPrice.Quote
			if hive.Symbol == HBD {
				hive, hbd = hbd, hive
			}
			rows = append(rows, obj{"order_price", o.SellPrice, "real_price", realPrice(o.SellPrice),
				"hive", hive.Amount, "hbd", hbd.Amount, "created", o.Created})
		}
		return rows
	}
	w.value(obj{"bids", side(true), "asks", side(false)}, legacy)
}
