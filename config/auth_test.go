package config_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

const authApp = `    - client_id: demo.app
      redirect_uris: [https://app.example/callback]
`

// authYAML is an enabled auth section with one app, plus extra lines.
func authYAML(extra string) string {
	return minimal + "auth:\n  enabled: true\n  service_account: hivegate\n  service_key_env: HIVEGATE_SERVICE_KEY\n" +
		extra + "  apps:\n" + authApp
}

// TestAuthKeys shows that every auth key changes the loaded value.
func TestAuthKeys(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		line  string
		check func(config.AuthSettings) bool
	}{
		{"issuer: https://api.example.com/", func(s config.AuthSettings) bool { return s.Issuer == "https://api.example.com" }},
		{"chain_id: 18dcf0a285365fc58b71f18b3d3fec954aa0c141c44e4e5cb4cf777b9eab274e", func(s config.AuthSettings) bool {
			return s.ChainID == "18dcf0a285365fc58b71f18b3d3fec954aa0c141c44e4e5cb4cf777b9eab274e"
		}},
		{"token_key_file: /run/secrets/jwt.pem", func(s config.AuthSettings) bool { return s.TokenKeyFile == "/run/secrets/jwt.pem" }},
		{"token_key_env: JWT_KEY", func(s config.AuthSettings) bool { return s.TokenKeyEnv == "JWT_KEY" }},
		{"access_token_ttl: 3600", func(s config.AuthSettings) bool { return s.AccessTokenTTL == time.Hour }},
		{"access_token_ttl: 2h", func(s config.AuthSettings) bool { return s.AccessTokenTTL == 2*time.Hour }},
		{"refresh_token_ttl: 720h", func(s config.AuthSettings) bool { return s.RefreshTokenTTL == 30*24*time.Hour }},
		{"code_ttl: 30", func(s config.AuthSettings) bool { return s.CodeTTL == 30*time.Second }},
		{"challenge_ttl: 60", func(s config.AuthSettings) bool { return s.ChallengeTTL == time.Minute }},
		{"session_ttl: 120", func(s config.AuthSettings) bool { return s.SessionTTL == 2*time.Minute }},
		{"login_rate_per_minute: 5", func(s config.AuthSettings) bool { return s.LoginRatePerMinute == 5 }},
		{"token_rate_per_minute: 7", func(s config.AuthSettings) bool { return s.TokenRatePerMinute == 7 }},
		{"single_replica: true", func(s config.AuthSettings) bool { return s.SingleReplica }},
		{"require_token:\n    appbase.condenser_api.get_account_history: login\n    \"appbase.condenser_api.get_account_history.params=['alice',-1,10]\": none",
			func(s config.AuthSettings) bool {
				return len(s.RequireToken) == 2 && s.RequireToken[0].Value == "login" && s.RequireToken[1].Value == "none"
			}},
	}
	for _, tc := range testCases {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, "a.yaml", authYAML("  "+tc.line+"\n"))
			if !tc.check(cfg.Auth) {
				t.Errorf("%s did not take effect: %+v", tc.line, cfg.Auth)
			}
		})
	}
}

func TestAuthDefaultsAndApps(t *testing.T) {
	t.Parallel()
	off := mustParse(t, "d.yaml", minimal)
	if off.Auth.Enabled || off.Auth.AccessTokenTTL != config.DefaultAccessTokenTTL || off.Auth.ChainID != config.MainnetChainID {
		t.Errorf("defaults: %+v", off.Auth)
	}
	cfg := mustParse(t, "a.yaml", minimal+`auth:
  enabled: true
  service_account: hivegate
  service_key_file: /run/secrets/posting.wif
  apps:
    - client_id: demo.app
      name: Demo App
      secret_sha256: 2BB80D537B1DA3E38BD30361AA855686BDE0EACD7162FEF6A25FE97BF527A25B
      redirect_uris: [https://app.example/callback, http://127.0.0.1:3000/cb]
      scopes: [login]
      token_ttl: 600
    - client_id: other.app
      redirect_uris: [https://other.example/cb]
`)
	a := cfg.Auth
	if !a.Enabled || a.ServiceAccount != "hivegate" || a.ServiceKeyFile != "/run/secrets/posting.wif" || len(a.Apps) != 2 {
		t.Fatalf("%+v", a)
	}
	app, ok := a.App("demo.app")
	if !ok || app.Name != "Demo App" || app.SecretSHA256 != "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b" ||
		!slices.Equal(app.Scopes, []string{"login"}) || app.TokenTTL != 10*time.Minute || len(app.RedirectURIs) != 2 {
		t.Errorf("demo.app: %+v", app)
	}
	other, _ := a.App("other.app")
	if other.Name != "other.app" || !slices.Equal(other.Scopes, []string{"login", "posting", "offline"}) || other.SecretSHA256 != "" {
		t.Errorf("other.app defaults: %+v", other)
	}
	if !slices.ContainsFunc(cfg.Warnings, func(w string) bool { return strings.Contains(w, "no token_key_file") }) {
		t.Errorf("no warning about the per-process token key: %q", cfg.Warnings)
	}

	// The legacy JSON format takes the same section.
	legacy := mustParse(t, "a.json", `{"upstreams": [{"name": "hived", "urls": [["hived", "http://h"]]}],
 "auth": {"enabled": true, "service_account": "hivegate", "service_key_env": "K", "access_token_ttl": 60,
  "apps": [{"client_id": "demo.app", "redirect_uris": ["https://app.example/cb"], "scopes": ["login", "posting"]}]}}`)
	if !legacy.Auth.Enabled || legacy.Auth.AccessTokenTTL != time.Minute || len(legacy.Auth.Apps) != 1 {
		t.Errorf("legacy: %+v", legacy.Auth)
	}
}

func TestAuthErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct{ name, text, key, want string }{
		{"unknown key", authYAML("  colour: blue\n"), "auth.colour", "unknown key"},
		{"no account", minimal + "auth:\n  enabled: true\n  service_key_env: K\n  apps:\n" + authApp, "auth.service_account", "required"},
		{"no key source", minimal + "auth:\n  enabled: true\n  service_account: hivegate\n  apps:\n" + authApp, "auth.service_key_file", "required"},
		{"two key sources", authYAML("  service_key_file: /k\n"), "auth.service_key_file", "not both"},
		{"no apps", minimal + "auth:\n  enabled: true\n  service_account: hivegate\n  service_key_env: K\n", "auth.apps", "register at least one app"},
		{"bad account", strings.Replace(authYAML(""), "service_account: hivegate", "service_account: Not_An_Account", 1), "auth.service_account", "not a Hive account name"},
		{"bad chain id", authYAML("  chain_id: beef\n"), "auth.chain_id", "64 hex digits"},
		{"code ttl too long", authYAML("  code_ttl: 3600\n"), "auth.code_ttl", "out of range"},
		{"bad require scope", authYAML("  require_token: {appbase: admin}\n"), "auth.require_token.appbase", "want login, posting or none"},
		{"bad issuer", authYAML("  issuer: api.example.com\n"), "auth.issuer", "base URL"},
		{"http redirect", strings.Replace(authYAML(""), "https://app.example/callback", "http://app.example/callback", 1), "auth.apps[0].redirect_uris", "want https"},
		{"fragment", strings.Replace(authYAML(""), "https://app.example/callback", "https://app.example/cb#x", 1), "auth.apps[0].redirect_uris", "no fragment"},
		{"plain secret", strings.Replace(authYAML(""), "redirect_uris:", "secret_sha256: hunter2\n      redirect_uris:", 1), "auth.apps[0].secret_sha256", "never the secret itself"},
		{"unknown scope", strings.Replace(authYAML(""), "redirect_uris:", "scopes: [active]\n      redirect_uris:", 1), "auth.apps[0].scopes", "unknown scope"},
		{"twice", authYAML("") + authApp, "auth.apps[1].client_id", "registered twice"},
		{"no redirect", minimal + "auth:\n  apps:\n    - client_id: demo.app\n", "auth.apps[0].redirect_uris", "required"},
		{"implicit with a secret", strings.Replace(authYAML(""), "redirect_uris:", "secret_sha256: "+strings.Repeat("ab", 32)+"\n      implicit: true\n      redirect_uris:", 1), "auth.apps[0].implicit", "may not use the implicit flow"},
		{"implicit not a bool", strings.Replace(authYAML(""), "redirect_uris:", "implicit: sometimes\n      redirect_uris:", 1), "auth.apps[0].implicit", ""},
		{"bad app account", strings.Replace(authYAML(""), "redirect_uris:", "account: Demo_App\n      redirect_uris:", 1), "auth.apps[0].account", "not a Hive account name"},
		{"single_replica not a bool", authYAML("  single_replica: 2\n"), "auth.single_replica", ""},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Parse("a.yaml", []byte(tc.text))
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(err.Error(), tc.want) || ce.Pos.Line == 0 {
				t.Errorf("error %v, want key %s saying %q with a line", err, tc.key, tc.want)
			}
		})
	}
}

// TestAuthAppAccount: auth.apps[].account is the app's chain account
// users authorize, the client id by default; naming the service account
// (direct consent) warns.
func TestAuthAppAccount(t *testing.T) {
	t.Parallel()
	def := mustParse(t, "a.yaml", authYAML(""))
	set := mustParse(t, "a.yaml", strings.Replace(authYAML(""), "redirect_uris:", "account: demo.posting\n      redirect_uris:", 1))
	direct := mustParse(t, "a.yaml", strings.Replace(authYAML(""), "redirect_uris:", "account: hivegate\n      redirect_uris:", 1))
	if def.Auth.Apps[0].Account != "demo.app" || set.Auth.Apps[0].Account != "demo.posting" || direct.Auth.Apps[0].Account != "hivegate" {
		t.Errorf("account: default %q, set %q, direct %q", def.Auth.Apps[0].Account, set.Auth.Apps[0].Account, direct.Auth.Apps[0].Account)
	}
	warns := func(c *config.Config) bool {
		return slices.ContainsFunc(c.Warnings, func(w string) bool {
			return strings.Contains(w, "direct consent") && strings.Contains(w, "auth.apps[0].account")
		})
	}
	if warns(def) || warns(set) || !warns(direct) {
		t.Errorf("direct consent warnings: default %q, set %q, direct %q", def.Warnings, set.Warnings, direct.Warnings)
	}
}

// TestAuthImplicitKey: auth.apps[].implicit is off by default and turns on
// for a public app.
func TestAuthImplicitKey(t *testing.T) {
	t.Parallel()
	off := mustParse(t, "a.yaml", authYAML(""))
	on := mustParse(t, "a.yaml", strings.Replace(authYAML(""), "redirect_uris:", "implicit: true\n      redirect_uris:", 1))
	if off.Auth.Apps[0].Implicit || !on.Auth.Apps[0].Implicit {
		t.Errorf("implicit: default %v, set %v", off.Auth.Apps[0].Implicit, on.Auth.Apps[0].Implicit)
	}
}

// TestAuthReplicaWarning: tokens signed with a key from the config and no
// shared Redis tier warn that revocations stay in one process, unless
// auth.single_replica says there is only one.
func TestAuthReplicaWarning(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, text string
		warn       bool
	}{
		{"key file, no Redis", authYAML("  token_key_file: /run/secrets/jwt.pem\n"), true},
		{"key env, no Redis", authYAML("  token_key_env: JWT_KEY\n"), true},
		{"single_replica", authYAML("  token_key_file: /run/secrets/jwt.pem\n  single_replica: true\n"), false},
		{"Redis", "cache:\n  redis_url: redis://127.0.0.1:6379/0\n" + authYAML("  token_key_file: /run/secrets/jwt.pem\n"), false},
		{"key made at start", authYAML(""), false}, // warned about on its own: no other replica accepts its tokens
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustParse(t, "a.yaml", tc.text)
			got := slices.ContainsFunc(cfg.Warnings, func(w string) bool { return strings.Contains(w, "auth.single_replica") })
			if got != tc.warn || got != (cfg.ReplicaWarning() != "") {
				t.Errorf("replica warning %v, want %v: %q", got, tc.warn, cfg.Warnings)
			}
		})
	}
}
