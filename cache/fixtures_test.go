package cache_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/cache"
	"github.com/hivegate/hivegate/internal/fixtures"
)

// fixtureCase is one line of a recorded fixtures/hive/hived/<method>.jsonl file.
type fixtureCase struct {
	Case    string `json:"case"`
	Request struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"request"`
	Response struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	} `json:"response"`
}

// readFixtures returns the cases recorded for method. It skips the test when
// HIVEGATE_FIXTURES is unset and fails it when the data is missing.
func readFixtures(t *testing.T, method string) []fixtureCase {
	t.Helper()
	dir := fixtures.Dir(t)
	f, err := os.Open(filepath.Join(dir, "hived", method+".jsonl"))
	if err != nil {
		t.Fatalf("HIVEGATE_FIXTURES is set but the data is missing: %v", err)
	}
	defer f.Close()
	var cases []fixtureCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var c fixtureCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: line %d: %v", method, len(cases)+1, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases recorded", method)
	}
	return cases
}

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
			for _, c := range readFixtures(t, tc.method) {
				if c.Response.Result == nil {
					continue // errors are never cached
				}
				result := []byte(c.Response.Result)
				empty := emptyResult(t, c.Response.Result)
				n, ok := cache.BlockNum(c.Request.Method, c.Request.Params)
				if !ok {
					// Only unusable params (block -1) may come with an answer.
					if !empty {
						t.Errorf("%s: BlockNum(%s) failed but hived answered with data", c.Case, c.Request.Params)
					}
					continue
				}
				checked++
				ttl, store := cache.ReversibleTTL(n, n, result)
				if empty {
					if store {
						t.Errorf("%s: empty result %.40s stored", c.Case, result)
					}
					continue
				}
				if !store || ttl != cache.NoExpiry {
					t.Errorf("%s: block %d at LIB: got %v, %v; want NoExpiry, true", c.Case, n, ttl, store)
				}
				if ttl, store := cache.ReversibleTTL(n, n-1, result); !store || ttl != cache.ReversibleTTLDuration {
					t.Errorf("%s: block %d above LIB: got %v, %v; want %v, true", c.Case, n, ttl, store, cache.ReversibleTTLDuration)
				}
				if tc.hasBlockIDs {
					if _, store := cache.ReversibleTTL(n+1, n+1, result); store {
						t.Errorf("%s: answer for block %d stored as block %d", c.Case, n, n+1)
					}
				}
			}
			if checked == 0 || strings.Contains(tc.method, "get_block") && checked < 3 {
				t.Errorf("only %d cases checked", checked)
			}
		})
	}
}
