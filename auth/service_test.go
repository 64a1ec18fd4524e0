package auth_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/auth"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
)

// settings parses an auth section (with extra lines) into settings.
func settings(t *testing.T, section string) config.AuthSettings {
	t.Helper()
	cfg, err := config.Parse("s.yaml", []byte(nodeYAML("http://127.0.0.1:1", "")+section))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Auth
}

// TestKeySources: the service key and the token key come from a file or
// an environment variable, and an error about them never shows a key.
func TestKeySources(t *testing.T) {
	t.Parallel()
	wif := hivesim.DemoKey(serviceAccount, "posting").WIF()
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(edKey)
	edPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	env := map[string]string{"SVC": wif, "JWT": edPEM, "BAD": "5" + wif[1:len(wif)-2] + "zz", "BADPEM": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	section := func(key, token string) string { return authSectionWith("  service_key_env: "+key+"\n", token) }
	testCases := []struct {
		name, key, token, wantErr string
	}{
		{"service key and Ed25519 token key from the environment", "SVC", "  token_key_env: JWT\n", ""},
		{"unset variable", "NOPE", "", "NOPE is not set"},
		{"a mistyped key", "BAD", "", "invalid key"},
		{"a token key that is not PKCS #8", "SVC", "  token_key_env: BADPEM\n", "not a PKCS #8 private key"},
		{"a token key file that is missing", "SVC", "  token_key_file: /nonexistent/jwt.pem\n", "token_key_file"},
	}
	for _, tc := range testCases {
		s, err := auth.New(auth.Options{Settings: settings(t, section(tc.key, tc.token)), LookupEnv: lookup})
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
		case err != nil && (strings.Contains(err.Error(), wif[5:20]) || strings.Contains(err.Error(), env["BAD"][5:20])):
			t.Errorf("%s: the error shows the key: %v", tc.name, err)
		}
		if s != nil {
			if s.ServiceAccount() != serviceAccount {
				t.Errorf("service account %q", s.ServiceAccount())
			}
			_ = s.Close()
		}
	}
}

// lockedBuffer collects log output from concurrent handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNoSecretsInLogs runs logins, token exchanges, broadcasts and
// refusals with debug logging and finds no key, secret, code or token in
// the logs.
func TestNoSecretsInLogs(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	node, nodeURL := startNode(t)
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(nodeURL, "")+authSection(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(cfg, gateway.Options{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(func() { srv.Close(); gw.Close() })
	e := &env{t: t, node: node, gw: gw, url: srv.URL, svc: gw.Auth()}

	user := authorizedUser(t, e, false)
	e.grantAuthority(user)
	q := e.flow(codeQuery("login,posting,offline", "s"), user)
	tr := e.form("/api/oauth2/token", url.Values{"redirect_uri": {appRedirect}, "code": {q.Get("code")}, "client_secret": {appSecret}}, nil).json(t)
	e.post("bob", "p")
	e.broadcast(tr["access_token"].(string), `[["vote",{"voter":"`+user+`","author":"bob","permlink":"p","weight":100}]]`)
	e.broadcast(tr["access_token"].(string), `[["vote",{"voter":"`+user+`","author":"bob","permlink":"nope","weight":100}]]`)
	e.form("/api/oauth2/token", url.Values{"code": {q.Get("code")}, "client_secret": {appSecret}}, nil) // reused code
	e.form("/api/oauth2/token", url.Values{"code": {"x"}, "client_secret": {"wrong-secret"}}, nil)
	if r := e.do("GET", "/api/me", map[string]string{"Authorization": tr["access_token"].(string)}, nil); r.status != http.StatusUnauthorized {
		t.Fatalf("the reused code should have revoked the token: %d", r.status)
	}

	out := logs.String()
	if !strings.Contains(out, "auth: broadcast") {
		t.Fatalf("the logs do not show the broadcast: %.500s", out)
	}
	secrets := map[string]string{
		"service key":   hivesim.DemoKey(serviceAccount, "posting").WIF(),
		"user key":      hivesim.DemoKey(user, "posting").WIF(),
		"active key":    hivesim.DemoKey(user, "active").WIF(),
		"client secret": appSecret,
		"wrong secret":  "wrong-secret",
		"code":          q.Get("code"),
		"access token":  tr["access_token"].(string),
		"refresh token": tr["refresh_token"].(string),
	}
	for name, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("the logs contain the %s", name)
		}
	}
}
