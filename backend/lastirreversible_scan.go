package backend

import (
	"encoding/json"
	"math"

	"github.com/hivegate/hivegate/jsonwire"
)

// dgpoProps are the two members of a get_dynamic_global_properties result
// the LIBTracker reads.
type dgpoProps struct {
	LIB  uint64 `json:"last_irreversible_block_num"`
	Head uint64 `json:"head_block_number"`
}

// readProps reads last_irreversible_block_num and head_block_number from a
// get_dynamic_global_properties result with exactly the outcome of
// json.Unmarshal into dgpoProps: ok is false when Unmarshal would fail.
//
// Decoding the whole result (about 1.5 KB, dozens of members) on every
// answer that passes through the gateway cost more than the rest of a miss;
// scanProps validates it in one pass and picks the two members out. Anything
// it cannot decide with certainty (escapes or non-ASCII bytes in a member
// name, a value of the two members that is not a plain integer or null) is
// left to json.Unmarshal, so the semantics stay Unmarshal's.
func readProps(result []byte) (dgpoProps, bool) {
	if p, ok, sure := scanProps(result); sure {
		return p, ok
	}
	return unmarshalProps(result)
}

// unmarshalProps is readProps' slow path (kept apart so that the fast
// path's value does not escape to the heap).
func unmarshalProps(result []byte) (dgpoProps, bool) {
	p := new(dgpoProps)
	err := json.Unmarshal(result, p)
	return *p, err == nil
}

// unmarshalDepth is encoding/json's nesting limit (its scanner's
// maxNestingDepth): Unmarshal fails on a value nested deeper, so scanProps
// does too.
const unmarshalDepth = 10000

// scanProps is readProps' fast path; sure is false when the caller must
// fall back to json.Unmarshal.
func scanProps(b []byte) (p dgpoProps, ok, sure bool) {
	i := jsonwire.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		// Not an object. Unmarshal accepts null (leaving zeros) and fails
		// on anything else; let it decide, this is not the hot path.
		return p, false, false
	}
	it := jsonwire.Members(b, i, unmarshalDepth)
	for it.Next() {
		name := it.Name()
		name = name[1 : len(name)-1] // the quotes
		for _, c := range name {
			if c == '\\' || c >= 0x80 {
				return p, false, false // escaped or non-ASCII name: Unmarshal's folding decides
			}
		}
		var field *uint64
		switch {
		case asciiEqualFold(name, "last_irreversible_block_num"):
			field = &p.LIB
		case asciiEqualFold(name, "head_block_number"):
			field = &p.Head
		default:
			continue // Next skips (and checks) the value
		}
		switch v := it.Value(); {
		case v == nil:
			// Invalid JSON: it.Err is set and ends the loop.
		case string(v) == "null":
			// Unmarshal leaves the field as it is.
		case v[0] >= '0' && v[0] <= '9' && allDigits(v):
			n, fits := parseUint64(v)
			if !fits {
				return p, false, false // overflow: Unmarshal's error
			}
			*field = n
		default:
			// A negative, fractional or exponent number, a string, an
			// object...: Unmarshal fails, but it validates the rest first.
			return p, false, false
		}
	}
	if it.Err() != nil {
		return p, false, true // invalid JSON, or deeper than Unmarshal goes: Unmarshal fails
	}
	return p, jsonwire.SkipSpace(b, it.End()) == len(b), true
}

// parseUint64 parses decimal digits; fits is false when the value
// overflows a uint64.
func parseUint64(v []byte) (n uint64, fits bool) {
	for _, c := range v {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// allDigits reports whether v is all decimal digits.
func allDigits(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// asciiEqualFold reports whether the ASCII bytes a equal the lower-case
// ASCII name under case folding. For ASCII input this is what
// encoding/json's case-insensitive member matching does.
func asciiEqualFold(a []byte, name string) bool {
	if len(a) != len(name) {
		return false
	}
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}
