package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// runDemo runs `hivegate demo` with args and returns its banner and logs
// once the banner is printed; the demo stops when the test ends.
func runDemo(t *testing.T, args ...string) (banner string, logs *syncbuf.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	logs = &syncbuf.Buffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"demo"}, args...), &out, logs) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("demo did not stop within 30s of cancellation")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Stop with Ctrl-C") {
		if time.Now().After(deadline) {
			t.Fatalf("demo printed no banner within 30s; output so far:\n%s", out.String())
		}
		select {
		case code := <-done:
			t.Fatalf("demo exited early with %d:\n%s\n%s", code, out.String(), logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return out.String(), logs
}

// bannerURL is the URL the banner line starting with label shows.
func bannerURL(t *testing.T, banner, label string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(label) + `\s+(http://127\.0\.0\.1:\d+)`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("the banner shows no %q:\n%s", label, banner)
	}
	return m[1]
}

// TestDemoAppLogin is the demo as a new app developer tries it: the
// banner's example app sends the browser to hivegate's page, a demo user
// without Keychain logs in with a typed key (signed as the page signs),
// takes the demo-only authority step and approves; hivegate redirects to
// the app's own callback, which listens (not port 80), and the app shows
// the code exchanged, /api/me and, after a vote, the vote on the chain.
func TestDemoAppLogin(t *testing.T) {
	banner, logs := runDemo(t, "--listen", "127.0.0.1:0", "--app-listen", "127.0.0.1:0")
	gw := bannerURL(t, banner, "gateway:")
	app := bannerURL(t, banner, "example app:")
	for _, step := range []string{"1. Open " + app + "/", "DEMO ONLY", "3. hivegate sends you back to " + app + "/callback",
		"POST " + gw + "/api/oauth2/token", "client_secret=" + demoAppSecret} {
		if !strings.Contains(banner, step) {
			t.Errorf("the banner does not say %q:\n%s", step, banner)
		}
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	get := func(u string) (string, string) {
		t.Helper()
		resp, err := browser.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: HTTP %d\n%s", u, resp.StatusCode, b)
		}
		return resp.Request.URL.String(), string(b)
	}
	pageAPI := func(path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, gw+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", gw)
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: HTTP %d %v", path, resp.StatusCode, out)
		}
		return out
	}

	if _, home := get(app + "/"); !strings.Contains(home, `href="/login"`) {
		t.Fatalf("the app's page has no login link:\n%s", home)
	}
	at, page := get(app + "/login")
	if !strings.HasPrefix(at, gw+"/oauth2/authorize?") || !strings.Contains(at, url.QueryEscape(app+"/callback")) {
		t.Fatalf("login went to %s, want hivegate's authorize page with the app's callback", at)
	}
	if !strings.Contains(page, `id="demo"`) {
		t.Errorf("the login page under the demo is not marked as the demo's:\n%s", page)
	}
	m := regexp.MustCompile(`(?s)<script id="hg-request" type="application/json">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("not the login page:\n%s", page)
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(m[1]), &req); err != nil {
		t.Fatal(err)
	}

	const user = "bob"
	ch := pageAPI("/oauth2/challenge", map[string]any{"request_id": req["request_id"], "username": user})
	sig := hivesim.DemoKey(user, "posting").SignDigest(hivetx.MessageDigest(ch["message"].(string)))
	login := pageAPI("/oauth2/login", map[string]any{"challenge_id": ch["challenge_id"], "signature": sig.String()})
	// Per-app consent: the page asks to add the app's account, demo.app
	// (which lists trent since the demo's genesis), not the service account.
	if login["needs_authority"] != true || login["demo_authority"] != true || login["authorize_account"] != "demo.app" {
		t.Fatalf("login: %v, want needs_authority and demo_authority for demo.app", login)
	}
	if added := pageAPI("/oauth2/demo-authority", map[string]any{"session_id": login["session_id"]}); added["added"] != true {
		t.Fatalf("demo-authority: %v", added)
	}
	if !strings.Contains(logs.String(), "DEMO ONLY") || !strings.Contains(logs.String(), "user="+user) || !strings.Contains(logs.String(), "account=demo.app") {
		t.Errorf("the demo-only step is not in the logs:\n%s", logs.String())
	}
	grant := pageAPI("/oauth2/grant", map[string]any{"session_id": login["session_id"], "approve": true})
	redirect := grant["redirect"].(string)
	if !strings.HasPrefix(redirect, app+"/callback?") {
		t.Fatalf("redirect %s, want the app's callback", redirect)
	}

	// The browser follows the redirect: the app exchanges the code and reads /api/me.
	_, callback := get(redirect)
	callback = html.UnescapeString(callback)
	for _, want := range []string{"exchanged the code for a token", `"username": "bob"`, "/api/me", `"user": "bob"`, "Logged in as <b>@bob</b>"} {
		if !strings.Contains(callback, want) {
			t.Errorf("the callback page does not show %q:\n%s", want, callback)
		}
	}
	form := regexp.MustCompile(`name="author" value="([^"]+)".*?name="permlink" value="([^"]+)"`).FindStringSubmatch(strings.ReplaceAll(callback, "\n", " "))
	if form == nil {
		t.Fatalf("no vote form with a post:\n%s", callback)
	}
	resp, err := browser.PostForm(app+"/vote", url.Values{"author": {form[1]}, "permlink": {form[2]}, "weight": {"10000"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if voted := html.UnescapeString(string(b)); !regexp.MustCompile(`"id":"[0-9a-f]{40}"`).MatchString(voted) {
		t.Fatalf("the vote was not broadcast:\n%s", voted)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_active_votes","params":["` + form[1] + `","` + form[2] + `"]}`
	r, err := http.Post(gw, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	votes, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if !strings.Contains(string(votes), `"voter":"bob"`) {
		t.Errorf("bob's vote is not on the chain: %s", votes)
	}
}

// TestDemoAppListen: --app-listen places the example app (the banner and
// the redirect URI follow it), and refuses an address its loopback
// redirect URI could not reach, naming the flag.
func TestDemoAppListen(t *testing.T) {
	var stderr syncbuf.Buffer
	if code := run(context.Background(), []string{"demo", "--listen", "127.0.0.1:0", "--app-listen", "0.0.0.0:0"}, io.Discard, &stderr); code == 0 ||
		!strings.Contains(stderr.String(), "--app-listen") {
		t.Errorf("--app-listen 0.0.0.0:0: exit %d, stderr %q; want an error naming the flag", code, stderr.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	banner, _ := runDemo(t, "--listen", "127.0.0.1:0", "--app-listen", addr)
	if got := bannerURL(t, banner, "example app:"); got != "http://"+addr {
		t.Errorf("the example app is at %s, want http://%s", got, addr)
	}
	if !strings.Contains(banner, url.QueryEscape("http://"+addr+"/callback")) {
		t.Errorf("the banner's authorize URL does not carry the app's callback on %s:\n%s", addr, banner)
	}
}
