package web

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestOperatorDist: the operator page is built with its assets, and the
// main page's handler (the public /ui/) does not serve it.
func TestOperatorDist(t *testing.T) {
	t.Parallel()
	index, err := fs.ReadFile(OperatorDist(), "index.html")
	if err != nil {
		t.Fatalf("dist has no operator/index.html (run `npm run build` in web/): %v", err)
	}
	refs := assetRef.FindAllStringSubmatch(string(index), -1)
	if len(refs) != 2 {
		t.Fatalf("operator/index.html references %d assets, want the script and the stylesheet:\n%s", len(refs), index)
	}
	for _, ref := range refs {
		if _, err := fs.Stat(OperatorDist(), ref[1]); err != nil {
			t.Errorf("operator/index.html references %s, which dist/operator does not hold: %v", ref[1], err)
		}
	}

	mux := http.NewServeMux()
	mux.Handle("GET /ui/", http.StripPrefix("/ui", Handler()))
	mux.Handle("GET /operator/", http.StripPrefix("/operator", OperatorHandler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	get(t, srv.URL+"/operator/", "text/html")
	get(t, srv.URL+"/operator/"+refs[0][1], "")
	for _, path := range []string{"/ui/operator/", "/ui/operator/index.html", "/ui/operator/" + refs[0][1]} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s on the main page's handler: %d, want 404", path, res.StatusCode)
		}
	}
}
