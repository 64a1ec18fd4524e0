package auth

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
)

// The login page: auth/page/index.html.tmpl, filled in by the server, and
// the script and style in auth/page/dist, built from auth/page/src by
// auth/page/build.mjs (esbuild; @noble/secp256k1 signs in the browser).
// The page reads its request from the JSON in #hg-request and talks only
// to its own origin.

//go:embed page/index.html.tmpl
var pageTemplateText string

//go:embed page/dist
var pageDist embed.FS

var pageTemplate = template.Must(template.New("page").Parse(pageTemplateText))

// pageData is the page's request, as JSON in the page (never a secret:
// the request id is only good together with the user's own signature).
type pageData struct {
	RequestID      string   `json:"request_id,omitempty"`
	ClientID       string   `json:"client_id,omitempty"`
	AppName        string   `json:"app_name,omitempty"`
	Scopes         []string `json:"scopes,omitempty"`
	Operations     []string `json:"operations,omitempty"`
	RedirectHost   string   `json:"redirect_host,omitempty"`
	ServiceAccount string   `json:"service_account,omitempty"`
	AppAccount     string   `json:"app_account,omitempty"` // the account the user authorizes (auth.apps[].account)
	Account        string   `json:"account,omitempty"`
	Error          string   `json:"error,omitempty"`
	Description    string   `json:"error_description,omitempty"`
	// Demo marks the page of `hivegate demo` (Options.DemoAuthority set).
	Demo bool `json:"demo,omitempty"`
	// HiveAuth offers the HiveAuth login (auth.hiveauth_relay set).
	HiveAuth bool `json:"hiveauth,omitempty"`
}

// pageSecurityHeaders keep the page to itself: scripts and requests only
// from its own origin, no framing (no clickjacking of the approve button),
// no referrer (the URL holds the state), nothing cached.
func pageSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "+
		"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
}

// page serves the login page with its request.
func (s *Service) page(w http.ResponseWriter, status int, d pageData) {
	pageSecurityHeaders(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pageTemplate.Execute(w, d); err != nil {
		s.log.Warn("auth: writing the login page", "err", err)
	}
}

// errorPage shows an error the user cannot be sent back to the app with.
func (s *Service) errorPage(w http.ResponseWriter, _ *http.Request, status int, title, desc string) {
	s.page(w, status, pageData{Error: title, Description: desc})
}

// pageAssets serves the page's script and style.
func pageAssets() http.Handler {
	sub, _ := fs.Sub(pageDist, "page/dist") // the embedded directory exists
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
