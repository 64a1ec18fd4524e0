package hassim

import (
	"context"
	"html/template"
	"net/http"
	"time"

	"github.com/hivegate/hivegate/auth/has"
)

// walletPage is the simulated wallet's page: a has:// link in, Approve or
// Reject out.
var walletPage = template.Must(template.New("wallet").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Simulated HiveAuth wallet · hivegate demo</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}
.demo{border-left:4px solid #d35400;padding:.4rem .7rem;background:rgba(211,84,0,.1)}
.error{color:#c0392b}button{padding:.5rem 1.2rem;font:inherit;margin-right:.5rem}code{word-break:break-all}</style></head>
<body>
<p class="demo"><b>DEMO ONLY</b>: a simulated HiveAuth wallet of <code>hivegate demo</code>, holding the demo accounts' keys
(derived from a published password). A real wallet (such as Hive Keychain mobile) runs on your phone and scans the QR code or opens the link.</p>
{{if .Error}}<p id="wallet-error" class="error">{{.Error}}</p>{{end}}
{{if .Done}}<h1 id="wallet-done">{{.Done}}</h1><p>Go back to the login page: it continues by itself.</p>
{{else if .Payload.Account}}
<h1>Log in as @{{.Payload.Account}}?</h1>
<p>An app asks @{{.Payload.Account}} to log in through the relay <code>{{.Payload.Host}}</code>. Approving signs its challenge with @{{.Payload.Account}}'s posting key.</p>
<form method="post"><input type="hidden" name="uri" value="{{.URI}}">
<button id="wallet-approve" name="decision" value="approve">Approve</button>
<button id="wallet-reject" name="decision" value="reject">Reject</button></form>
{{else}}<h1>No HiveAuth link</h1><p>Open this page from the login page's HiveAuth link.</p>{{end}}
</body></html>
`))

type pageData struct {
	URI     string
	Payload has.Payload
	Error   string
	Done    string
}

// Page is the simulated wallet's web page, for `hivegate demo`: GET with
// ?uri=has://auth_req/… shows the request; its Approve or Reject runs
// Scan with the wallet's keys (Approve or Refuse).
func (w *Wallet) Page() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Header().Set("Cache-Control", "no-store")
		rw.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
		d := pageData{URI: r.FormValue("uri")}
		if d.URI != "" {
			p, err := has.ParseURI(d.URI)
			if err != nil {
				d.Error = err.Error()
			}
			d.Payload = p
		}
		if r.Method == http.MethodPost && d.Error == "" && d.Payload.Account != "" {
			wallet := *w
			wallet.Mode = Approve
			if r.FormValue("decision") != "approve" {
				wallet.Mode = Refuse
			}
			ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
			defer cancel()
			res, err := wallet.Scan(ctx, d.URI)
			switch {
			case err != nil:
				d.Error = "the wallet could not answer: " + err.Error()
			case wallet.Mode == Approve:
				d.Done = "Approved: @" + d.Payload.Account + " logs in to " + res.App.Name
			default:
				d.Done = "Rejected: @" + d.Payload.Account + " does not log in to " + res.App.Name
			}
		}
		_ = walletPage.Execute(rw, d)
	})
}
