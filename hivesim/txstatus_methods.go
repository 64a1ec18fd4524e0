package hivesim

import "time"

// hived's transaction_status_api: where a transaction is. The node tracks
// the generated history's transactions and the ones broadcast to it; a
// broadcast transaction is in the mempool until the head reaches the block
// it counts in (the next block when it was broadcast).

// txStatusBlockDepth is the transaction_status plugin's default
// transaction-status-block-depth: how many blocks back it tracks.
const txStatusBlockDepth = 64_000

func registerTxStatusMethods(r registry) {
	r.hived("transaction_status_api.find_transaction", findTransaction)
}

// findTransaction answers as hived's transaction_status_api_impl: a
// tracked transaction's status and block; otherwise, given its
// expiration, too_old (before the earliest tracked block could have held
// it), expired_irreversible (expired by the last irreversible block's
// time), expired_reversible (by the head's time) or unknown.
func findTransaction(c *callCtx, p any, w *jw) *rpcError {
	in := &conv{}
	o := get(in, c.asObject, p)
	id := get(in, c.asString, o["transaction_id"])
	var expiration time.Time
	if v, ok := o["expiration"]; ok && v != nil {
		expiration = get(in, c.asTime, v)
	}
	if in.err != nil {
		return in.err
	}
	last := lib(c.head, c.n.opts.IrreversibleLag)
	block := uint32(0)
	if tx := c.n.ch.extra.txByID[id]; tx != nil && tx.Block <= c.head {
		block = tx.Block
	} else if b, ok := c.n.ledger.blockOf[id]; ok {
		block = b
	}
	w.objBegin()
	switch {
	case block > c.head:
		w.kstr("status", "within_mempool")
	case block > 0 && block <= last:
		w.kstr("status", "within_irreversible_block")
		w.knum("block_num", int64(block))
	case block > 0:
		w.kstr("status", "within_reversible_block")
		w.knum("block_num", int64(block))
	case expiration.IsZero():
		w.kstr("status", "unknown")
	case expiration.Before(c.n.ch.blockTime(max(c.head, txStatusBlockDepth) - txStatusBlockDepth).Add(maxTimeUntilExpiration)):
		w.kstr("status", "too_old")
	case !c.n.ch.blockTime(last).Before(expiration):
		w.kstr("status", "expired_irreversible")
	case !c.n.ch.blockTime(c.head).Before(expiration):
		w.kstr("status", "expired_reversible")
	default:
		w.kstr("status", "unknown")
	}
	w.objEnd()
	return nil
}
