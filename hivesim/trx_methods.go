package hivesim

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/hivegate/hivegate/hivetx"
)

// Transaction helpers of database_api and condenser_api: the binary form of
// a transaction and what its operations require. The authority methods
// built on them are in trx_authority.go.

// simOp is an operation of a transaction given as a parameter.
type simOp struct {
	name  string // without "_operation"
	value map[string]any
}

// simTrx is a transaction given as a parameter.
type simTrx struct {
	refBlockNum    uint32
	refBlockPrefix uint32
	expiration     uint32
	ops            []simOp
	signatures     []string
	raw            any // the parameter, for hivetx (signature recovery)
}

// parseTrx reads a signed transaction: operations as {"type","value"}
// objects or legacy ["name", {...}] pairs.
func (c *callCtx) parseTrx(v any) (*simTrx, *rpcError) {
	in := &conv{}
	o := get(in, c.asObject, v)
	t := &simTrx{raw: v, refBlockNum: get(in, c.asU32, o["ref_block_num"]), refBlockPrefix: get(in, c.asU32, o["ref_block_prefix"])}
	t.expiration = uint32(get(in, c.asTime, o["expiration"]).Unix())
	ops := get(in, c.asArray, orEmptyArray(o["operations"]))
	if in.err != nil {
		return nil, in.err
	}
	for _, op := range ops {
		var so simOp
		switch x := op.(type) {
		case []any:
			if len(x) != 2 {
				return nil, c.assertFail("ar.size() == 2", "Incorrect operation format")
			}
			so.name, _ = x[0].(string)
			so.value, _ = x[1].(map[string]any)
		case map[string]any:
			name, _ := x["type"].(string)
			so.name = strings.TrimSuffix(name, "_operation")
			so.value, _ = x["value"].(map[string]any)
		default:
			return nil, c.badCast("Invalid cast from " + variantType(op) + " to Object")
		}
		if so.value == nil {
			return nil, c.badCast("Invalid cast from null_type to Object")
		}
		t.ops = append(t.ops, so)
	}
	sigs, err := c.asArray(orEmptyArray(o["signatures"]))
	if err != nil {
		return nil, err
	}
	for _, s := range sigs {
		str, err := c.asString(s)
		if err != nil {
			return nil, err
		}
		t.signatures = append(t.signatures, str)
	}
	return t, nil
}

// require adds name to the accounts whose authority of level req needs.
func require(req *hivetx.Required, level authLevel, name string) {
	switch level {
	case levelOwner:
		req.Owner = append(req.Owner, name)
	case levelActive:
		req.Active = append(req.Active, name)
	default:
		req.Posting = append(req.Posting, name)
	}
}

// opSigners maps an operation to the field naming the account that must
// sign it, and the level.
var opSigners = map[string]struct {
	field string
	level authLevel
}{
	"vote": {"voter", levelPosting}, "comment": {"author", levelPosting}, "comment_options": {"author", levelPosting},
	"delete_comment": {"author", levelPosting}, "claim_reward_balance": {"account", levelPosting},
	"transfer": {"from", levelActive}, "transfer_to_vesting": {"from", levelActive}, "transfer_to_savings": {"from", levelActive},
	"transfer_from_savings": {"from", levelActive}, "withdraw_vesting": {"account", levelActive},
	"delegate_vesting_shares": {"delegator", levelActive}, "account_witness_vote": {"account", levelActive},
	"account_witness_proxy": {"account", levelActive}, "limit_order_create": {"owner", levelActive},
	"limit_order_cancel": {"owner", levelActive}, "convert": {"owner", levelActive}, "recurrent_transfer": {"from", levelActive},
	"update_proposal_votes": {"voter", levelActive}, "account_update2": {"account", levelActive},
}

// requirements lists the accounts a transaction needs signed, by level,
// for a transaction hivetx cannot read (custom_json's by its
// required_auths and required_posting_auths).
func (c *callCtx) requirements(t *simTrx) (hivetx.Required, *rpcError) {
	var req hivetx.Required
	add := func(v any, level authLevel) *rpcError {
		name, err := c.asName(v)
		if err == nil {
			require(&req, level, name)
		}
		return err
	}
	for _, op := range t.ops {
		if op.name == "custom_json" {
			for _, k := range []string{"required_auths", "required_posting_auths"} {
				names, err := c.asArray(orEmptyArray(op.value[k]))
				if err != nil {
					return req, err
				}
				for _, n := range names {
					if err := add(n, map[bool]authLevel{true: levelActive, false: levelPosting}[k == "required_auths"]); err != nil {
						return req, err
					}
				}
			}
			continue
		}
		s, ok := opSigners[op.name]
		if !ok {
			return req, c.assertFail("false", "The simulated node does not know the authorities of "+op.name+"_operation")
		}
		if err := add(op.value[s.field], s.level); err != nil {
			return req, err
		}
	}
	return req, nil
}

// trxHex is the binary serialization of t in hex: the header, the
// operations and the extensions and signatures. legacy writes assets in the
// pre-HF26 form (amount, precision, 7-character symbol), otherwise as NAIs.
func (c *callCtx) trxHex(t *simTrx, legacy bool) (string, *rpcError) {
	b := binary.LittleEndian.AppendUint16(nil, uint16(t.refBlockNum))
	b = binary.LittleEndian.AppendUint32(b, t.refBlockPrefix)
	b = binary.LittleEndian.AppendUint32(b, t.expiration)
	b = binary.AppendUvarint(b, uint64(len(t.ops)))
	for _, op := range t.ops {
		var err *rpcError
		if b, err = c.packOp(b, op, legacy); err != nil {
			return "", err
		}
	}
	b = binary.AppendUvarint(b, 0) // extensions
	b = binary.AppendUvarint(b, uint64(len(t.signatures)))
	for _, s := range t.signatures {
		sig, err := hex.DecodeString(s)
		if err != nil || len(sig) != 65 {
			return "", c.parseError("Couldn't parse signature " + s)
		}
		b = append(b, sig...)
	}
	return hex.EncodeToString(b), nil
}

// packLayouts are the operations the simulated node serializes: their
// tag and their fields in order, each a string, unless marked ":i16", ":asset"
// or ":names" (an array of strings).
var packLayouts = map[string]struct {
	id     byte
	fields []string
}{
	"vote":        {0, []string{"voter", "author", "permlink", "weight:i16"}},
	"transfer":    {2, []string{"from", "to", "amount:asset", "memo"}},
	"custom_json": {18, []string{"required_auths:names", "required_posting_auths:names", "id", "json"}},
}

// packOp serializes an operation of packLayouts.
func (c *callCtx) packOp(b []byte, op simOp, legacy bool) ([]byte, *rpcError) {
	layout, ok := packLayouts[op.name]
	if !ok {
		return nil, c.assertFail("false", "The simulated node does not serialize "+op.name+"_operation")
	}
	str := func(b []byte, v any) []byte {
		s, _ := v.(string)
		return append(binary.AppendUvarint(b, uint64(len(s))), s...)
	}
	b = append(b, layout.id)
	for _, f := range layout.fields {
		name, kind, _ := strings.Cut(f, ":")
		switch v := op.value[name]; kind {
		case "i16":
			wgt, err := c.asI64(v)
			if err != nil {
				return nil, err
			}
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(wgt)))
		case "asset":
			a, err := c.asAsset(v)
			if err != nil {
				return nil, err
			}
			b = packAsset(b, a, legacy)
		case "names":
			names, _ := v.([]any)
			b = binary.AppendUvarint(b, uint64(len(names)))
			for _, n := range names {
				b = str(b, n)
			}
		default:
			b = str(b, v)
		}
	}
	return b, nil
}

// packedSymbol is the legacy binary name of a symbol.
func packedSymbol(symbol string) string {
	switch symbol {
	case HIVE:
		return "STEEM"
	case HBD:
		return "SBD"
	}
	return symbol
}

// packAsset writes an asset: legacy (amount, precision, 7-byte symbol) or
// HF26 (amount, NAI number with the precision in its low bits).
func packAsset(b []byte, a Asset, legacy bool) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(a.Amount))
	if legacy {
		b = append(b, a.Precision)
		// hived packs the legacy symbols by their pre-Hive names
		// (asset_symbol.hpp: OBSOLETE_SYMBOL_SER "STEEM", OBD_SYMBOL_SER "SBD").
		var sym [7]byte
		copy(sym[:], packedSymbol(a.Symbol))
		return append(b, sym[:]...)
	}
	nai := map[string]uint32{HBD: 1, HIVE: 2, VESTS: 3}[a.Symbol]
	return binary.LittleEndian.AppendUint32(b, nai<<5|uint32(16+a.Precision))
}
