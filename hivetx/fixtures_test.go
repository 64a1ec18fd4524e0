package hivetx_test

// Real signed mainnet transactions from the recorded fixtures
// (HIVEGATE_FIXTURES): their ids, hex serializations and signatures.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/hivegate/hivegate/internal/fixtures"

	"github.com/hivegate/hivegate/hivetx"
)

func decodeAny(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if len(raw) > 0 {
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// signedTx is a recorded signed transaction and the id the node gave it.
type signedTx struct {
	where string
	raw   []byte
	id    string
}

// recordedSignedTransactions walks the recorded answers of the methods
// that return transactions: get_transaction (condenser and account
// history, id in transaction_id) and block_api.get_block_range (ids in the
// block's transaction_ids).
func recordedSignedTransactions(t *testing.T) []signedTx {
	var out []signedTx
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if id, ok := x["transaction_id"].(string); ok {
				if sigs, _ := x["signatures"].([]any); len(sigs) > 0 {
					raw, _ := json.Marshal(x)
					out = append(out, signedTx{where, raw, id})
				}
			}
			if ids, ok := x["transaction_ids"].([]any); ok {
				txs, _ := x["transactions"].([]any)
				if len(txs) != len(ids) {
					t.Fatalf("%s: %d transactions, %d ids", where, len(txs), len(ids))
				}
				for i, tx := range txs {
					raw, _ := json.Marshal(tx)
					out = append(out, signedTx{where, raw, ids[i].(string)})
				}
				return
			}
			for _, e := range x {
				walk(where, e)
			}
		case []any:
			for _, e := range x {
				walk(where, e)
			}
		}
	}
	for _, m := range []string{"condenser_api.get_transaction", "account_history_api.get_transaction", "block_api.get_block_range"} {
		for _, c := range fixtures.Method(t, m) {
			walk(m+" "+c.Name, decodeAny(t, c.Result))
		}
	}
	return out
}

// TestRecordedTransactionIDs packs every recorded transaction (votes,
// comments, transfers, feeds, witness votes and proxies, power downs,
// account creations with authorities, proofs of work) and checks the id
// the node reported: the id is sha256 of the packed bytes, so one wrong
// byte anywhere fails.
func TestRecordedTransactionIDs(t *testing.T) {
	t.Parallel()
	txs := recordedSignedTransactions(t)
	if len(txs) < 70 {
		t.Fatalf("only %d recorded transactions", len(txs))
	}
	ops := map[string]bool{}
	for _, rec := range txs {
		tx, err := hivetx.ParseTransaction(rec.raw)
		if err != nil {
			t.Errorf("%s: %v", rec.where, err)
			continue
		}
		if got := tx.ID(); got != rec.id {
			t.Errorf("%s: id %s, node %s", rec.where, got, rec.id)
		}
		for _, op := range tx.Operations {
			ops[op.Name()] = true
		}
	}
	for _, want := range []string{"vote", "comment", "transfer", "feed_publish", "account_create", "pow", "account_witness_vote"} {
		if !ops[want] {
			t.Errorf("no recorded %s transaction was checked", want)
		}
	}
}

// TestRecordedTransactionHex compares the packed bytes with
// get_transaction_hex's recorded answers.
func TestRecordedTransactionHex(t *testing.T) {
	t.Parallel()
	n := 0
	for _, m := range []string{"condenser_api.get_transaction_hex", "database_api.get_transaction_hex"} {
		for _, c := range fixtures.Method(t, m) {
			var trx json.RawMessage
			var want string
			if m == "condenser_api.get_transaction_hex" {
				var p []json.RawMessage
				if err := json.Unmarshal(c.Params, &p); err != nil || len(p) != 1 {
					t.Fatalf("%s: params %s", c.Name, c.Params)
				}
				trx = p[0]
				_ = json.Unmarshal(c.Result, &want)
			} else {
				var p struct{ Trx json.RawMessage }
				var r struct{ Hex string }
				_ = json.Unmarshal(c.Params, &p)
				_ = json.Unmarshal(c.Result, &r)
				trx, want = p.Trx, r.Hex
			}
			tx, err := hivetx.ParseTransaction(trx)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			// get_transaction_hex packs the signatures too: none here.
			if got := hex.EncodeToString(append(tx.Serialize(), 0)); got != want {
				t.Errorf("%s:\n got %s\nwant %s", c.Name, got, want)
			}
			n++
		}
	}
	if n < 2 {
		t.Fatalf("only %d get_transaction_hex cases", n)
	}
}

// TestRecordedSignatures recovers the signer of every recorded signed
// transaction with the Steem-era chain id (all zeros; these blocks
// predate Hive) and, where the signer was an early witness that signed
// with its block signing key (recorded by get_witnesses_by_vote), checks
// that the recovered key is that key.
func TestRecordedSignatures(t *testing.T) {
	t.Parallel()
	signing := map[string]string{} // witness → signing key
	for _, c := range fixtures.Method(t, "condenser_api.get_witnesses_by_vote") {
		var ws []struct {
			Owner      string `json:"owner"`
			SigningKey string `json:"signing_key"`
		}
		_ = json.Unmarshal(c.Result, &ws)
		for _, w := range ws {
			signing[w.Owner] = w.SigningKey
		}
	}
	matched := 0
	for _, rec := range recordedSignedTransactions(t) {
		tx, err := hivetx.ParseTransaction(rec.raw)
		if err != nil || len(tx.Signatures) == 0 {
			continue // a proof of work carries no signature; ids are checked above
		}
		keys, err := tx.SignerKeys(hivetx.SteemChainID)
		if err != nil {
			t.Errorf("%s: %v", rec.where, err)
			continue
		}
		for _, s := range tx.Signatures {
			if !s.IsCanonical() || !s.IsFCCanonical() {
				t.Errorf("%s: a signature hived accepted is not canonical", rec.where)
			}
		}
		req := tx.Required()
		signers := append(append(req.Active, req.Posting...), req.Owner...)
		if len(signers) == 1 && len(keys) == 1 {
			if k, ok := signing[signers[0]]; ok && k == keys[0].String() {
				matched++
			}
		}
	}
	t.Logf("%d recovered signers match", matched)
	if matched < 10 {
		t.Errorf("only %d recovered signers match a recorded witness signing key", matched)
	}
}
