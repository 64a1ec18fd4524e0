package backend

import (
	"encoding/json"
	"math"
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

// scanProps is readProps' fast path; sure is false when the caller must
// fall back to json.Unmarshal.
func scanProps(b []byte) (p dgpoProps, ok, sure bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		// Not an object. Unmarshal accepts null (leaving zeros) and fails
		// on anything else; let it decide, this is not the hot path.
		return p, false, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return p, skipSpace(b, i+1) == len(b), true
	}
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return p, false, true // invalid JSON: Unmarshal fails
		}
		nameStart := i + 1
		end, err := skipKey(b, i)
		if err != nil {
			return p, false, true
		}
		vstart := skipSpace(b, end)
		vend, err := skipValue(b, vstart)
		if err != nil {
			return p, false, true
		}
		// The name lies between nameStart and the closing quote before end.
		nameEnd := nameStart
		for b[nameEnd] != '"' {
			if b[nameEnd] == '\\' || b[nameEnd] >= 0x80 {
				return p, false, false // escaped or non-ASCII name: Unmarshal's folding decides
			}
			nameEnd++
		}
		var field *uint64
		switch name := b[nameStart:nameEnd]; {
		case asciiEqualFold(name, "last_irreversible_block_num"):
			field = &p.LIB
		case asciiEqualFold(name, "head_block_number"):
			field = &p.Head
		}
		if field != nil {
			switch v := b[vstart:vend]; {
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
		i = skipSpace(b, vend)
		if i >= len(b) {
			return p, false, true
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return p, skipSpace(b, i+1) == len(b), true
		default:
			return p, false, true
		}
	}
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
		if !isDigit(c) {
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
