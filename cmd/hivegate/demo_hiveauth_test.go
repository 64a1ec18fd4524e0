package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestDemoHiveAuth: the demo's banner names its simulated HiveAuth relay
// and wallet page, the demo's config points auth.hiveauth_relay at it,
// and a HiveAuth login approved on the wallet page (as the login page's
// DEMO ONLY link opens it) reaches the consent step.
func TestDemoHiveAuth(t *testing.T) {
	banner, _ := runDemo(t, "--listen", "127.0.0.1:0", "--app-listen", "127.0.0.1:0")
	gw := bannerURL(t, banner, "gateway:")
	m := regexp.MustCompile(`HiveAuth relay:\s+(ws://127\.0\.0\.1:\d+) \(simulated, with a simulated wallet at (http://127\.0\.0\.1:\d+/wallet): DEMO ONLY\)`).FindStringSubmatch(banner)
	if m == nil || !strings.Contains(banner, `"Log in with HiveAuth"`) {
		t.Fatalf("the banner shows no HiveAuth relay and step:\n%s", banner)
	}
	walletPage := m[2]

	q := url.Values{"client_id": {demoApp}, "redirect_uri": {"http://127.0.0.1:1/callback"}, "response_type": {"code"}, "scope": {"login"}, "state": {"s"}}
	resp, err := http.Get(gw + "/oauth2/authorize?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	rm := regexp.MustCompile(`"request_id":"([^"]+)"`).FindSubmatch(page)
	if rm == nil || !bytes.Contains(page, []byte(`"hiveauth":true`)) {
		t.Fatalf("the login page offers no HiveAuth: %s", page)
	}
	post := func(path string, body map[string]any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, gw+path, bytes.NewReader(b))
		req.Header.Set("Origin", gw)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d %v %v", path, resp.StatusCode, out, err)
		}
		return out
	}
	start := post("/oauth2/hiveauth", map[string]any{"request_id": string(rm[1]), "username": "alice"})
	if start["demo_wallet"] != walletPage {
		t.Errorf("demo_wallet %v, want the banner's %s", start["demo_wallet"], walletPage)
	}
	resp, err = http.PostForm(walletPage, url.Values{"uri": {start["uri"].(string)}, "decision": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	done, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(done, []byte("Approved: @alice logs in to hivegate demo app")) {
		t.Fatalf("the wallet page answered: %s", done)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		out := post("/oauth2/hiveauth/wait", map[string]any{"wait_id": start["wait_id"]})
		if out["status"] == "approved" {
			if out["username"] != "alice" || out["session_id"] == nil {
				t.Fatalf("outcome: %v", out)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %v", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
