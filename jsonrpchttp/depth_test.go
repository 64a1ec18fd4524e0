package jsonrpchttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonrpchttp"
)

// TestHandlerDepthLimit checks limits.max_json_depth through the handler:
// a body nested deeper than the limit answers -32014 "Request too large"
// with HTTP 413 however deep it goes (encoding/json gives up past 10,000
// levels, which must not turn the answer into a parse error), and whatever
// follows the level too many; a body at the limit passes.
func TestHandlerDepthLimit(t *testing.T) {
	t.Parallel()
	request := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":` + params + `}`
	}
	// nested is params n levels deep; the body is one level more.
	nested := func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) }
	testCases := []struct {
		name     string
		maxDepth int
		body     string
		tooDeep  bool
	}{
		{"at the default limit", 0, request(nested(63)), false},
		{"one above the default limit", 0, request(nested(64)), true},
		{"two above the default limit", 0, request(nested(65)), true},
		{"at a configured limit", 8, request(nested(7)), false},
		{"one above a configured limit", 8, request(nested(8)), true},
		{"10,001 levels", 0, request(nested(10_000)), true},
		{"100,000 levels", 0, request(nested(100_000)), true},
		{"400,000 levels", 0, request(nested(400_000)), true},
		{"400,000 levels never closed", 0, request(strings.Repeat("[", 400_000)), true},
		{"too deep, then not JSON", 0, request(nested(70)[:70] + "}}}garbage"), true},
		{"too deep in a batch", 0, "[" + request(`[1]`) + "," + request(nested(100_000)) + "]", true},
		{"objects too deep", 0, request(strings.Repeat(`{"a":`, 64) + "1" + strings.Repeat("}", 64)), true},
		{"not JSON before the limit", 0, request("[x" + nested(100)), false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := jsonrpchttp.NewHandler(&echoCaller{}, jsonrpchttp.HandlerOptions{MaxDepth: tc.maxDepth})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body)))
			var answer struct {
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil {
				t.Fatalf("answer %.300s: %v", w.Body.Bytes(), err)
			}
			switch {
			case tc.tooDeep:
				if w.Code != http.StatusRequestEntityTooLarge || answer.Error == nil || answer.Error.Code != -32014 ||
					!strings.HasPrefix(answer.Error.Message, "Request too large: JSON nested deeper than") || string(answer.ID) != "null" {
					t.Fatalf("HTTP %d %.300s; want 413 and -32014 Request too large", w.Code, w.Body.Bytes())
				}
			case strings.Contains(tc.body, "[x"):
				if w.Code != http.StatusOK || answer.Error == nil || answer.Error.Code != -32700 {
					t.Fatalf("HTTP %d %.300s; want a parse error", w.Code, w.Body.Bytes())
				}
			default:
				if w.Code != http.StatusOK || answer.Error != nil {
					t.Fatalf("HTTP %d %.300s; want a result", w.Code, w.Body.Bytes())
				}
			}
		})
	}
}
