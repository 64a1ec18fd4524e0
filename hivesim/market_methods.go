package hivesim

import (
	"slices"
	"strconv"
	"time"
)

// market_history_api and condenser_api's market methods, over the trades of
// extra_data.go and the open limit orders.

var bucketSizes = []uint32{15, 60, 300, 3600, 86400}

// tradePrice is a trade's price in HBD per HIVE.
func (t *Trade) sides() (hive, hbd int64) {
	if t.CurrentPays.Symbol == HIVE {
		return t.CurrentPays.Amount, t.OpenPays.Amount
	}
	return t.OpenPays.Amount, t.CurrentPays.Amount
}

func (t *Trade) price() float64 {
	hive, hbd := t.sides()
	return float64(hbd) / float64(hive)
}

func writeTrade(w *jw, t *Trade, legacy bool) {
	w.objBegin()
	w.ktime("date", t.Date)
	w.kasset("current_pays", t.CurrentPays, legacy)
	w.kasset("open_pays", t.OpenPays, legacy)
	w.kstr("taker", t.Taker)
	w.kstr("maker", t.Maker)
	w.objEnd()
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
	w.objBegin()
	w.knum("id", int64(b.seconds)*100_000+int64(b.idx))
	w.ktime("open", b.open)
	w.knum("seconds", int64(b.seconds))
	for _, side := range []struct {
		k   string
		hbd bool
	}{{"hive", false}, {"non_hive", true}} {
		pick := func(t *Trade) int64 {
			hive, hbd := t.sides()
			if side.hbd {
				return hbd
			}
			return hive
		}
		w.key(side.k)
		w.objBegin()
		w.ki64("high", pick(b.high))
		w.ki64("low", pick(b.low))
		w.ki64("open", pick(b.first))
		w.ki64("close", pick(b.last))
		vol := b.hiveV
		if side.hbd {
			vol = b.hbdV
		}
		w.ki64("volume", vol)
		w.objEnd()
	}
	w.objEnd()
}

// volume24h is the HIVE and HBD traded in the 24 hours before now.
func (ch *chain) volume24h(now time.Time) (hive, hbd int64) {
	for _, t := range ch.extra.trades {
		if t.Date.After(now.Add(-day)) && !t.Date.After(now) {
			h, d := t.sides()
			hive, hbd = hive+h, hbd+d
		}
	}
	return hive, hbd
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
	hive, hbd := ch.volume24h(now)
	w.objBegin()
	w.kstr("latest", strconv.FormatFloat(latest, 'f', 17, 64))
	w.kstr("lowest_ask", strconv.FormatFloat(ask, 'f', 17, 64))
	w.kstr("highest_bid", strconv.FormatFloat(bid, 'f', 17, 64))
	w.kstr("percent_change", strconv.FormatFloat(change, 'f', 17, 64))
	w.kasset("hive_volume", asset(hive, HIVE), legacy)
	w.kasset("hbd_volume", asset(hbd, HBD), legacy)
	w.objEnd()
}

func writeVolume(w *jw, c *callCtx, legacy bool) {
	hive, hbd := c.n.ch.volume24h(c.now())
	w.objBegin()
	w.kasset("hive_volume", asset(hive, HIVE), legacy)
	w.kasset("hbd_volume", asset(hbd, HBD), legacy)
	w.objEnd()
}

// marketLimit is market_history_api's limit assert.
func (c *callCtx) marketLimit(limit, max uint32) *rpcError {
	if limit == 0 || limit > max {
		expr := "0 < args.limit && args.limit <= " + strconv.Itoa(int(max))
		return c.assertFail(expr, "")
	}
	return nil
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

func registerMarketMethods(r registry) {
	r.hived("market_history_api.get_ticker", func(c *callCtx, p any, w *jw) *rpcError {
		if err := c.noArgs(p); err != nil {
			return err
		}
		writeTicker(w, c, false)
		return nil
	})
	r.hived("market_history_api.get_volume", func(c *callCtx, p any, w *jw) *rpcError {
		if err := c.noArgs(p); err != nil {
			return err
		}
		writeVolume(w, c, false)
		return nil
	})
	r.hived("market_history_api.get_market_history_buckets", func(c *callCtx, p any, w *jw) *rpcError {
		if err := c.noArgs(p); err != nil {
			return err
		}
		w.objBegin()
		w.key("bucket_sizes")
		writeU32s(w, bucketSizes)
		w.objEnd()
		return nil
	})
	r.hived("market_history_api.get_order_book", func(c *callCtx, p any, w *jw) *rpcError {
		o, err := c.asObject(p)
		if err != nil {
			return err
		}
		limit := uint32(500)
		if v, ok := o["limit"]; ok {
			if limit, err = c.asU32(v); err != nil {
				return err
			}
		}
		if err := c.marketLimit(limit, 500); err != nil {
			return err
		}
		writeOrderBook(w, c, int(limit), false)
		return nil
	})
	r.hived("market_history_api.get_trade_history", func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		o := get(in, c.asObject, p)
		start := get(in, c.asTime, o["start"])
		end := get(in, c.asTime, o["end"])
		if in.err != nil {
			return in.err
		}
		var err *rpcError
		limit := uint32(1000)
		if v, ok := o["limit"]; ok {
			if limit, err = c.asU32(v); err != nil {
				return err
			}
		}
		if err := c.marketLimit(limit, 1000); err != nil {
			return err
		}
		writeList(w, "trades", c.n.ch.tradesBetween(start, end, limit), func(w *jw, t *Trade) { writeTrade(w, t, false) })
		return nil
	})
	r.hived("market_history_api.get_recent_trades", func(c *callCtx, p any, w *jw) *rpcError {
		o, err := c.asObject(p)
		if err != nil {
			return err
		}
		limit := uint32(1000)
		if v, ok := o["limit"]; ok {
			if limit, err = c.asU32(v); err != nil {
				return err
			}
		}
		if err := c.marketLimit(limit, 1000); err != nil {
			return err
		}
		writeList(w, "trades", c.n.ch.recentTrades(c.now(), limit), func(w *jw, t *Trade) { writeTrade(w, t, false) })
		return nil
	})
	r.hived("market_history_api.get_market_history", func(c *callCtx, p any, w *jw) *rpcError {
		in := &conv{}
		o := get(in, c.asObject, p)
		seconds := get(in, c.asU32, o["bucket_seconds"])
		start := get(in, c.asTime, o["start"])
		end := get(in, c.asTime, o["end"])
		if in.err != nil {
			return in.err
		}
		writeList(w, "buckets", c.n.ch.marketHistory(seconds, start, end), writeBucket)
		return nil
	})
	// condenser_api forms.
	r.hived("condenser_api.get_ticker", condNoArgs(func(c *callCtx, w *jw) { writeTicker(w, c, true) }))
	r.hived("condenser_api.get_volume", condNoArgs(func(c *callCtx, w *jw) { writeVolume(w, c, true) }))
	r.hived("condenser_api.get_market_history_buckets", condNoArgs(func(c *callCtx, w *jw) { writeU32s(w, bucketSizes) }))
	condLimit := func(p any, c *callCtx, lo, hi int, def, max uint32) ([]any, uint32, *rpcError) {
		args, err := c.condRange(p, lo, hi)
		if err != nil {
			return nil, 0, err
		}
		limit := def
		if len(args) == hi {
			if limit, err = c.asU32(args[hi-1]); err != nil {
				return nil, 0, err
			}
		}
		return args, limit, c.marketLimit(limit, max)
	}
	r.hived("condenser_api.get_order_book", func(c *callCtx, p any, w *jw) *rpcError {
		_, limit, err := condLimit(p, c, 0, 1, 500, 500)
		if err != nil {
			return err
		}
		writeOrderBook(w, c, int(limit), true)
		return nil
	})
	r.hived("condenser_api.get_recent_trades", func(c *callCtx, p any, w *jw) *rpcError {
		_, limit, err := condLimit(p, c, 0, 1, 1000, 1000)
		if err != nil {
			return err
		}
		w.arrBegin()
		for _, t := range c.n.ch.recentTrades(c.now(), limit) {
			writeTrade(w, t, true)
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.get_trade_history", func(c *callCtx, p any, w *jw) *rpcError {
		args, limit, err := condLimit(p, c, 2, 3, 1000, 1000)
		if err != nil {
			return err
		}
		in := &conv{}
		start := get(in, c.asTime, args[0])
		end := get(in, c.asTime, args[1])
		if in.err != nil {
			return in.err
		}
		w.arrBegin()
		for _, t := range c.n.ch.tradesBetween(start, end, limit) {
			writeTrade(w, t, true)
		}
		w.arrEnd()
		return nil
	})
	r.hived("condenser_api.get_market_history", func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condN(p, 3)
		if err != nil {
			return err
		}
		in := &conv{}
		seconds := get(in, c.asU32, args[0])
		start := get(in, c.asTime, args[1])
		end := get(in, c.asTime, args[2])
		if in.err != nil {
			return in.err
		}
		w.arrBegin()
		for _, b := range c.n.ch.marketHistory(seconds, start, end) {
			writeBucket(w, b)
		}
		w.arrEnd()
		return nil
	})
}

func writeU32s(w *jw, vs []uint32) {
	w.arrBegin()
	for _, v := range vs {
		w.num(int64(v))
	}
	w.arrEnd()
}
