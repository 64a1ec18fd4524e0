package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The example app `hivegate demo` serves on its own origin (--app-listen):
// a confidential OAuth client, demo.app, written as an app's server is.
// GET /login sends the user to hivegate's authorize page with a state;
// GET /callback checks the state and exchanges the code for tokens at
// POST /api/oauth2/token with the app's secret; then it reads /api/me and
// offers a vote through /api/broadcast. Each page shows the requests and
// answers, tokens shortened. Its redirect URI is its own /callback on a
// loopback address: demo.app registers http://127.0.0.1/callback, and a
// loopback redirect URI may differ in its port (RFC 8252).
type demoAppServer struct {
	gateway string // http://HOST:PORT of hivegate
	self    string // http://127.0.0.1:PORT of this app
	hc      *http.Client
	log     *slog.Logger

	mu       sync.Mutex
	states   map[string]time.Time       // pending logins, by state
	sessions map[string]*demoAppSession // by the session cookie
}

// demoAppSession is a logged-in user of the example app.
type demoAppSession struct {
	User  string
	Token string
}

const (
	demoAppCookie   = "demo_app_session"
	demoAppStateTTL = 10 * time.Minute
)

func newDemoAppServer(gatewayURL, selfURL string, logger *slog.Logger) *demoAppServer {
	return &demoAppServer{gateway: gatewayURL, self: selfURL, hc: &http.Client{Timeout: 30 * time.Second}, log: logger,
		states: map[string]time.Time{}, sessions: map[string]*demoAppSession{}}
}

// redirectURI is the app's callback, as it sends it to authorize and to
// the token endpoint.
func (a *demoAppServer) redirectURI() string { return a.self + "/callback" }

// handler serves the app's pages.
func (a *demoAppServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.index)
	mux.HandleFunc("GET /login", a.login)
	mux.HandleFunc("GET /callback", a.callback)
	mux.HandleFunc("POST /vote", a.vote)
	return mux
}

// demoAppPage is what a page of the example app shows.
type demoAppPage struct {
	Gateway          string
	User             string
	Steps            []demoAppStep
	Error            string
	Author, Permlink string
}

// demoAppStep is one request of the app and its answer.
type demoAppStep struct {
	Title, Request, Answer string
}

func (a *demoAppServer) render(w http.ResponseWriter, status int, p demoAppPage) {
	p.Gateway = a.gateway
	if p.Author == "" {
		p.Author, p.Permlink = a.newestPost()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := demoAppTemplate.Execute(w, p); err != nil {
		a.log.Warn("demo app: writing a page", "err", err)
	}
}

func (a *demoAppServer) session(r *http.Request) *demoAppSession {
	c, err := r.Cookie(demoAppCookie)
	if err != nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[c.Value]
}

func (a *demoAppServer) index(w http.ResponseWriter, r *http.Request) {
	p := demoAppPage{}
	if s := a.session(r); s != nil {
		p.User = s.User
	}
	a.render(w, http.StatusOK, p)
}

// login is the app's "Log in with hivegate": the authorize URL with a
// fresh state, remembered for the callback.
func (a *demoAppServer) login(w http.ResponseWriter, r *http.Request) {
	state := demoRandom()
	now := time.Now()
	a.mu.Lock()
	for s, t := range a.states {
		if now.Sub(t) > demoAppStateTTL {
			delete(a.states, s)
		}
	}
	a.states[state] = now
	a.mu.Unlock()
	q := url.Values{"client_id": {demoApp}, "redirect_uri": {a.redirectURI()}, "response_type": {"code"},
		"scope": {"login,posting"}, "state": {state}}
	http.Redirect(w, r, a.gateway+"/oauth2/authorize?"+q.Encode(), http.StatusFound)
}

// callback is where hivegate sends the user back: the app checks the
// state, exchanges the code with its secret and reads /api/me.
func (a *demoAppServer) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	a.mu.Lock()
	_, known := a.states[state]
	delete(a.states, state)
	a.mu.Unlock()
	switch {
	case !known:
		a.render(w, http.StatusBadRequest, demoAppPage{Error: "unknown or used state: start again with Log in"})
		return
	case q.Get("error") != "":
		a.render(w, http.StatusOK, demoAppPage{Error: q.Get("error") + ": " + q.Get("error_description")})
		return
	}
	code := q.Get("code")
	steps := []demoAppStep{{Title: "1. hivegate sent you back with a code",
		Request: "GET " + a.redirectURI() + "?code=" + shorten(code) + "&username=" + q.Get("username") + "&state=…", Answer: "the code is good once, for " + q.Get("expires_in") + " s"}}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {demoApp},
		"client_secret": {demoAppSecret}, "redirect_uri": {a.redirectURI()}}
	var tok struct {
		AccessToken string `json:"access_token"`
		Username    string `json:"username"`
	}
	raw, err := a.call(r.Context(), "/api/oauth2/token", "application/x-www-form-urlencoded", "", strings.NewReader(form.Encode()), &tok)
	steps = append(steps, demoAppStep{Title: "2. the app's server exchanged the code for a token",
		Request: "POST " + a.gateway + "/api/oauth2/token\ngrant_type=authorization_code&code=" + shorten(code) + "&client_id=" + demoApp +
			"&client_secret=" + demoAppSecret + "&redirect_uri=" + url.QueryEscape(a.redirectURI()),
		Answer: shortenTokens(raw)})
	if err != nil {
		a.render(w, http.StatusOK, demoAppPage{Steps: steps, Error: err.Error()})
		return
	}
	raw, err = a.call(r.Context(), "/api/me", "application/json", tok.AccessToken, strings.NewReader("{}"), nil)
	steps = append(steps, demoAppStep{Title: "3. the app read /api/me with the token",
		Request: "POST " + a.gateway + "/api/me\nAuthorization: " + shorten(tok.AccessToken), Answer: shortenTokens(raw)})
	if err != nil {
		a.render(w, http.StatusOK, demoAppPage{Steps: steps, Error: err.Error()})
		return
	}
	id := demoRandom()
	a.mu.Lock()
	a.sessions[id] = &demoAppSession{User: tok.Username, Token: tok.AccessToken}
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: demoAppCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	a.log.Info("demo app: logged in through hivegate", "user", tok.Username)
	a.render(w, http.StatusOK, demoAppPage{User: tok.Username, Steps: steps})
}

// vote broadcasts a vote for the logged-in user through /api/broadcast.
func (a *demoAppServer) vote(w http.ResponseWriter, r *http.Request) {
	s := a.session(r)
	if s == nil {
		a.render(w, http.StatusUnauthorized, demoAppPage{Error: "log in first"})
		return
	}
	author, permlink := r.FormValue("author"), r.FormValue("permlink")
	weight, err := strconv.Atoi(r.FormValue("weight"))
	if err != nil {
		weight = 10000
	}
	body, _ := json.Marshal(map[string]any{"operations": []any{[]any{"vote", map[string]any{
		"voter": s.User, "author": author, "permlink": permlink, "weight": weight}}}})
	raw, err := a.call(r.Context(), "/api/broadcast", "application/json", s.Token, bytes.NewReader(body), nil)
	step := demoAppStep{Title: "4. the app voted for @" + s.User + " through hivegate",
		Request: "POST " + a.gateway + "/api/broadcast\nAuthorization: " + shorten(s.Token) + "\n" + string(body), Answer: string(raw)}
	p := demoAppPage{User: s.User, Steps: []demoAppStep{step}, Author: author, Permlink: permlink}
	if err != nil {
		p.Error = err.Error()
	}
	a.render(w, http.StatusOK, p)
}

// call POSTs to hivegate and decodes the answer into out; an answer that
// is not 200 is an error with hivegate's error_description.
func (a *demoAppServer) call(ctx context.Context, path, contentType, token string, body io.Reader, out any) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.gateway+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, errors.New("hivegate did not answer " + path)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(raw, &e)
		return raw, errors.New(path + ": HTTP " + strconv.Itoa(resp.StatusCode) + " " + e.Error + ": " + e.Description)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return raw, err
		}
	}
	return raw, nil
}

// newestPost is the newest post on the chain, for the vote form.
func (a *demoAppServer) newestPost() (author, permlink string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_discussions_by_created","params":[{"tag":"","limit":1}]}`
	var r struct {
		Result []struct {
			Author   string `json:"author"`
			Permlink string `json:"permlink"`
		} `json:"result"`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.gateway+"/", strings.NewReader(body))
	if err != nil {
		return "", ""
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return "", ""
	}
	defer func() { _ = resp.Body.Close() }()
	if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Result) == 0 {
		return "", ""
	}
	return r.Result[0].Author, r.Result[0].Permlink
}

// shorten shows the start of a code or token.
func shorten(s string) string {
	if len(s) <= 16 {
		return s
	}
	return s[:12] + "…"
}

// shortenTokens indents a JSON answer and shortens the tokens in it.
func shortenTokens(raw []byte) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	for _, k := range []string{"access_token", "refresh_token"} {
		if s, ok := m[k].(string); ok {
			m[k] = shorten(s)
		}
	}
	if acct, ok := m["account"].(map[string]any); ok { // /api/me: the account is long
		m["account"] = map[string]any{"name": acct["name"], "…": "the account as condenser_api.get_accounts returns it"}
	}
	out, _ := json.MarshalIndent(m, "", "  ")
	return string(out)
}

func demoRandom() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

var demoAppTemplate = template.Must(template.New("app").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>hivegate demo app</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
pre { background: rgba(127,127,127,0.12); padding: 0.6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.error { color: #c0392b; } .note { opacity: 0.8; font-size: 0.9rem; }
</style></head>
<body>
<h1>hivegate demo app</h1>
<p class="note">An example app of <code>hivegate demo</code> (client <code>demo.app</code>, a confidential client), on its own origin.
It logs you in through hivegate at <a href="{{.Gateway}}">{{.Gateway}}</a>, exchanges the code on its server, reads <code>/api/me</code> and votes through <code>/api/broadcast</code>.</p>
{{if .Error}}<p id="error" class="error">{{.Error}}</p>{{end}}
{{range .Steps}}<section class="step"><h2>{{.Title}}</h2><pre>{{.Request}}</pre><pre class="answer">{{.Answer}}</pre></section>{{end}}
{{if .User}}
<p id="user">Logged in as <b>@{{.User}}</b>.</p>
<form id="vote" method="post" action="/vote">
<label>Author <input name="author" value="{{.Author}}"></label>
<label>Permlink <input name="permlink" value="{{.Permlink}}" size="30"></label>
<label>Weight <input name="weight" value="10000" size="6"></label>
<button type="submit">Vote as @{{.User}}</button>
</form>
{{end}}
<p><a id="login" href="/login">Log in with hivegate</a> (as any demo account, for example alice, with her posting key from the demo's banner; without Hive Keychain the login page offers a DEMO ONLY way to add the service account).</p>
</body></html>
`))
