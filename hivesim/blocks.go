package hivesim

import (
	"slices"
	"strconv"
	"time"
)

// Blocks and operations: block_api, account_history_api and their condenser_api forms.

const zeroTrxID = "0000000000000000000000000000000000000000"

func blockHeader(ch *chain, num uint32) obj {
	root := zeroTrxID
	if len(ch.blocks[num]) > 0 {
		root = hexHash(40, ch.seed^uint64(num)^0x6d65726b6c65)
	}
	return obj{"previous", ch.blockID(num - 1), "timestamp", ch.blockTime(num), "witness", ch.producer(num).Owner,
		"transaction_merkle_root", root, "extensions", []string{}}
}

// writeBlock writes api_signed_block_object, or condenser's legacy block (legacy ops and
// annotated transactions).
func writeBlock(w *jw, ch *chain, num uint32, legacy bool) {
	txs := ch.blocks[num]
	ids := make([]string, len(txs))
	for i, tx := range txs {
		ids[i] = tx.ID
	}
	w.objBegin()
	w.members(legacy, blockHeader(ch, num)...)
	w.members(legacy, "witness_signature", "20"+hexHash(128, ch.seed^uint64(num)^0x736967), "transactions", txs,
		"block_id", ch.blockID(num), "signing_key", ch.producer(num).SigningKey, "transaction_ids", ids)
	w.objEnd()
}

// writeJSON writes a transaction of a block, annotated with its id and
// place in condenser's legacy form (writeTransaction).
func (tx *txn) writeJSON(w *jw, legacy bool) { writeTransaction(w, tx, legacy, legacy) }

// writeTransaction writes a transaction of a block, annotated with its id
// and place (legacy: with condenser's operations).
func writeTransaction(w *jw, tx *txn, legacy, annotated bool) {
	w.objBegin()
	w.members(legacy, "ref_block_num", tx.RefBlockNum, "ref_block_prefix", tx.RefBlockPrefix, "expiration", tx.Expiration,
		"operations", tx.Ops, "extensions", []string{}, "signatures", []string{tx.Signature()})
	if annotated {
		w.members(legacy, "transaction_id", tx.ID, "block_num", tx.Block, "transaction_num", tx.Index)
	}
	w.objEnd()
}

func (c *callCtx) blockExists(num uint32) bool { return num > 0 && num <= c.head }

// getBlock serves block_api's get_block and get_block_header ({"block_num"}
// answering {"block"} or {"header"}, {} for no such block) and their
// condenser_api forms ([num] answering the legacy block or header, or null).
func getBlock(header bool) methodFunc {
	return raising(func(c *callCtx, p any, w *jw) {
		legacy := c.api == "condenser_api"
		var num uint32
		if legacy {
			num = need(c.asU32(need(c.condN(p, 1))[0]))
		} else {
			num = need(c.asU32(need(c.asObject(p))["block_num"]))
		}
		block, member := func(w *jw) { writeBlock(w, c.n.ch, num, legacy) }, "block"
		if header {
			block, member = func(w *jw) { w.value(blockHeader(c.n.ch, num), legacy) }, "header"
		}
		switch {
		case legacy && !c.blockExists(num):
			w.null()
		case legacy:
			block(w)
		case c.blockExists(num):
			w.value(obj{member, block}, false)
		default:
			w.value(obj{}, false)
		}
	})
}

func blockAPIGetBlockRange(c *callCtx, p any, w *jw) {
	o := need(c.asObject(p))
	start, count := need(c.asU32(o["starting_block_num"])), need(c.asU32(o["count"]))
	if count > 1000 {
		abortOn(c.assertFail(`count <= 1000 && "fetch_block_range"`, "You can only ask for 1000 blocks at a timerethrow"))
	}
	if start == 0 {
		abortOn(c.assertFail(`starting_block_num > 0 && "fetch_block_range"`, "Invalid starting block numberrethrow"))
	}
	w.value(obj{"blocks", func(w *jw) {
		w.arrBegin()
		for i := uint32(0); i < count && c.blockExists(start+i); i++ {
			writeBlock(w, c.n.ch, start+i, false)
		}
		w.arrEnd()
	}}, false)
}

// opObject is one entry of account history or get_ops_in_block.
type opObject struct {
	at         time.Time // the block's time
	trxID      string
	block      uint32
	trxInBlock uint32
	opInTrx    uint32
	op         *operation
	opID       uint64 // operation_id (enum_virtual_ops numbers them)
}

// writeJSON writes api_operation_object (with operation_id) or condenser's legacy form.
func (o opObject) writeJSON(w *jw, legacy bool) {
	w.objBegin()
	w.members(legacy, "trx_id", o.trxID, "block", o.block, "trx_in_block", o.trxInBlock, "op_in_trx", o.opInTrx,
		"virtual_op", o.op.Virtual, "timestamp", o.at)
	w.members(legacy, "op", o.op)
	if !legacy {
		w.ku64("operation_id", o.opID)
	}
	w.objEnd()
}

func (h histEntry) object(ch *chain) opObject {
	return opObject{at: ch.blockTime(h.tx.Block), trxID: h.tx.ID, block: h.tx.Block, trxInBlock: h.tx.Index, opInTrx: h.opInTrx, op: h.op}
}

// virtualOp is block num's virtual operation, the producer reward
// (computed, not stored).
func (ch *chain) virtualOp(num uint32) opObject {
	reward := opProducerRewardOp(ch.producer(num).Owner, 400_000+int64(splitmix64(ch.seed^uint64(num))%100_000))
	return opObject{at: ch.blockTime(num), trxID: zeroTrxID, block: num, trxInBlock: 4294967295, opInTrx: 1, op: reward}
}

// historyArgs are account_history_api.get_account_history's arguments.
type historyArgs struct {
	account    string
	start      uint64
	limit      uint32
	low, high  uint64
	hasFilters bool
}

// accountHistory applies hived's rules: limit <= 1000, start >= limit-1, newest entry
// first clipped to start, results ascending by sequence number.
func (c *callCtx) accountHistory(a historyArgs, w *jw, legacy bool) {
	if a.limit > 1000 {
		abortOn(c.assertFail("args.limit <= 1000", "limit of "+itoa(int64(a.limit))+" is greater than maxmimum allowed"))
	}
	if a.start < uint64(a.limit-1) {
		abortOn(c.assertFail("args.start >= args.limit-1",
			"start must be greater than or equal to limit-1 (start is 0-based index)"))
	}
	hist := c.n.ch.history[a.account]
	last := int64(len(hist)) - 1
	if a.start < uint64(len(hist)) {
		last = int64(a.start)
	}
	var picked []int
	for i := last; i >= 0 && uint32(len(picked)) < a.limit; i-- {
		num := hist[i].op.Num
		if a.hasFilters && !(num < 64 && a.low&(1<<num) != 0 || num >= 64 && a.high&(1<<(num-64)) != 0) {
			continue
		}
		picked = append(picked, int(i))
	}
	entries := [][]any{}
	for _, i := range slices.Backward(picked) {
		entries = append(entries, []any{i, hist[i].object(c.n.ch)})
	}
	if legacy {
		w.value(entries, true)
	} else {
		w.value(obj{"history", entries}, false)
	}
}

// getAccountHistory serves account_history_api's get_account_history
// ({"account", "start", "limit", "operation_filter_low", ...}) and
// condenser_api's ([account, start, limit(, low(, high))]).
func getAccountHistory(c *callCtx, p any, w *jw) {
	a := historyArgs{start: ^uint64(0), limit: 1000}
	if c.api == "condenser_api" {
		args := need(c.condArgs(p))
		if len(args) < 3 || len(args) > 5 {
			abortOn(c.assertFail("args.size() >= 3 && args.size() <= 5",
				"Expected 3, 4, or 5 argument(s), was "+strconv.Itoa(len(args))))
		}
		a.account, a.start, a.limit = need(c.asName(args[0])), need(c.asU64(args[1])), need(c.asU32(args[2]))
		a.low, a.high, a.hasFilters = opt(args, 3, c.asU64, 0), opt(args, 4, c.asU64, 0), len(args) > 3
		c.accountHistory(a, w, true)
		return
	}
	o := need(c.asObject(p))
	a.account = need(c.asName(o["account"]))
	if v, ok := o["start"]; ok {
		a.start = need(c.asU64(v))
	}
	if v, ok := o["limit"]; ok {
		a.limit = need(c.asU32(v))
	}
	if v, ok := o["include_reversible"]; ok {
		need(c.asBool(v))
	}
	if v := o["operation_filter_low"]; v != nil {
		a.low, a.hasFilters = need(c.asU64(v)), true
	}
	if v := o["operation_filter_high"]; v != nil {
		a.high, a.hasFilters = need(c.asU64(v)), true
	}
	c.accountHistory(a, w, false)
}

// opsInBlock lists the operations of block num: transaction operations, then the
// block's virtual producer reward.
func (c *callCtx) opsInBlock(num uint32, onlyVirtual bool) []opObject {
	if !c.blockExists(num) {
		return nil
	}
	ch := c.n.ch
	var out []opObject
	if !onlyVirtual {
		for _, tx := range ch.blocks[num] {
			for i, op := range tx.Ops {
				out = append(out, opObject{at: ch.blockTime(num), trxID: tx.ID, block: num, trxInBlock: tx.Index, opInTrx: uint32(i), op: op})
			}
		}
	}
	return append(out, ch.virtualOp(num))
}

// getOpsInBlock serves account_history_api's get_ops_in_block
// ({"block_num", "only_virtual"} answering {"ops"}) and condenser_api's
// ([num(, only_virtual)] answering the legacy list).
func getOpsInBlock(c *callCtx, p any, w *jw) {
	legacy := c.api == "condenser_api"
	var num uint32
	var onlyVirtual bool
	if legacy {
		args := need(c.condArgs(p))
		if len(args) != 1 && len(args) != 2 {
			abortOn(c.assertFail("args.size() == 1 || args.size() == 2",
				"Expected 1-2 arguments, was "+strconv.Itoa(len(args))))
		}
		num, onlyVirtual = need(c.asU32(args[0])), opt(args, 1, c.asBool, false)
	} else {
		o := need(c.asObject(p))
		num, onlyVirtual = need(c.asU32(o["block_num"])), need(c.asBool(o["only_virtual"]))
		need(c.asBool(o["include_reversible"]))
	}
	ops := c.opsInBlock(num, onlyVirtual)
	if legacy {
		w.value(ops, true)
	} else {
		w.value(obj{"ops", ops}, false)
	}
}
