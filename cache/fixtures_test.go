package cache_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/internal/fixtures"
)

// emptyResult reports whether a decoded result is null, {}, [] or an object
// holding only empty arrays: what hived answers for a missing block.
func emptyResult(t *testing.T, raw json.RawMessage) bool {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("result is not JSON: %v", err)
	}
	switch v := v.(type) {
	case nil:
		return true
	case []any:
		return len(v) == 0
	case map[string]any:
		for _, m := range v {
			if a, ok := m.([]any); !ok || len(a) > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// TestReversibleTTLFixtures applies BlockNum and ReversibleTTL to every
// recorded answer of the EXPIRE_IF_REVERSIBLE methods: real blocks are
// stored (forever at LIB, 9 s above it), missing blocks are not, and a block
// checked against a neighbouring number is rejected.
func TestReversibleTTLFixtures(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		method      string
		hasBlockIDs bool // results name their block (block_id or previous)
	}{
		{"condenser_api.get_block", true},
		{"block_api.get_block", true},
		{"condenser_api.get_block_header", true},
		{"block_api.get_block_header", true},
		{"block_api.get_block_range", true},
		{"condenser_api.get_ops_in_block", false},
		{"account_history_api.get_ops_in_block", false},
		{"account_history_api.enum_virtual_ops", false},
	}
	for _, tc := range testCases {
		t.Run(tc.method, func(t *testing.T) {
			t.Parallel()
			checked := 0
			for _, c := range fixtures.Method(t, tc.method) {
				if c.Result == nil {
					continue // errors are never cached
				}
				result := []byte(c.Result)
				empty := emptyResult(t, c.Result)
				n, ok := cache.BlockNum(c.Method, c.Params)
				if !ok {
					// Only unusable params (block -1) may come with an answer.
					if !empty {
						t.Errorf("%s: BlockNum(%s) failed but hived answered with data", c.Name, c.Params)
					}
					continue
				}
				checked++
				ttl, store := cache.ReversibleTTL(n, n, result)
				if empty {
					if store {
						t.Errorf("%s: empty result %.40s stored", c.Name, result)
					}
					continue
				}
				if !store || ttl != cache.NoExpiry {
					t.Errorf("%s: block %d at LIB: got %v, %v; want NoExpiry, true", c.Name, n, ttl, store)
				}
				if ttl, store := cache.ReversibleTTL(n, n-1, result); !store || ttl != cache.ReversibleTTLDuration {
					t.Errorf("%s: block %d above LIB: got %v, %v; want %v, true", c.Name, n, ttl, store, cache.ReversibleTTLDuration)
				}
				if tc.hasBlockIDs {
					if _, store := cache.ReversibleTTL(n+1, n+1, result); store {
						t.Errorf("%s: answer for block %d stored as block %d", c.Name, n, n+1)
					}
				}
			}
			if checked == 0 || strings.Contains(tc.method, "get_block") && checked < 3 {
				t.Errorf("only %d cases checked", checked)
			}
		})
	}
}
