package jsonrpchttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/internal/calltest"
	"github.com/hivegate/hivegate/jsonrpchttp"
)

// echoCaller is calltest.Echo: {"m":method,"p":params}, "fail" fails.
type echoCaller = calltest.Echo

// TestHandlerBodyLimit checks max_body_bytes on a body with and without a
// Content-Length: both are refused with -32014 and HTTP 413.
func TestHandlerBodyLimit(t *testing.T) {
	t.Parallel()
	h := jsonrpchttp.NewHandler(&echoCaller{}, jsonrpchttp.HandlerOptions{MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":1,"method":"m","params":["` + strings.Repeat("x", 2000) + `"]}`
	small := `{"jsonrpc":"2.0","id":1,"method":"m","params":["x"]}`
	for _, tc := range []struct {
		name   string
		body   string
		length int64
		status int
	}{
		{"Content-Length over", big, int64(len(big)), 413},
		{"chunked over", big, -1, 413},
		{"chunked under", small, -1, 200},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
		r.ContentLength = tc.length
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status || (tc.status == 413 && !strings.Contains(w.Body.String(), `"code":-32014`)) {
			t.Errorf("%s: HTTP %d %s", tc.name, w.Code, w.Body)
		}
	}
}
