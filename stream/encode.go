package stream

import (
	"encoding/json"

	"google.golang.org/protobuf/types/known/timestamppb"

	streamv1 "github.com/hivegate/hivegate/gen/hive/stream/v1"
)

// encodedBlock holds the forms of a block the front ends send, built once
// for every subscriber (Block.encoded).
type encodedBlock struct {
	full, headers         *streamv1.Block
	fullJSON, headersJSON json.RawMessage
}

// encoded returns b's forms, built on first use.
func (b *Block) encoded() *encodedBlock {
	b.encOnce.Do(func() {
		ts := timestamppb.New(b.Time)
		b.enc.headers = &streamv1.Block{BlockNum: b.Num, BlockId: b.ID, Previous: b.Previous, Timestamp: ts, Witness: b.Witness, TransactionMerkleRoot: b.MerkleRoot}
		b.enc.full = &streamv1.Block{BlockNum: b.Num, BlockId: b.ID, Previous: b.Previous, Timestamp: ts, Witness: b.Witness, TransactionMerkleRoot: b.MerkleRoot}
		hj := jsonBlock{Num: b.Num, ID: b.ID, Previous: b.Previous, Timestamp: b.Time.UTC().Format(hiveTime), Witness: b.Witness, MerkleRoot: b.MerkleRoot}
		b.enc.headersJSON, _ = json.Marshal(hj)
		hj.Transactions = make([]jsonTx, len(b.Txs))
		b.enc.full.Transactions = make([]*streamv1.Transaction, len(b.Txs))
		for i, tx := range b.Txs {
			ptx := &streamv1.Transaction{TransactionId: tx.ID, Operations: make([]*streamv1.Operation, len(tx.Ops))}
			jtx := jsonTx{ID: tx.ID, Operations: make([]jsonOp, len(tx.Ops))}
			for j, op := range tx.Ops {
				ptx.Operations[j] = &streamv1.Operation{Type: op.Type, ValueJson: string(op.Value)}
				jtx.Operations[j] = jsonOp(op)
			}
			b.enc.full.Transactions[i], hj.Transactions[i] = ptx, jtx
		}
		b.enc.fullJSON, _ = json.Marshal(hj)
	})
	return &b.enc
}

// jsonBlock is a block in the JSON streams (SSE, WebSocket).
type jsonBlock struct {
	Num          uint64   `json:"block_num"`
	ID           string   `json:"block_id"`
	Previous     string   `json:"previous"`
	Timestamp    string   `json:"timestamp"`
	Witness      string   `json:"witness"`
	MerkleRoot   string   `json:"transaction_merkle_root"`
	Transactions []jsonTx `json:"transactions,omitempty"`
}

type jsonTx struct {
	ID         string   `json:"transaction_id"`
	Operations []jsonOp `json:"operations"`
}

type jsonOp struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// Message is one message of a JSON stream.
type Message struct {
	// Kind is "block", "operation" or "fork".
	Kind   string `json:"type"`
	Cursor string `json:"cursor"`
	LIB    uint64 `json:"last_irreversible_block_num"`
	// Block is the block (kind block).
	Block json.RawMessage `json:"block,omitempty"`
	// Operation is the operation (kind operation).
	Operation *JSONOperation `json:"operation,omitempty"`
	// Fork is the block the stream rolled back to (kind fork).
	Fork *JSONFork `json:"fork,omitempty"`
}

// JSONOperation is an operation in the JSON streams.
type JSONOperation struct {
	BlockNum  uint64          `json:"block_num"`
	BlockID   string          `json:"block_id"`
	TrxID     string          `json:"trx_id"`
	TrxNum    int             `json:"trx_in_block"`
	OpInTrx   int             `json:"op_in_trx"`
	Position  int             `json:"position"`
	Timestamp string          `json:"timestamp"`
	Virtual   bool            `json:"virtual_op"`
	Op        json.RawMessage `json:"op"`
}

// JSONFork is a fork in the JSON streams.
type JSONFork struct {
	BlockNum uint64 `json:"block_num"`
	BlockID  string `json:"block_id"`
}

// blockMessage is e (a block stream's event) for the JSON streams.
func blockMessage(e Event, headersOnly bool) Message {
	m := Message{Cursor: e.Cursor().String(), LIB: e.LIB}
	if e.Block == nil {
		m.Kind, m.Fork = "fork", &JSONFork{BlockNum: e.ForkNum, BlockID: e.ForkID}
		return m
	}
	m.Kind, m.Block = "block", e.Block.encoded().fullJSON
	if headersOnly {
		m.Block = e.Block.encoded().headersJSON
	}
	return m
}

// opMessage is o for the JSON streams.
func opMessage(o BlockOp, lib uint64) Message {
	op, _ := json.Marshal(jsonOp(o.Op))
	return Message{Kind: "operation", Cursor: o.Cursor().String(), LIB: lib, Operation: &JSONOperation{
		BlockNum: o.Block.Num, BlockID: o.Block.ID, TrxID: o.TrxID, TrxNum: o.TrxNum, OpInTrx: o.OpInTrx,
		Position: o.Pos, Timestamp: o.Block.Time.UTC().Format(hiveTime), Virtual: o.Virtual, Op: op,
	}}
}

// protoBlock is e for hive.stream.v1.
func protoBlock(e Event, headersOnly bool) *streamv1.StreamBlocksResponse {
	r := &streamv1.StreamBlocksResponse{Cursor: e.Cursor().String(), LastIrreversibleBlockNum: e.LIB}
	switch {
	case e.Block == nil:
		r.Event = &streamv1.StreamBlocksResponse_Fork{Fork: &streamv1.Fork{BlockNum: e.ForkNum, BlockId: e.ForkID}}
	case headersOnly:
		r.Event = &streamv1.StreamBlocksResponse_Block{Block: e.Block.encoded().headers}
	default:
		r.Event = &streamv1.StreamBlocksResponse_Block{Block: e.Block.encoded().full}
	}
	return r
}

// protoOp is o for hive.stream.v1.
func protoOp(o BlockOp, lib uint64) *streamv1.StreamOperationsResponse {
	return &streamv1.StreamOperationsResponse{Cursor: o.Cursor().String(), LastIrreversibleBlockNum: lib,
		Event: &streamv1.StreamOperationsResponse_Operation{Operation: &streamv1.BlockOperation{
			BlockNum: o.Block.Num, BlockId: o.Block.ID, TransactionId: o.TrxID, TransactionNum: int32(o.TrxNum),
			OpInTrx: uint32(o.OpInTrx), Position: uint32(o.Pos), Timestamp: timestamppb.New(o.Block.Time),
			Virtual: o.Virtual, Operation: &streamv1.Operation{Type: o.Op.Type, ValueJson: string(o.Op.Value)},
		}}}
}

// protoOpFork is a fork for an operation stream.
func protoOpFork(e Event) *streamv1.StreamOperationsResponse {
	return &streamv1.StreamOperationsResponse{Cursor: e.Cursor().String(), LastIrreversibleBlockNum: e.LIB,
		Event: &streamv1.StreamOperationsResponse_Fork{Fork: &streamv1.Fork{BlockNum: e.ForkNum, BlockId: e.ForkID}}}
}
