package hivesim

import (
	"slices"
	"strconv"
	"time"
)

// market_history_api and condenser_api's market methods, over the trades of
// extra_data.go and the open limit orders.

var bucketSizes = []uint32{15, 60, 300, 3600, 86400}

// sides is what a trade moved: its HIVE and HBD amounts.
func (t *Trade) sides() (hive, hbd int64) {
	if t.CurrentPays.Symbol == HIVE {
		return t.CurrentPays.Amount, t.OpenPays.Amount
	}
	return t.OpenPays.Amount, t.CurrentPays.Amount
}

// price is a trade's price in HBD per HIVE.
func (t *Trade) price() float64 {
	hive, hbd := t.sides()
	return float64(hbd) / float64(hive)
}

// bucket is one market history bucket being built.
type bucket struct {
	open         time.Time
	high, low    *Trade
	first, last  *Trade
	hiveV, hbdV  int64
	seconds, idx uint32
}

// marketHistory builds the buckets of size seconds whose open time is in
// [start, end], at most 200 of them (hived's limit).
func (ch *chain) marketHistory(seconds uint32, start, end time.Time) []*bucket {
	if !slices.Contains(bucketSizes, seconds) {
		return nil
	}
	var out []*bucket
	var cur *bucket
	for _, t := range ch.extra.trades {
		open := t.Date.Truncate(time.Duration(seconds) * time.Second)
		if open.Before(start) || open.After(end) {
			continue
		}
		if cur == nil || !cur.open.Equal(open) {
			if len(out) == 200 {
				break
			}
			cur = &bucket{open: open, seconds: seconds, high: t, low: t, first: t, idx: uint32(len(out))}
			out = append(out, cur)
		}
		if t.price() > cur.high.price() {
			cur.high = t
		}
		if t.price() < cur.low.price() {
			cur.low = t
		}
		cur.last = t
		hive, hbd := t.sides()
		cur.hiveV += hive
		cur.hbdV += hbd
	}
	return out
}

func writeBucket(w *jw, b *bucket) {
	side := func(pick func(hive, hbd int64) int64, volume int64) obj {
		at := func(t *Trade) int64 { return pick(t.sides()) }
		return obj{"high", at(b.high), "low", at(b.low), "open", at(b.first), "close", at(b.last), "volume", volume}
	}
	writeValue(w, obj{"id", int64(b.seconds)*100_000 + int64(b.idx), "open", b.open, "seconds", b.seconds,
		"hive", side(func(hive, _ int64) int64 { return hive }, b.hiveV),
		"non_hive", side(func(_, hbd int64) int64 { return hbd }, b.hbdV)}, false)
}

func writeTicker(w *jw, c *callCtx, legacy bool) {
	ch := c.n.ch
	now := c.now()
	latest, before := 0.0, 0.0
	for _, t := range ch.extra.trades {
		if t.Date.After(now) {
			break
		}
		latest = t.price()
		if !t.Date.After(now.Add(-day)) {
			before = latest
		}
	}
	change := 0.0
	if before != 0 {
		change = (latest - before) / before * 100
	}
	ask, bid := 0.0, 0.0
	if asks := ch.orderBookSide(false, 1); len(asks) > 0 {
		ask, _ = strconv.ParseFloat(realPrice(asks[0].SellPrice), 64)
	}
	if bids := ch.orderBookSide(true, 1); len(bids) > 0 {
		bid, _ = strconv.ParseFloat(realPrice(bids[0].SellPrice), 64)
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 17, 64) }
	writeValue(w, append(obj{"latest", f(latest), "lowest_ask", f(ask), "highest_bid", f(bid), "percent_change", f(change)},
		volumes(c)...), legacy)
}

func writeVolume(w *jw, c *callCtx, legacy bool) { writeValue(w, volumes(c), legacy) }

// volumes is the HIVE and HBD traded in the 24 hours before now.
func volumes(c *callCtx) obj {
	var hive, hbd int64
	now := c.now()
	for _, t := range c.n.ch.extra.trades {
		if t.Date.After(now.Add(-day)) && !t.Date.After(now) {
			h, d := t.sides()
			hive, hbd = hive+h, hbd+d
		}
	}
	return obj{"hive_volume", asset(hive, HIVE), "hbd_volume", asset(hbd, HBD)}
}

func (ch *chain) tradesBetween(start, end time.Time, limit uint32) []*Trade {
	var out []*Trade
	for _, t := range ch.extra.trades {
		if uint32(len(out)) == limit || t.Date.After(end) {
			break
		}
		if !t.Date.Before(start) {
			out = append(out, t)
		}
	}
	return out
}

func (ch *chain) recentTrades(now time.Time, limit uint32) []*Trade {
	var out []*Trade
	for i := len(ch.extra.trades) - 1; i >= 0 && uint32(len(out)) < limit; i-- {
		if t := ch.extra.trades[i]; !t.Date.After(now) {
			out = append(out, t)
		}
	}
	return out
}

// optLimit reads the optional limit args[i] (def when left out) and checks it
// with market_history_api's assert: 0 < limit <= def.
func (c *callCtx) optLimit(args []any, i int, def uint32) uint32 {
	limit := def
	if i < len(args) {
		limit = need(c.asU32(args[i]))
	}
	if limit == 0 || limit > def {
		raiseIf(c.assertFail("0 < args.limit && args.limit <= "+strconv.Itoa(int(def)), ""))
	}
	return limit
}

func registerMarketMethods(r registry) {
	noArgs := func(name, key string, write func(w *jw, c *callCtx, legacy bool)) twin {
		return twin{api: "market_history_api", name: name, key: key, serve: func(c *callCtx, _ []any, w *jw, legacy bool) *rpcError {
			write(w, c, legacy)
			return nil
		}}
	}
	trades := func(w *jw, rows []*Trade, legacy bool) {
		writeRows(w, rows, func(w *jw, t *Trade) { writeObject(w, t, legacy) })
	}
	r.twins(noArgs("get_ticker", "", writeTicker), noArgs("get_volume", "", writeVolume),
		noArgs("get_market_history_buckets", "bucket_sizes", func(w *jw, _ *callCtx, _ bool) { writeValue(w, bucketSizes, false) }),
		twin{api: "market_history_api", name: "get_order_book", obj: []string{"limit"}, optional: 1,
			serve: raisingServe(func(c *callCtx, args []any, w *jw, legacy bool) {
				writeOrderBook(w, c, int(c.optLimit(args, 0, 500)), legacy)
			})},
		twin{api: "market_history_api", name: "get_recent_trades", obj: []string{"limit"}, optional: 1, key: "trades",
			serve: raisingServe(func(c *callCtx, args []any, w *jw, legacy bool) {
				trades(w, c.n.ch.recentTrades(c.now(), c.optLimit(args, 0, 1000)), legacy)
			})},
		twin{api: "market_history_api", name: "get_trade_history", obj: []string{"start", "end", "limit"}, optional: 1, key: "trades",
			serve: raisingServe(func(c *callCtx, args []any, w *jw, legacy bool) {
				// market_history_api reads start and end first, condenser_api the limit.
				var limit uint32
				if legacy {
					limit = c.optLimit(args, 2, 1000)
				}
				start, end := need(c.asTime(args[0])), need(c.asTime(args[1]))
				if !legacy {
					limit = c.optLimit(args, 2, 1000)
				}
				trades(w, c.n.ch.tradesBetween(start, end, limit), legacy)
			})},
		twin{api: "market_history_api", name: "get_market_history", obj: []string{"bucket_seconds", "start", "end"}, key: "buckets",
			serve: raisingServe(func(c *callCtx, args []any, w *jw, _ bool) {
				seconds := need(c.asU32(args[0]))
				start, end := need(c.asTime(args[1])), need(c.asTime(args[2]))
				writeRows(w, c.n.ch.marketHistory(seconds, start, end), writeBucket)
			})})
}
