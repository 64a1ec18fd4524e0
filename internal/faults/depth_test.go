package faults_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/internal/faults"
)

// TestJSONDepthAlwaysTooLarge shows limits.max_json_depth holding however
// deep a body goes, through the whole gateway: one and two levels past the limit, past encoding/json's own 10,000 and at
// 100,000+ levels (closed or not), the answer is -32014 "Request too
// large" with HTTP 413, never a parse error; at the limit the call passes.
func TestJSONDepthAlwaysTooLarge(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 8} {
		t.Run(fmt.Sprintf("max_json_depth %d", limit), func(t *testing.T) {
			t.Parallel()
			lines, depth := "", 64 // the default
			if limit > 0 {
				lines, depth = fmt.Sprintf("  max_json_depth: %d\n", limit), limit
			}
			g, _ := limitsGateway(t, lines, faults.Options{})
			// The body is one level deeper than its params.
			if r := g.post(t, call("1", "hived.test_api.get", nested(depth-1))); r.status != http.StatusOK || strings.Contains(string(r.body), `"error"`) {
				t.Fatalf("at the limit: HTTP %d %.200s", r.status, r.body)
			}
			for _, params := range []string{
				nested(depth), nested(depth + 1), nested(10_001), nested(100_000),
				strings.Repeat("[", 400_000),
			} {
				r := g.post(t, call("1", "hived.test_api.get", params))
				got := r.single(t)
				if r.status != http.StatusRequestEntityTooLarge || got.Error == nil || got.Error.Code != -32014 {
					t.Errorf("params %d levels deep: HTTP %d %.200s, want 413 and -32014", strings.Count(params, "["), r.status, r.body)
				}
			}
		})
	}
}
