package cache

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hivegate/hivegate/jsonwire"
)

// ReversibleTTLDuration is how long EXPIRE_IF_REVERSIBLE keeps data about a
// block that is not yet irreversible (or when the last irreversible block is
// not known yet): three Hive block intervals.
const ReversibleTTLDuration = 9 * time.Second

// blockArg says how a method's params name the block its answer depends on.
type blockArg int

const (
	// argNone marks a method EXPIRE_IF_REVERSIBLE knows nothing about.
	argNone blockArg = iota
	// argBlockNum: [block_num, ...] or {"block_num": n}.
	argBlockNum
	// argBlockRange: [starting_block_num, count] or
	// {"starting_block_num": s, "count": c}; the answer depends on s+c-1.
	argBlockRange
	// argVirtualOpsRange: [block_range_begin, block_range_end] or
	// {"block_range_begin": b, "block_range_end": e}; the range end is
	// exclusive in hived and HAfAH, so the answer depends on e-1.
	argVirtualOpsRange
)

// blockArgOf returns how apiMethod ("api.method") names its block.
func blockArgOf(apiMethod string) blockArg {
	switch apiMethod {
	case "condenser_api.get_block", "block_api.get_block",
		"database_api.get_block", // legacy (pre-appbase) name, also what a bare get_block becomes
		"wallet_bridge_api.get_block",
		"condenser_api.get_block_header", "block_api.get_block_header",
		"database_api.get_block_header",
		"condenser_api.get_ops_in_block", "account_history_api.get_ops_in_block",
		"database_api.get_ops_in_block", "wallet_bridge_api.get_ops_in_block":
		return argBlockNum
	case "block_api.get_block_range":
		return argBlockRange
	case "account_history_api.enum_virtual_ops":
		// condenser_api has no enum_virtual_ops in hived or HAfAH.
		return argVirtualOpsRange
	}
	return argNone
}

// BlockNum returns the block whose data the answer to apiMethod with params
// depends on: the requested block for get_block, get_block_header and
// get_ops_in_block; the last block of the range for
// block_api.get_block_range (starting_block_num + count - 1); the last block
// of the range for account_history_api.enum_virtual_ops (block_range_end - 1,
// because hived's range end is exclusive).
//
// apiMethod is "api.method" (for example "condenser_api.get_block"); a
// leading namespace ("hived.database_api.get_block") is ignored. Params may be
// positional ([n], [n, only_virtual], [start, count]) or named
// ({"block_num": n}, {"starting_block_num": s, "count": c},
// {"block_range_begin": b, "block_range_end": e}); numbers may be JSON
// numbers or decimal strings, as hived accepts both. BlockNum returns false
// for any other method, for params it cannot read, and for ranges that
// name no block.
func BlockNum(apiMethod string, params json.RawMessage) (uint64, bool) {
	if strings.Count(apiMethod, ".") == 2 {
		apiMethod = apiMethod[strings.IndexByte(apiMethod, '.')+1:]
	}
	arg := blockArgOf(apiMethod)
	if arg == argNone {
		return 0, false
	}
	var names [2]string
	switch arg {
	case argBlockNum:
		names = [2]string{"block_num", ""}
	case argBlockRange:
		names = [2]string{"starting_block_num", "count"}
	case argVirtualOpsRange:
		names = [2]string{"block_range_begin", "block_range_end"}
	}
	first, second, ok := blockParams(params, names)
	if !ok {
		return 0, false
	}
	switch arg {
	case argBlockRange:
		if second == 0 || first > math.MaxUint64-second+1 {
			return 0, false
		}
		return first + second - 1, true
	case argVirtualOpsRange:
		if second == 0 {
			return 0, false
		}
		return second - 1, true
	}
	return first, true
}

// blockParams reads the numbers named names[0] and names[1] (the second
// only when names[1] is not empty) from positional or named params; of
// duplicate names the last counts, as with encoding/json.
func blockParams(params json.RawMessage, names [2]string) (first, second uint64, ok bool) {
	var raw [2][]byte
	i := jsonwire.SkipSpace(params, 0)
	if i >= len(params) {
		return 0, 0, false
	}
	var it jsonwire.Iter
	switch params[i] {
	case '[':
		it = jsonwire.Elements(params, i, jsonwire.MaxDepth)
		for n := 0; it.Next(); n++ {
			if n < len(raw) {
				raw[n] = it.Value()
			}
		}
	case '{':
		it = jsonwire.Members(params, i, jsonwire.MaxDepth)
		for it.Next() {
			for k, name := range names {
				if name != "" && jsonwire.EqualString(it.Name(), name) {
					raw[k] = it.Value()
				}
			}
		}
	default:
		return 0, 0, false
	}
	if it.Err() != nil || jsonwire.SkipSpace(params, it.End()) != len(params) {
		return 0, 0, false
	}
	if first, ok = parseUint(raw[0]); !ok {
		return 0, 0, false
	}
	if names[1] == "" {
		return first, 0, true
	}
	second, ok = parseUint(raw[1])
	return first, second, ok
}

// parseUint reads a non-negative integer given as a JSON number or as a
// JSON string holding decimal digits.
func parseUint(raw []byte) (uint64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	if raw[0] == '"' {
		n, err := strconv.ParseUint(jsonwire.Unquote(raw), 10, 64)
		return n, err == nil
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	return n, err == nil
}

// ReversibleTTL applies EXPIRE_IF_REVERSIBLE to result, the raw JSON-RPC
// result answering a request about blockNum (see BlockNum), given the last
// irreversible block (0 when not known yet).
//
// It returns store=false, and the result must not be cached, when:
//   - the result is empty: null, {}, [] or an object whose members are all
//     empty arrays ({"blocks":[]}, {"ops":[]}), which is how hived and HAfAH
//     answer for a block they do not have yet;
//   - the result is about another block: its block_id does not start with
//     blockNum as 8 hex digits, or its previous (the parent's id) does not
//     start with blockNum-1. Both are looked for in condenser_api's flat
//     block and header, in block_api's {"block":{...}} and {"header":{...}},
//     and in the last block of block_api.get_block_range's
//     {"blocks":[...]} (a range clipped at the head fails here);
//   - the result is not well-formed JSON.
//
// Otherwise it returns ReversibleTTLDuration while blockNum is above the last
// irreversible block or that block is unknown, and NoExpiry once blockNum is
// irreversible. Only the top members of the result (and of its block) are
// looked at, so a block_id inside a transaction (a custom_json payload, a
// witness_block_approve_operation) cannot pass for the block's own; a block
// is walked once without being decoded.
func ReversibleTTL(blockNum, lastIrreversible uint64, result []byte) (ttl time.Duration, store bool) {
	ev, ok := inspectResult(result)
	if !ok || ev.empty {
		return 0, false
	}
	if ev.blockID != nil && !blockIDMatches(ev.blockID, blockNum) {
		return 0, false
	}
	if ev.previous != nil && (blockNum == 0 || !blockIDMatches(ev.previous, blockNum-1)) {
		return 0, false
	}
	if lastIrreversible == 0 || blockNum > lastIrreversible {
		return ReversibleTTLDuration, true
	}
	return NoExpiry, true
}

// evidence is what the top of a result says about the block it holds.
type evidence struct {
	empty    bool   // null, {}, [] or an object of empty arrays only
	blockID  []byte // the block's id, nil if absent
	previous []byte // the parent block's id, nil if absent
}

// inspectResult walks the top of result and reports what it says about its
// block, and whether it is well-formed (checked with jsonwire as it is
// walked; nested values are skipped whole, never searched).
func inspectResult(result []byte) (evidence, bool) {
	var ev evidence
	i := jsonwire.SkipSpace(result, 0)
	if i == len(result) {
		return evidence{empty: true}, true
	}
	var end int
	if result[i] == '{' {
		members, allEmptyArrays := 0, true
		it := jsonwire.Members(result, i, jsonwire.MaxDepth)
		for it.Next() {
			name, value := it.Name(), it.Value()
			if value == nil {
				break
			}
			members++
			if value[0] != '[' || !isEmptyContainer(value) {
				allEmptyArrays = false
			}
			switch {
			case jsonwire.EqualString(name, "block_id"): // condenser_api.get_block: the block itself
				ev.blockID = stringContents(value)
			case jsonwire.EqualString(name, "previous"): // condenser_api.get_block_header, and get_block
				ev.previous = stringContents(value)
			case jsonwire.EqualString(name, "block"), jsonwire.EqualString(name, "header"): // block_api.get_block, get_block_header
				if value[0] == '{' {
					ev.blockID, ev.previous = blockIDs(value)
				}
			case jsonwire.EqualString(name, "blocks"): // block_api.get_block_range: the range's last block
				if value[0] == '[' {
					ev.blockID, ev.previous = lastBlockIDs(value)
				}
			}
		}
		if it.Err() != nil {
			return evidence{}, false
		}
		end = it.End()
		ev.empty = members == 0 || allEmptyArrays
	} else {
		var err error
		if end, err = jsonwire.Skip(result, i, jsonwire.MaxDepth); err != nil {
			return evidence{}, false
		}
		ev.empty = isEmptyContainer(result[i:end])
	}
	if jsonwire.SkipSpace(result, end) != len(result) {
		return evidence{}, false
	}
	return ev, true
}

// blockIDs returns the block_id and previous members of the object block
// (valid JSON); either is nil when absent or not a string.
func blockIDs(block []byte) (id, previous []byte) {
	it := jsonwire.Members(block, 0, jsonwire.MaxDepth)
	for it.Next() {
		switch name := it.Name(); {
		case jsonwire.EqualString(name, "block_id"):
			id = stringContents(it.Value())
		case jsonwire.EqualString(name, "previous"):
			previous = stringContents(it.Value())
		}
	}
	return id, previous
}

// lastBlockIDs returns blockIDs of the last element of the array blocks
// (valid JSON).
func lastBlockIDs(blocks []byte) (id, previous []byte) {
	var last []byte
	it := jsonwire.Elements(blocks, 0, jsonwire.MaxDepth)
	for it.Next() {
		last = it.Value()
	}
	if len(last) == 0 || last[0] != '{' {
		return nil, nil
	}
	return blockIDs(last)
}

// isEmptyContainer reports whether v is null, {} or [] (with any
// whitespace inside and around).
func isEmptyContainer(v []byte) bool {
	v = jsonwire.TrimSpace(v)
	if string(v) == "null" {
		return true
	}
	return len(v) >= 2 && (v[0] == '{' && v[len(v)-1] == '}' || v[0] == '[' && v[len(v)-1] == ']') &&
		jsonwire.SkipSpace(v, 1) == len(v)-1
}

// stringContents returns the bytes between the quotes of the JSON string v
// (escapes untouched: a block id is plain hex), or nil if v is not a
// string.
func stringContents(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	return v[1 : len(v)-1]
}

// blockIDMatches reports whether the block id starts with blockNum as 8 hex
// digits, which is how Hive block ids begin.
func blockIDMatches(id []byte, blockNum uint64) bool {
	if len(id) < 8 {
		return false
	}
	n, err := strconv.ParseUint(string(id[:8]), 16, 32)
	return err == nil && n == blockNum
}

// IsEmptyResult reports whether a result is null, {} or [] (whitespace
// allowed) or holds no bytes at all: under EXPIRE_IF_REVERSIBLE such an
// answer usually means "not produced yet" and is never stored. ReversibleTTL
// applies this rule, and more, to calls about one block; the dispatcher uses
// it for EXPIRE_IF_REVERSIBLE calls without a block number.
func IsEmptyResult(v []byte) bool {
	return jsonwire.SkipSpace(v, 0) == len(v) || isEmptyContainer(v)
}
