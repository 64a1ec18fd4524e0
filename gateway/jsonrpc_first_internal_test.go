package gateway

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestJSONRPCFirst: POST / skips the mux only while the mux itself would
// give it to its "/" pattern; a more specific pattern for POST / (added
// later, say) wins as it would without the shortcut.
func TestJSONRPCFirst(t *testing.T) {
	t.Parallel()
	named := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(name)) })
	}
	for _, tc := range []struct {
		name     string
		patterns map[string]string
		method   string
		path     string
		want     string
	}{
		{"POST / to jsonrpc", map[string]string{"/": "root"}, http.MethodPost, "/", "jsonrpc"},
		{"GET / through the mux", map[string]string{"/": "root"}, http.MethodGet, "/", "root"},
		{"other paths through the mux", map[string]string{"/": "root", "GET /ui/": "ui"}, http.MethodGet, "/ui/x", "ui"},
		{"a POST /{$} pattern wins", map[string]string{"/": "root", "POST /{$}": "exact"}, http.MethodPost, "/", "exact"},
	} {
		mux := http.NewServeMux()
		for p, name := range tc.patterns {
			mux.Handle(p, named(name))
		}
		rec := httptest.NewRecorder()
		newJSONRPCFirst(named("jsonrpc"), mux).ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if got := rec.Body.String(); got != tc.want {
			t.Errorf("%s: served by %q, want %q", tc.name, got, tc.want)
		}
	}
}
