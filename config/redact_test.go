package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
)

// TestRedactURL shows what is left of a node URL when it is shown: no
// user, password, query value or token-like path segment.
func TestRedactURL(t *testing.T) {
	t.Parallel()
	testCases := []struct{ in, want string }{
		{"http://127.0.0.1:8091", "http://127.0.0.1:8091"},
		{"https://api.hive.blog/hafah-api/", "https://api.hive.blog/hafah-api/"},
		{"http://user:pa55word@node:8091", "http://xxxxx@node:8091"},
		{"http://APIKEY123@node", "http://xxxxx@node"},
		{"https://node/rpc?api_key=s3cr3t&x=1&x=2", "https://node/rpc?api_key=REDACTED&x=REDACTED&x=REDACTED"},
		{"https://node/?s3cr3tkey&a=1", "https://node/?REDACTED&a=REDACTED"},
		{"https://node/#frag-secret", "https://node/"},
		{"wss://provider.example/v2/3f9a0c1d2e4b5a6978cafe01", "wss://provider.example/v2/REDACTED"},
		{"https://node/v1/hive-api-mainnet", "https://node/v1/hive-api-mainnet"},
		{"https://u:p@provider/v1/abcdef0123456789abcdef?key=k", "https://xxxxx@provider/v1/REDACTED?key=REDACTED"},
		{"http://us er:secret@node", "(unparseable URL, not shown: it may hold a secret)"},
		{"not a url", "not%20a%20url"},
	}
	for _, tc := range testCases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			if got := config.RedactURL(tc.in); got != tc.want {
				t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got := config.RedactURLs([]string{"http://a:b@x", "http://y/?k=v"}); strings.Join(got, " ") != "http://xxxxx@x http://y/?k=REDACTED" {
		t.Errorf("RedactURLs = %q", got)
	}
}

// TestNodeURLErrorsRedacted shows that a config error about a node URL
// never repeats its credentials.
func TestNodeURLErrorsRedacted(t *testing.T) {
	t.Parallel()
	testCases := []struct{ name, url, want string }{
		{"bad scheme", "ftp://user:pa55word@node/?api_key=k3y", "want http://"},
		{"no host", "http:///path?api_key=k3y", "no host"},
		{"unparseable", "'http://us er:pa55word@node'", "bad URL"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Parse("c.yaml", []byte("backends:\n  hived: "+tc.url+"\nurls:\n  hived: hived\n"))
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Key != "backends.hived" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want backends.hived: … %s", err, tc.want)
			}
			for _, secret := range []string{"pa55word", "k3y", "user"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error repeats %q: %v", secret, err)
				}
			}
		})
	}
}

// TestAuthKeyInPlaceOfName shows that a private key written where
// service_key_file, service_key_env, token_key_file or token_key_env
// expect a path or a variable name is refused, and the error says what is
// wrong without repeating the key.
func TestAuthKeyInPlaceOfName(t *testing.T) {
	t.Parallel()
	const (
		wif = "5JNHfZYKGaomSFvd4NUdQ9qMcEAC43kujbfjueTHpVapX1Kzq2n" // a well-known test key, nobody's
		hex = "0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d"
		pem = "'-----BEGIN PRIVATE KEY----- MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF -----END PRIVATE KEY-----'"
	)
	section := func(lines string) string {
		return minimal + "auth:\n  enabled: true\n  service_account: hivegate\n" + lines + "  apps:\n" + authApp
	}
	testCases := []struct {
		name, lines, key, want, secret string
	}{
		{"WIF as service_key_file", "  service_key_file: " + wif + "\n", "auth.service_key_file", "looks like a private key, not a path", wif},
		{"WIF as service_key_env", "  service_key_env: " + wif + "\n", "auth.service_key_env", "looks like a private key, not the name of an environment variable", wif},
		{"compressed WIF as service_key_env", "  service_key_env: KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617\n", "auth.service_key_env", "looks like a private key", "KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617"},
		{"hex key as service_key_file", "  service_key_file: " + hex + "\n", "auth.service_key_file", "looks like a private key", hex},
		{"PEM as token_key_file", "  service_key_env: K\n  token_key_file: " + pem + "\n", "auth.token_key_file", "looks like a private key, not a path", "MC4CAQAwBQYDK2VwBCIEIJ"},
		{"PEM as token_key_env", "  service_key_env: K\n  token_key_env: " + pem + "\n", "auth.token_key_env", "looks like a private key", "MC4CAQAwBQYDK2VwBCIEIJ"},
		{"not a variable name", "  service_key_env: 'my key!'\n", "auth.service_key_env", "want the name of an environment variable", "my key!"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.Parse("a.yaml", []byte(section(tc.lines)))
			var ce *config.Error
			if !errors.As(err, &ce) || ce.Key != tc.key || ce.Pos.Line == 0 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %s at a.yaml:N: %s", err, tc.key, tc.want)
			}
			if strings.Contains(err.Error(), tc.secret) {
				t.Errorf("the error repeats the key: %v", err)
			}
		})
	}
	// Paths and names stay accepted.
	cfg := mustParse(t, "a.yaml", section("  service_key_file: /run/secrets/hive-posting.wif\n  token_key_env: HIVEGATE_JWT_KEY\n"))
	if cfg.Auth.ServiceKeyFile != "/run/secrets/hive-posting.wif" || cfg.Auth.TokenKeyEnv != "HIVEGATE_JWT_KEY" {
		t.Errorf("auth = %+v", cfg.Auth)
	}
}
