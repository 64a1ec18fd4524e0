package hivesim

import (
	"strings"
)

// HAfAH's enum_virtual_ops and get_transaction (account_history_api and
// condenser_api), and hived's account_by_key_api (transaction_status_api
// is in txstatus_methods.go).

// The simulated chain has one virtual operation per block, the producer
// reward; its operation id is block*64 so ids increase with blocks.
const producerRewardFilter = 0x004000

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
	last := lib(c.head, c.n.opts.IrreversibleLag)
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
	ops, byBlock := blocks, []uint32(nil)
	if grouped {
		ops, byBlock = nil, blocks
	}
	irreversible := lib(c.head, c.n.opts.IrreversibleLag)
	w.objBegin()
	w.key("ops")
	w.arrBegin()
	for _, b := range ops {
		writeOpObject(w, object(b), false)
	}
	w.arrEnd()
	w.key("ops_by_block")
	w.arrBegin()
	for _, b := range byBlock {
		w.value(obj{"block", b, "irreversible", b <= irreversible, "ops", func(w *jw) {
			w.arrBegin()
			writeOpObject(w, object(b), false)
			w.arrEnd()
		}, "timestamp", ch.blockTime(b)}, false)
	}
	w.arrEnd()
	w.members(false, "next_block_range_begin", nextBlock, "next_operation_begin", nextOp)
	w.objEnd()
	return nil
}

// lookupTransaction is HAfAH's get_transaction: a transaction of a block up
// to the head (reversible ones only when asked).
func (c *callCtx) lookupTransaction(idV any, reversible bool) (*txn, *rpcError) {
	id, err := c.asString(idV)
	if err != nil {
		return nil, err
	}
	if len(id) != 40 || strings.Trim(id, "0123456789abcdef") != "" {
		return nil, c.fcError(codeServerError, 0, "", "Invalid transaction id", "Invalid transaction id '"+id+"'", "")
	}
	tx := c.n.ch.extra.txByID[id]
	last := lib(c.head, c.n.opts.IrreversibleLag)
	if reversible {
		last = c.head
	}
	if tx == nil || tx.Block > last {
		return nil, c.assertFail("false", "Unknown Transaction "+id)
	}
	return tx, nil
}

func registerHistoryMethods(r registry) {
	r.hafah("account_history_api.enum_virtual_ops", enumVirtualOps)
	r.hafah("account_history_api.get_transaction", getTransaction)
	r.hafah("condenser_api.get_transaction", getTransaction)
	r.hived("account_by_key_api.get_key_references", func(c *callCtx, p any, w *jw) *rpcError {
		o, err := c.asObject(p)
		if err != nil {
			return err
		}
		keys, err := c.stringList(o["keys"])
		if err != nil {
			return err
		}
		w.objBegin()
		w.key("accounts")
		w.arrBegin()
		for _, k := range keys {
			writeStrings(w, c.n.ch.extra.keyRefs[k])
		}
		w.arrEnd()
		w.objEnd()
		return nil
	})
}

// getTransaction serves account_history_api's get_transaction ({"id",
// "include_reversible"}) and condenser_api's ([id], irreversible only).
func getTransaction(c *callCtx, p any, w *jw) *rpcError {
	legacy := c.api == "condenser_api"
	in := &conv{}
	var id any
	reversible := false
	if legacy {
		args, err := c.condN(p, 1)
		if err != nil {
			return err
		}
		id = args[0]
	} else {
		o := get(in, c.asObject, p)
		id, reversible = o["id"], get(in, c.asBool, o["include_reversible"])
	}
	if in.err != nil {
		return in.err
	}
	tx, err := c.lookupTransaction(id, reversible)
	if err != nil {
		return err
	}
	writeTransaction(w, tx, legacy, true)
	return nil
}
