package hivesim

import (
	"strconv"
	"time"
)

// Blocks and operations: block_api, account_history_api and their condenser_api forms.

const zeroTrxID = "0000000000000000000000000000000000000000"

// producerReward is the virtual operation of block num (computed, not stored).
func (ch *chain) producerReward(num uint32) *operation {
	return opProducerRewardOp(ch.producer(num).Owner, 400_000+int64(splitmix64(ch.seed^uint64(num))%100_000))
}

func writeBlockHeader(w *jw, ch *chain, num uint32) {
	w.kstr("previous", ch.blockID(num-1))
	w.ktime("timestamp", ch.blockTime(num))
	w.kstr("witness", ch.producer(num).Owner)
	if len(ch.blocks[num]) == 0 {
		w.kstr("transaction_merkle_root", zeroTrxID)
	} else {
		w.kstr("transaction_merkle_root", hexHash(40, ch.seed^uint64(num)^0x6d65726b6c65))
	}
	w.kemptyArr("extensions")
}

// writeBlock writes api_signed_block_object, or condenser's legacy block (legacy ops and
// annotated transactions).
func writeBlock(w *jw, ch *chain, num uint32, legacy bool) {
	txs := ch.blocks[num]
	w.objBegin()
	writeBlockHeader(w, ch, num)
	w.kstr("witness_signature", "20"+hexHash(128, ch.seed^uint64(num)^0x736967))
	w.key("transactions")
	w.arrBegin()
	for _, tx := range txs {
		w.objBegin()
		w.knum("ref_block_num", int64(tx.RefBlockNum))
		w.knum("ref_block_prefix", int64(tx.RefBlockPrefix))
		w.ktime("expiration", tx.Expiration)
		w.key("operations")
		w.arrBegin()
		for _, op := range tx.Ops {
			writeOp(w, op, legacy)
		}
		w.arrEnd()
		w.kemptyArr("extensions")
		w.kstrs("signatures", []string{tx.Signature()})
		if legacy {
			w.kstr("transaction_id", tx.ID)
			w.knum("block_num", int64(num))
			w.knum("transaction_num", int64(tx.Index))
		}
		w.objEnd()
	}
	w.arrEnd()
	w.kstr("block_id", ch.blockID(num))
	w.kstr("signing_key", ch.producer(num).SigningKey)
	w.key("transaction_ids")
	w.arrBegin()
	for _, tx := range txs {
		w.str(tx.ID)
	}
	w.arrEnd()
	w.objEnd()
}

func (c *callCtx) blockExists(num uint32) bool { return num > 0 && num <= c.head }

func (c *callCtx) blockNumArg(p any) (uint32, *rpcError) {
	o, err := c.asObject(p)
	if err != nil {
		return 0, err
	}
	return c.asU32(o["block_num"])
}

func blockAPIGetBlock(header bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		num, err := c.blockNumArg(p)
		if err != nil {
			return err
		}
		w.objBegin()
		if c.blockExists(num) {
			if header {
				w.key("header")
				w.objBegin()
				writeBlockHeader(w, c.n.ch, num)
				w.objEnd()
			} else {
				w.key("block")
				writeBlock(w, c.n.ch, num, false)
			}
		}
		w.objEnd()
		return nil
	}
}

func blockAPIGetBlockRange(c *callCtx, p any, w *jw) *rpcError {
	in := &conv{}
	o := get(in, c.asObject, p)
	start := get(in, c.asU32, o["starting_block_num"])
	count := get(in, c.asU32, o["count"])
	if in.err != nil {
		return in.err
	}
	if count > 1000 {
		return c.assertFail(`count <= 1000 && "fetch_block_range"`, "You can only ask for 1000 blocks at a timerethrow")
	}
	if start == 0 {
		return c.assertFail(`starting_block_num > 0 && "fetch_block_range"`, "Invalid starting block numberrethrow")
	}
	w.objBegin()
	w.key("blocks")
	w.arrBegin()
	for i := uint32(0); i < count && c.blockExists(start+i); i++ {
		writeBlock(w, c.n.ch, start+i, false)
	}
	w.arrEnd()
	w.objEnd()
	return nil
}

func condGetBlock(header bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		args, err := c.condArgs(p)
		if err != nil {
			return err
		}
		if err := c.checkArgs(args, 1); err != nil {
			return err
		}
		num, err := c.asU32(args[0])
		if err != nil {
			return err
		}
		switch {
		case !c.blockExists(num):
			w.null()
		case header:
			w.objBegin()
			writeBlockHeader(w, c.n.ch, num)
			w.objEnd()
		default:
			writeBlock(w, c.n.ch, num, true)
		}
		return nil
	}
}

// opObject is one entry of account history or get_ops_in_block.
type opObject struct {
	at         time.Time // the block's time
	trxID      string
	block      uint32
	trxInBlock uint32
	opInTrx    uint32
	op         *operation
}

// writeOpObject writes api_operation_object (with operation_id) or condenser's legacy form.
func writeOpObject(w *jw, o opObject, legacy bool) {
	w.objBegin()
	w.kstr("trx_id", o.trxID)
	w.knum("block", int64(o.block))
	w.knum("trx_in_block", int64(o.trxInBlock))
	w.knum("op_in_trx", int64(o.opInTrx))
	w.kbool("virtual_op", o.op.Virtual)
	w.ktime("timestamp", o.at)
	w.key("op")
	writeOp(w, o.op, legacy)
	if !legacy {
		w.ku64("operation_id", 0)
	}
	w.objEnd()
}

func (h histEntry) object(ch *chain) opObject {
	return opObject{at: ch.blockTime(h.tx.Block), trxID: h.tx.ID, block: h.tx.Block, trxInBlock: h.tx.Index, opInTrx: h.opInTrx, op: h.op}
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
func (c *callCtx) accountHistory(a historyArgs, w *jw, legacy bool) *rpcError {
	if a.limit > 1000 {
		return c.assertFail("args.limit <= 1000", "limit of "+strconv.FormatUint(uint64(a.limit), 10)+" is greater than maxmimum allowed")
	}
	if a.start < uint64(a.limit-1) {
		return c.assertFail("args.start >= args.limit-1", "start must be greater than or equal to limit-1 (start is 0-based index)")
	}
	hist := c.n.ch.history[a.account]
	var picked []int
	if len(hist) > 0 {
		last := uint64(len(hist) - 1)
		if a.start < last {
			last = a.start
		}
		for i := int64(last); i >= 0 && uint32(len(picked)) < a.limit; i-- {
			op := hist[i].op
			if a.hasFilters {
				match := op.Num < 64 && a.low&(1<<op.Num) != 0 || op.Num >= 64 && a.high&(1<<(op.Num-64)) != 0
				if !match {
					continue
				}
			}
			picked = append(picked, int(i))
		}
	}
	if !legacy {
		w.objBegin()
		w.key("history")
	}
	w.arrBegin()
	for i := len(picked) - 1; i >= 0; i-- {
		w.arrBegin()
		w.num(int64(picked[i]))
		writeOpObject(w, hist[picked[i]].object(c.n.ch), legacy)
		w.arrEnd()
	}
	w.arrEnd()
	if !legacy {
		w.objEnd()
	}
	return nil
}

func ahGetAccountHistory(c *callCtx, p any, w *jw) *rpcError {
	o, err := c.asObject(p)
	if err != nil {
		return err
	}
	a := historyArgs{start: ^uint64(0), limit: 1000}
	if a.account, err = c.asName(o["account"]); err != nil {
		return err
	}
	if v, ok := o["start"]; ok {
		if a.start, err = c.asU64(v); err != nil {
			return err
		}
	}
	if v, ok := o["limit"]; ok {
		if a.limit, err = c.asU32(v); err != nil {
			return err
		}
	}
	if v, ok := o["include_reversible"]; ok {
		if _, err = c.asBool(v); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		k   string
		dst *uint64
	}{{"operation_filter_low", &a.low}, {"operation_filter_high", &a.high}} {
		if v, ok := o[f.k]; ok && v != nil {
			if *f.dst, err = c.asU64(v); err != nil {
				return err
			}
			a.hasFilters = true
		}
	}
	return c.accountHistory(a, w, false)
}

func condGetAccountHistory(c *callCtx, p any, w *jw) *rpcError {
	args, err := c.condArgs(p)
	if err != nil {
		return err
	}
	if len(args) < 3 || len(args) > 5 {
		return c.assertFail("args.size() >= 3 && args.size() <= 5", "Expected 3, 4, or 5 argument(s), was "+strconv.Itoa(len(args)))
	}
	var a historyArgs
	in := &conv{}
	a.account = get(in, c.asName, args[0])
	a.start = get(in, c.asU64, args[1])
	a.limit = get(in, c.asU32, args[2])
	if in.err != nil {
		return in.err
	}
	if len(args) > 3 {
		if a.low, err = c.asU64(args[3]); err != nil {
			return err
		}
		a.hasFilters = true
	}
	if len(args) > 4 {
		if a.high, err = c.asU64(args[4]); err != nil {
			return err
		}
	}
	return c.accountHistory(a, w, true)
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
	return append(out, opObject{at: ch.blockTime(num), trxID: zeroTrxID, block: num, trxInBlock: 4294967295, opInTrx: 1, op: ch.producerReward(num)})
}

func ahGetOpsInBlock(c *callCtx, p any, w *jw) *rpcError {
	in := &conv{}
	o := get(in, c.asObject, p)
	num := get(in, c.asU32, o["block_num"])
	onlyVirtual := get(in, c.asBool, o["only_virtual"])
	_ = get(in, c.asBool, o["include_reversible"])
	if in.err != nil {
		return in.err
	}
	w.objBegin()
	w.key("ops")
	w.arrBegin()
	for _, op := range c.opsInBlock(num, onlyVirtual) {
		writeOpObject(w, op, false)
	}
	w.arrEnd()
	w.objEnd()
	return nil
}

func condGetOpsInBlock(c *callCtx, p any, w *jw) *rpcError {
	args, err := c.condArgs(p)
	if err != nil {
		return err
	}
	if len(args) != 1 && len(args) != 2 {
		return c.assertFail("args.size() == 1 || args.size() == 2", "Expected 1-2 arguments, was "+strconv.Itoa(len(args)))
	}
	num, err := c.asU32(args[0])
	if err != nil {
		return err
	}
	onlyVirtual := false
	if len(args) == 2 {
		if onlyVirtual, err = c.asBool(args[1]); err != nil {
			return err
		}
	}
	w.arrBegin()
	for _, op := range c.opsInBlock(num, onlyVirtual) {
		writeOpObject(w, op, true)
	}
	w.arrEnd()
	return nil
}
