package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
)

// credsYAML is a Drone config whose node URLs carry credentials: a user
// and password, an API key in the query, a token as a path segment.
const credsYAML = `drone:
  hostname: 127.0.0.1
  port: 0
backends:
  hived: http://apiuser:pa55word@hived.invalid:8091/?api_key=k3ysecret
  hivemind:
    - https://hivemind.invalid/v1/3f9a0c1d2e4b5a6978cafe01
    - https://hivemind-b.invalid/?token=t0kensecret
urls:
  appbase: hived
  bridge: hivemind
`

// credsSecrets are the secrets of credsYAML.
var credsSecrets = []string{"apiuser", "pa55word", "k3ysecret", "3f9a0c1d2e4b5a6978cafe01", "t0kensecret"}

// TestRouteCommandRedactsNodeURLs shows that `hivegate route` and
// `hivegate config check` never print a node URL's credentials.
func TestRouteCommandRedactsNodeURLs(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "creds.yaml")
	if err := os.WriteFile(file, []byte(credsYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	testCases := []struct {
		name string
		args []string
		want []string // the redacted URLs shown
	}{
		{"route to a node with user, password and key", []string{"route", "--config", file, `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`},
			[]string{"http://xxxxx@hived.invalid:8091/?api_key=REDACTED"}},
		{"route to a backend of two nodes", []string{"route", "--config", file, `{"jsonrpc":"2.0","id":1,"method":"bridge.get_post","params":{}}`},
			[]string{"https://hivemind.invalid/v1/REDACTED", "https://hivemind-b.invalid/?token=REDACTED"}},
		{"route with --node-url", []string{"route", "--node-url", "http://apiuser:pa55word@node.invalid/?api_key=k3ysecret", `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`},
			[]string{"http://xxxxx@node.invalid/?api_key=REDACTED"}},
		{"config check", []string{"config", "check", file}, nil},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runCmd(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, s := range credsSecrets {
				if strings.Contains(stdout+stderr, s) {
					t.Errorf("prints %q:\n%s%s", s, stdout, stderr)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("does not show %s:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestServiceKeyNotEchoed runs `hivegate serve` with the service
// account's private key written where auth.service_key_file or
// auth.service_key_env expect a path or a variable name: serve refuses to
// start, says what is wrong, and does not print the key.
func TestServiceKeyNotEchoed(t *testing.T) {
	t.Parallel()
	wif := hivesim.DemoKey("trent", "posting").WIF()
	testCases := []struct{ key, want string }{
		{"service_key_file", "auth.service_key_file: looks like a private key, not a path"},
		{"service_key_env", "auth.service_key_env: looks like a private key, not the name of an environment variable"},
	}
	for _, tc := range testCases {
		t.Run(tc.key, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "auth.yaml")
			cfg := fmt.Sprintf(`hivegate:
  hostname: 127.0.0.1
  port: 0
  admin_listen: ""
backends:
  hived: http://hived.invalid
urls:
  appbase: hived
auth:
  enabled: true
  service_account: trent
  %s: %s
  apps:
    - client_id: demo.app
      redirect_uris: [https://app.example/callback]
`, tc.key, wif)
			if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runCmd(t, "serve", "--config", file, "--listen", "127.0.0.1:0")
			if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "auth.yaml:12") {
				t.Errorf("exit %d, stderr %q; want 1 and auth.yaml:12: %s", code, stderr, tc.want)
			}
			if strings.Contains(stderr, wif) || strings.Contains(stderr, wif[:20]) {
				t.Errorf("the error prints the key: %s", stderr)
			}
		})
	}
}
