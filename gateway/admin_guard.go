package gateway

import (
	"mime"
	"net/http"
)

// The admin listener is on loopback by default, but a loopback address is
// not a wall against the operator's own browser: any web page it opens can
// send requests to 127.0.0.1:9090. Two attacks follow, and adminGuard stops
// both before a request reaches the admin endpoints (with or without
// admin_token):
//
//   - DNS rebinding: a page at http://evil.example:9090 turns the address
//     of evil.example into 127.0.0.1 and reads /admin/health, /metrics or
//     the route table as its own origin. Its requests carry
//     "Host: evil.example:9090": a Host that is not a loopback name, an IP
//     address, the admin_listen host or a name of admin_allowed_hosts gets
//     421 Misdirected Request.
//   - Cross-site requests: a page elsewhere posts to
//     http://127.0.0.1:9090/admin/reload. Browsers mark such requests with
//     Sec-Fetch-Site or Origin, and net/http.CrossOriginProtection refuses
//     every cross-origin request whose method is not GET, HEAD or OPTIONS
//     with 403. A browser that sends neither header can still send a
//     "simple" form post (Content-Type application/x-www-form-urlencoded,
//     multipart/form-data or text/plain) without asking first: no admin
//     endpoint takes such a body, so state-changing requests that carry one
//     get 415.

// adminGuard wraps the admin handler with the Host and cross-origin checks.
// The allowed hosts are read from the config in use, so a reload changes
// them.
func (g *Gateway) adminGuard(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.Config().Ops.AdminHostAllowed(r.Host) {
			writeJSON(w, http.StatusMisdirectedRequest, map[string]string{
				"error": "the admin listener answers requests for localhost, an IP address or a name of hivegate.admin_allowed_hosts, not for this Host",
			})
			return
		}
		if err := cop.Check(r); err != nil {
			writeJSON(w, http.StatusForbidden, map[string]string{
				"error": "cross-origin request refused: the admin endpoints change state only for requests that do not come from a web page of another site",
			})
			return
		}
		if !safeMethod(r.Method) && formContentType(r.Header.Get("Content-Type")) {
			writeJSON(w, http.StatusUnsupportedMediaType, map[string]string{
				"error": "the admin endpoints take no form body; send the request without one (curl -X POST URL)",
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// safeMethod reports the methods that change nothing (RFC 9110 9.2.1), as
// CrossOriginProtection counts them.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// formContentType reports the content types a browser sends cross-site
// without a preflight: those of an HTML form.
func formContentType(ct string) bool {
	if ct == "" {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return true // a browser may send a malformed type without asking, too
	}
	switch mt {
	case "application/x-www-form-urlencoded", "multipart/form-data", "text/plain":
		return true
	}
	return false
}
