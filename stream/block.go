package stream

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Block is one block as the follower read it. It is shared by every
// subscriber and never modified after it is published, except for its
// virtual operations, loaded once on demand (Hub.VirtualOps).
type Block struct {
	Num        uint64
	ID         string
	Previous   string
	Time       time.Time
	Witness    string
	MerkleRoot string
	Txs        []Tx

	vmu     sync.Mutex
	virtual []Op
	vdone   bool

	encOnce sync.Once
	enc     encodedBlock // the forms the front ends send (encode.go)
}

// Tx is one transaction of a block.
type Tx struct {
	ID  string
	Ops []Op
}

// Op is one operation: its type ("vote_operation") and its value (a JSON
// object).
type Op struct {
	Type  string
	Value json.RawMessage
}

// OpCount is the number of (non-virtual) operations of b: the position of
// its first virtual operation.
func (b *Block) OpCount() int {
	n := 0
	for _, tx := range b.Txs {
		n += len(tx.Ops)
	}
	return n
}

// hiveTime is the timestamp format of hived ("2016-03-24T16:05:00", UTC).
const hiveTime = "2006-01-02T15:04:05"

// rawBlock is the part of block_api.get_block's block the stream reads.
type rawBlock struct {
	Previous       string   `json:"previous"`
	Timestamp      string   `json:"timestamp"`
	Witness        string   `json:"witness"`
	MerkleRoot     string   `json:"transaction_merkle_root"`
	BlockID        string   `json:"block_id"`
	TransactionIDs []string `json:"transaction_ids"`
	Transactions   []struct {
		Operations []rawOp `json:"operations"`
	} `json:"transactions"`
}

// rawOp is an operation in the typed form {"type": ..., "value": ...}.
type rawOp struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// errNoBlock is ParseBlock's answer for a block the node does not have
// yet ({} from block_api.get_block).
var errNoBlock = errors.New("no such block")

// ParseBlock reads the result of block_api.get_block for block num.
func ParseBlock(num uint64, result json.RawMessage) (*Block, error) {
	var env struct {
		Block *rawBlock `json:"block"`
	}
	if err := json.Unmarshal(result, &env); err != nil {
		return nil, fmt.Errorf("block %d: %w", num, err)
	}
	if env.Block == nil {
		return nil, errNoBlock
	}
	r := env.Block
	if len(r.BlockID) != 40 || len(r.Previous) != 40 {
		return nil, fmt.Errorf("block %d: malformed block id or previous", num)
	}
	t, err := time.ParseInLocation(hiveTime, strings.TrimSuffix(r.Timestamp, "Z"), time.UTC)
	if err != nil {
		return nil, fmt.Errorf("block %d: timestamp: %w", num, err)
	}
	b := &Block{Num: num, ID: r.BlockID, Previous: r.Previous, Time: t, Witness: r.Witness, MerkleRoot: r.MerkleRoot}
	b.Txs = make([]Tx, len(r.Transactions))
	for i, tx := range r.Transactions {
		if i < len(r.TransactionIDs) {
			b.Txs[i].ID = r.TransactionIDs[i]
		}
		b.Txs[i].Ops = make([]Op, len(tx.Operations))
		for j, op := range tx.Operations {
			b.Txs[i].Ops[j] = Op(op)
		}
	}
	return b, nil
}

// parseVirtualOps reads the result of account_history_api.get_ops_in_block
// (only_virtual).
func parseVirtualOps(num uint64, result json.RawMessage) ([]Op, error) {
	var env struct {
		Ops []struct {
			Op rawOp `json:"op"`
		} `json:"ops"`
	}
	if err := json.Unmarshal(result, &env); err != nil {
		return nil, fmt.Errorf("virtual operations of block %d: %w", num, err)
	}
	out := make([]Op, len(env.Ops))
	for i, o := range env.Ops {
		out[i] = Op(o.Op)
	}
	return out, nil
}
