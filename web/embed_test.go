package web

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// assetRef matches the relative asset URLs web/build.mjs writes into index.html.
var assetRef = regexp.MustCompile(`(?:src|href)="\./(assets/[^"]+)"`)

func TestDistHasPageAndItsAssets(t *testing.T) {
	t.Parallel()
	index, err := fs.ReadFile(Dist(), "index.html")
	if err != nil {
		t.Fatalf("dist has no index.html (run tests/run.sh or `npm run build` in web/): %v", err)
	}
	refs := assetRef.FindAllStringSubmatch(string(index), -1)
	if len(refs) < 2 {
		t.Fatalf("index.html references %d assets, want the script and the stylesheet:\n%s", len(refs), index)
	}
	for _, ref := range refs {
		if _, err := fs.Stat(Dist(), ref[1]); err != nil {
			t.Errorf("index.html references %s, which dist does not hold: %v", ref[1], err)
		}
	}
}

func TestHandlerServesUnderPrefix(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.Handle("GET /ui/", http.StripPrefix("/ui", Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	index := get(t, srv.URL+"/ui/", "text/html")
	ref := assetRef.FindStringSubmatch(index)
	if ref == nil {
		t.Fatalf("served index.html has no asset reference:\n%s", index)
	}
	get(t, srv.URL+"/ui/"+ref[1], "")
}

// get fetches url, checks for 200 and, when wantType is not empty, the
// content type's prefix, and returns the body.
func get(t *testing.T, url, wantType string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200", url, res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); wantType != "" && !strings.HasPrefix(ct, wantType) {
		t.Errorf("GET %s: Content-Type %q, want %s", url, ct, wantType)
	}
	if len(body) == 0 {
		t.Errorf("GET %s: empty body", url)
	}
	return string(body)
}
