package hivesim

import (
	"strings"
	"time"
)

// HAfAH's enum_virtual_ops, get_transaction (account_history_api and
// condenser_api) and hive_api.get_version, hived's account_by_key_api and
// transaction_status_api.

// The simulated chain has one virtual operation per block, the producer
// reward; its operation id is block*64 so ids increase with blocks.
const producerRewardFilter = 0x004000

// simCommit is the commit the simulated HAfAH names in hive_api.get_version.
const simCommit = "0000000000000000000000000000000000000000"

// txStatusBlockDepth is the transaction_status plugin's default
// transaction-status-block-depth: how many blocks back it tracks.
const txStatusBlockDepth = 64_000

func virtualOpID(block uint32) uint64 { return uint64(block) * 64 }

func enumVirtualOps(c *callCtx, p any, w *jw) *rpcError {
	in := &conv{}
	o := get(in, c.asObject, p)
	begin := get(in, c.asU32, o["block_range_begin"])
	end := get(in, c.asU32, o["block_range_end"])
	opBegin := get(in, c.asU64, o["operation_begin"])
	limit := int64(150000)
	if v := o["limit"]; v != nil {
		limit = get(in, c.asI64, v)
	}
	var filter uint64
	hasFilter := o["filter"] != nil
	if hasFilter {
		filter = get(in, c.asU64, o["filter"])
	}
	reversible := get(in, c.asBool, o["include_reversible"])
	grouped := get(in, c.asBool, o["group_by_block"])
	if in.err != nil {
		return in.err
	}
	if limit <= 0 {
		return c.fcError(codeServerError, 0, "", "Invalid limit", "limit is lower than 1", "")
	}
	if limit > 150000 {
		return c.assertFail("args.limit <= 150000", "limit of "+itoa(limit)+" is greater than maxmimum allowed")
	}
	if end <= begin {
		return c.assertFail("args.block_range_begin < args.block_range_end", "Block range must be upward")
	}
	irreversible := lib(c.head, c.n.opts.IrreversibleLag)
	last := irreversible
	if reversible {
		last = c.head
	}
	var blocks []uint32
	if !hasFilter || filter&producerRewardFilter != 0 {
		for b := max(begin, 1); b < end && b <= last && int64(len(blocks)) < limit; b++ {
			if virtualOpID(b) >= opBegin {
				blocks = append(blocks, b)
			}
		}
	}
	nextBlock, nextOp := end, uint64(0)
	switch {
	case int64(len(blocks)) == limit && blocks[len(blocks)-1] < last:
		nextBlock = blocks[len(blocks)-1] + 1
		nextOp = virtualOpID(nextBlock)
	case end > last:
		nextBlock = 0
	default:
		if end <= last {
			nextOp = virtualOpID(end)
		}
	}
	ch := c.n.ch
	object := func(b uint32) opObject {
		o := ch.virtualOp(b)
		o.opID = virtualOpID(b)
		return o
	}
	var ops, byBlock []any
	for _, b := range blocks {
		if grouped {
			byBlock = append(byBlock, obj{"block", b, "irreversible", b <= irreversible, "ops", []any{object(b)},
				"timestamp", ch.blockTime(b)})
		} else {
			ops = append(ops, object(b))
		}
	}
	w.value(obj{"ops", ops, "ops_by_block", byBlock, "next_block_range_begin", nextBlock,
		"next_operation_begin", nextOp}, false)
	return nil
}

// lookupTransaction is HAfAH's get_transaction: a transaction of a block up
// to the head (reversible ones only when asked).
func (c *callCtx) lookupTransaction(idV any, reversible bool) *txn {
	id := need(c.asString(idV))
	if len(id) != 40 || strings.Trim(id, "0123456789abcdef") != "" {
		abortOn(c.fcError(codeServerError, 0, "", "Invalid transaction id", "Invalid transaction id '"+id+"'", ""))
	}
	tx := c.n.ch.extra.txByID[id]
	last := lib(c.head, c.n.opts.IrreversibleLag)
	if reversible {
		last = c.head
	}
	if tx == nil || tx.Block > last {
		abortOn(c.assertFail("false", "Unknown Transaction "+id))
	}
	return tx
}

func registerHistoryMethods(r registry) {
	r.hafah("account_history_api.enum_virtual_ops", enumVirtualOps)
	r.hafah("account_history_api.get_transaction", raising(getTransaction))
	r.hafah("condenser_api.get_transaction", raising(getTransaction))
	r.hived("account_by_key_api.get_key_references", raising(func(c *callCtx, p any, w *jw) {
		keys := need(c.stringList(need(c.asObject(p))["keys"]))
		w.objBegin()
		w.key("accounts")
		w.arrBegin()
		for _, k := range keys {
			writeStrings(w, c.n.ch.extra.keyRefs[k])
		}
		w.arrEnd()
		w.objEnd()
	}))
	r.hived("transaction_status_api.find_transaction", raising(findTransaction))
	r.hafah("hive_api.get_version", raising(func(_ *callCtx, _ any, w *jw) {
		// HAfAH (hafah_endpoints.get_version) reads no params.
		w.value(obj{"app_name", "PostgRESTHAfAH", "commit", simCommit}, false)
	}))
}

// getTransaction serves account_history_api's get_transaction ({"id",
// "include_reversible"}) and condenser_api's ([id], irreversible only).
func getTransaction(c *callCtx, p any, w *jw) {
	if c.api == "condenser_api" {
		writeTransaction(w, c.lookupTransaction(need(c.condN(p, 1))[0], false), true, true)
		return
	}
	o := need(c.asObject(p))
	id, reversible := o["id"], need(c.asBool(o["include_reversible"]))
	writeTransaction(w, c.lookupTransaction(id, reversible), false, true)
}

// findTransaction is hived's transaction_status_api: where a transaction
// is. The node tracks the generated history's transactions and the ones
// broadcast to it; a broadcast transaction is in the mempool until the head
// reaches the block it counts in (the next block when it was broadcast).
// It answers as hived's transaction_status_api_impl: a
// tracked transaction's status and block; otherwise, given its
// expiration, too_old (before the earliest tracked block could have held
// it), expired_irreversible (expired by the last irreversible block's
// time), expired_reversible (by the head's time) or unknown.
func findTransaction(c *callCtx, p any, w *jw) {
	o := need(c.asObject(p))
	id := need(c.asString(o["transaction_id"]))
	var expiration time.Time
	if v := o["expiration"]; v != nil {
		expiration = need(c.asTime(v))
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
}
