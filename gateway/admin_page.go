package gateway

import (
	"net/http"
	"strings"

	"github.com/hivegate/hivegate/web"
)

// The operator page (web/src/operator, built into web/dist/operator) is
// served by the admin listener at /operator/. Its files are the same for everyone and hold no data, so they are
// served without hivegate.admin_token (behind the Host and cross-site
// checks like every admin request); the page reads everything it shows
// from the /admin/* JSON endpoints, sending the token the operator types
// in when one is configured.

// operatorPage serves the page's files under /operator/ and redirects
// /operator to it.
func operatorPage() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /operator/", http.StripPrefix("/operator", web.OperatorHandler()))
	mux.Handle("GET /operator", http.RedirectHandler("/operator/", http.StatusFound))
	return mux
}

// isOperatorPage reports a request for one of the page's files.
func isOperatorPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p == "/operator" || strings.HasPrefix(p, "/operator/")
}
