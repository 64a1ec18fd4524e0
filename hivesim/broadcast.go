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
	return raising(func(c *callCtx, p any, w *jw) {
		var trx any
		if c.api == "network_broadcast_api" {
			trx = need(c.asObject(p))["trx"]
		} else {
			args := need(c.condArgs(p))
			if len(args) != 1 {
				abortOn(c.assertFail("args.size() == 1", "Expected 1 argument, was "+itoa(int64(len(args)))))
			}
			trx = args[0]
		}
		raw, _ := json.Marshal(trx) // numbers are json.Number: their digits are kept
		tx, perr := hivetx.ParseTransaction(raw)
		if perr != nil {
			abortOn(c.parseError(perr.Error()))
		}
		abortOn(c.checkTransaction(tx))
		abortOn(c.applyOps(tx))
		l := &c.n.ledger
		l.applied[tx.ID()] = true
		block := c.head + 1
		num := l.inBlock[block]
		l.inBlock[block] = num + 1
		l.blockOf[tx.ID()] = block
		if synchronous {
			w.value(obj{"id", tx.ID(), "block_num", block, "trx_num", num, "expired", false}, false)
		} else {
			w.value(obj{}, false)
		}
	})
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
