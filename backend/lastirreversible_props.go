package backend

import "encoding/json"

// dgpoProps are the two members of a get_dynamic_global_properties result
// the LIBTracker and the prober read.
type dgpoProps struct {
	LIB  uint64 `json:"last_irreversible_block_num"`
	Head uint64 `json:"head_block_number"`
}

// readProps reads last_irreversible_block_num and head_block_number from a
// get_dynamic_global_properties result: the outcome of json.Unmarshal into
// dgpoProps, ok false when it fails. So both are JSON numbers that fit a
// uint64 (a string such as "9", a negative, fractional or exponent number
// is refused, and so is invalid JSON); member names match case-insensitively;
// a member given twice counts as its last; null, or a missing member,
// leaves 0.
//
// Its callers are the prober (a few results per node and interval) and the
// dispatcher's sample of the results passing through (at most one every
// 100 ms by default), so encoding/json costs nothing that shows.
func readProps(result []byte) (dgpoProps, bool) {
	var p dgpoProps
	err := json.Unmarshal(result, &p)
	return p, err == nil
}
