package hivetx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ChainID is the 32 bytes a network mixes into every signing digest.
type ChainID [32]byte

// MainnetChainID is Hive mainnet's chain id, beeab0de00…00.
var MainnetChainID = ChainID{0xbe, 0xea, 0xb0, 0xde}

// SteemChainID is the chain id of transactions signed before Hive's first
// hard fork (block 41,818,752): all zeros.
var SteemChainID = ChainID{}

// ParseChainID reads a chain id in hex (64 digits).
func ParseChainID(s string) (ChainID, error) {
	var c ChainID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(c) {
		return c, errors.New("chain id: want 64 hex digits")
	}
	copy(c[:], b)
	return c, nil
}

// String is the chain id in hex.
func (c ChainID) String() string { return hex.EncodeToString(c[:]) }

// Transaction is a Hive transaction.
type Transaction struct {
	// RefBlockNum is the low 16 bits of a recent block's number and
	// RefBlockPrefix the 4 bytes after the first 4 of its id, read little
	// endian (TaPoS: the transaction is valid only on a chain with that
	// block).
	RefBlockNum    uint16
	RefBlockPrefix uint32
	// Expiration is the last time the transaction may be included in a
	// block (whole seconds, UTC).
	Expiration time.Time
	Operations []Operation
	Signatures []Signature
}

// RefBlock returns the TaPoS fields of a block given its id (hex, 40
// digits): the block number is the id's first 4 bytes, big endian.
func RefBlock(blockID string) (num uint16, prefix uint32, err error) {
	id, err := hex.DecodeString(blockID)
	if err != nil || len(id) != 20 {
		return 0, 0, errors.New("block id: want 40 hex digits")
	}
	return uint16(binary.BigEndian.Uint32(id[:4])), binary.LittleEndian.Uint32(id[4:8]), nil
}

// ParseTransaction reads a transaction in either JSON shape hived speaks
// (condenser_api or database_api).
func ParseTransaction(data []byte) (*Transaction, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("transaction: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("transaction: want an object")
	}
	return transactionFromMap(m)
}

// txHead are a transaction's leading fields.
var txHead = []field{u16("ref_block_num"), u32("ref_block_prefix"), {name: "expiration", kind: kTime}}

// txMembers are the members a transaction may have: its fields, and the
// ones block and history APIs add when they print one (not signed).
var txMembers = map[string]bool{
	"ref_block_num": true, "ref_block_prefix": true, "expiration": true, "operations": true,
	"extensions": true, "signatures": true,
	"transaction_id": true, "block_num": true, "transaction_num": true,
}

func transactionFromMap(m map[string]any) (*Transaction, error) {
	t := &Transaction{}
	for k := range m {
		if !txMembers[k] {
			return nil, fmt.Errorf("transaction: %s: unknown field", k)
		}
	}
	head, err := decodeFields(txHead, map[string]any{
		"ref_block_num": m["ref_block_num"], "ref_block_prefix": m["ref_block_prefix"], "expiration": m["expiration"]})
	if err != nil {
		return nil, fmt.Errorf("transaction: %w", err)
	}
	t.RefBlockNum, t.RefBlockPrefix, t.Expiration = head[0].(uint16), head[1].(uint32), head[2].(time.Time)
	if ext, ok := m["extensions"]; ok {
		if _, err := (&field{kind: kExtensions}).decode(ext); err != nil {
			return nil, fmt.Errorf("transaction: extensions: %w", err)
		}
	}
	ops, ok := m["operations"].([]any)
	if !ok {
		return nil, errors.New("transaction: operations: want an array")
	}
	for i, ov := range ops {
		op, err := parseOperation(ov)
		if err != nil {
			return nil, fmt.Errorf("transaction: operations[%d]: %w", i, err)
		}
		t.Operations = append(t.Operations, op)
	}
	if sv, ok := m["signatures"]; ok {
		sigs, ok := sv.([]any)
		if !ok {
			return nil, errors.New("transaction: signatures: want an array of hex strings")
		}
		for i, s := range sigs {
			str, _ := s.(string)
			sig, err := ParseSignature(str)
			if err != nil {
				return nil, fmt.Errorf("transaction: signatures[%d]: %w", i, err)
			}
			t.Signatures = append(t.Signatures, sig)
		}
	}
	return t, nil
}

// Serialize packs the transaction without its signatures: the bytes whose
// hash is its id and, after the chain id, its signing digest.
func (t *Transaction) Serialize() []byte {
	b := make([]byte, 0, 256)
	b = binary.LittleEndian.AppendUint16(b, t.RefBlockNum)
	b = binary.LittleEndian.AppendUint32(b, t.RefBlockPrefix)
	b = binary.LittleEndian.AppendUint32(b, timeSeconds(t.Expiration))
	b = appendVarint32(b, uint32(len(t.Operations)))
	for _, op := range t.Operations {
		b = op.appendBinary(b)
	}
	return appendVarint32(b, 0) // extensions
}

// Digest is what each signature signs: sha256(chain id ‖ Serialize()).
func (t *Transaction) Digest(chain ChainID) [32]byte {
	h := sha256.New()
	h.Write(chain[:])
	h.Write(t.Serialize())
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// ID is the transaction id hived reports: the first 20 bytes of
// sha256(Serialize()), in hex.
func (t *Transaction) ID() string {
	sum := sha256.Sum256(t.Serialize())
	return hex.EncodeToString(sum[:20])
}

// Sign adds the key's signature for chain.
func (t *Transaction) Sign(key *PrivateKey, chain ChainID) error {
	sig := key.SignDigest(t.Digest(chain))
	if !sig.IsCanonical() {
		return errors.New("sign: signature is not canonical") // cannot happen: SignDigest normalizes S
	}
	t.Signatures = append(t.Signatures, sig)
	return nil
}

// SignerKeys recovers the public key of every signature for chain.
func (t *Transaction) SignerKeys(chain ChainID) ([]PublicKey, error) {
	d := t.Digest(chain)
	keys := make([]PublicKey, 0, len(t.Signatures))
	for _, s := range t.Signatures {
		k, err := s.Recover(d)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Required returns the accounts whose authorities the operations need,
// by role, in operation order (with repeats).
func (t *Transaction) Required() Required {
	var r Required
	for _, op := range t.Operations {
		r.add(op.Required())
	}
	return r
}

// AppendJSON writes the transaction as condenser_api takes it for
// broadcast_transaction: ref_block_num, ref_block_prefix, expiration,
// operations as ["name", {...}], extensions, signatures in hex.
func (t *Transaction) AppendJSON(b []byte) []byte {
	b = append(b, `{"ref_block_num":`...)
	b = strconv.AppendUint(b, uint64(t.RefBlockNum), 10)
	b = append(b, `,"ref_block_prefix":`...)
	b = strconv.AppendUint(b, uint64(t.RefBlockPrefix), 10)
	b = append(b, `,"expiration":`...)
	b = appendJSONString(b, t.Expiration.UTC().Format(timeLayout))
	b = append(b, `,"operations":[`...)
	for i, op := range t.Operations {
		if i > 0 {
			b = append(b, ',')
		}
		b = op.AppendJSON(b)
	}
	b = append(b, `],"extensions":[],"signatures":[`...)
	for i, s := range t.Signatures {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s.String())
	}
	return append(b, "]}"...)
}

// MarshalJSON implements json.Marshaler (condenser_api's shape).
func (t *Transaction) MarshalJSON() ([]byte, error) { return t.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler (either shape).
func (t *Transaction) UnmarshalJSON(data []byte) error {
	p, err := ParseTransaction(data)
	if err != nil {
		return err
	}
	*t = *p
	return nil
}

// ParseOperations reads a list of operations in either shape, as
// HiveSigner's /api/broadcast receives them.
func ParseOperations(data []byte) ([]Operation, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v []any
	if err := dec.Decode(&v); err != nil {
		return nil, errors.New("operations: want an array")
	}
	ops := make([]Operation, 0, len(v))
	for i, ov := range v {
		op, err := parseOperation(ov)
		if err != nil {
			return nil, fmt.Errorf("operations[%d]: %w", i, err)
		}
		ops = append(ops, op)
	}
	return ops, nil
}
