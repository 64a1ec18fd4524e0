package hivesim

import (
	"encoding/json"

	"github.com/hivegate/hivegate/hivetx"
)

// broadcastTransaction serves the broadcast methods: condenser_api's
// broadcast_transaction ([trx]) and broadcast_transaction_synchronous
// ([trx], answering {id, block_num, trx_num, expired}), and
// network_broadcast_api.broadcast_transaction ({"trx": trx}). The
// transaction is checked as hived checks it (checkTransaction: duplicate,
// signatures against the accounts' authorities for Hive mainnet's chain
// id, TaPoS, expiration), then its operations are applied (apply.go) and it
// counts in the next block. The caller holds the node's write lock.
func broadcastTransaction(synchronous bool) methodFunc {
	return func(c *callCtx, p any, w *jw) *rpcError {
		var trx any
		if c.api == "network_broadcast_api" {
			o, err := c.asObject(p)
			if err != nil {
				return err
			}
			trx = o["trx"]
		} else {
			args, err := c.condArgs(p)
			if err != nil {
				return err
			}
			if len(args) != 1 {
				return c.assertFail("args.size() == 1", "Expected 1 argument, was "+itoa(int64(len(args))))
			}
			trx = args[0]
		}
		raw, _ := json.Marshal(trx) // numbers are json.Number: their digits are kept
		tx, perr := hivetx.ParseTransaction(raw)
		if perr != nil {
			return c.parseError(perr.Error())
		}
		if e := c.checkTransaction(tx); e != nil {
			return e
		}
		if e := c.applyOps(tx); e != nil {
			return e
		}
		l := &c.n.ledger
		l.applied[tx.ID()] = true
		block := c.head + 1
		num := l.inBlock[block]
		l.inBlock[block] = num + 1
		l.blockOf[tx.ID()] = block
		w.objBegin()
		if synchronous {
			w.kstr("id", tx.ID())
			w.knum("block_num", int64(block))
			w.knum("trx_num", int64(num))
			w.kbool("expired", false)
		}
		w.objEnd()
		return nil
	}
}

// isBroadcast reports whether a method changes the chain: it runs under
// the node's write lock.
func isBroadcast(full string) bool {
	switch full {
	case "condenser_api.broadcast_transaction", "condenser_api.broadcast_transaction_synchronous",
		"network_broadcast_api.broadcast_transaction":
		return true
	}
	return false
}
