package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
)

// TestConfigCheckReportsWhatServeReports: `config check` builds what serve
// builds from the config, so that a mistake only a built component finds
// (a malformed quotas.weights or auth.require_token key) fails the check,
// naming file, line and key, with the error serve (gateway.New) gives,
// instead of passing the check and failing at serve or reload. The nodes
// are .invalid: nothing is contacted.
func TestConfigCheckReportsWhatServeReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "service.key")
	if err := os.WriteFile(keyFile, []byte(hivesim.DemoKey("trent", "posting").WIF()), 0o600); err != nil {
		t.Fatal(err)
	}
	const base = "hivegate:\n  port: 0\n  admin_listen: \"\"\nbackends:\n  hived: http://hived.invalid\nurls:\n  appbase: hived\n"
	quotas := "quotas:\n  classes:\n    public: {limit: 600, period: 60}\n  per_address: public\n  weights:\n" +
		"    appbase.condenser_api.get_block: 1\n"
	auth := "auth:\n  enabled: true\n  service_account: trent\n  service_key_file: " + keyFile + "\n" +
		"  apps:\n    - client_id: demo.app\n      redirect_uris: [https://app.example/callback]\n  require_token:\n" +
		"    appbase.condenser_api.get_account_history: posting\n"
	testCases := []struct {
		name, yaml, bad string // bad: the line with the mistake, appended
		key             string // the key the error names
	}{
		{"quotas.weights", base + quotas, "    \"appbase..get_block\": 3\n", "quotas.weights.appbase..get_block"},
		{"quotas.weights params", base + quotas, "    \"appbase.condenser_api.get_block.params=[1\": 3\n", "quotas.weights.appbase.condenser_api.get_block.params=[1"},
		{"auth.require_token", base + auth, "    \"condenser_api..get_accounts\": login\n", "auth.require_token.condenser_api..get_accounts"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "hivegate.yaml")
			line := strings.Count(tc.yaml, "\n") + 1
			if err := os.WriteFile(file, []byte(tc.yaml+tc.bad), 0o600); err != nil {
				t.Fatal(err)
			}
			// The same file without the mistake passes both.
			good := filepath.Join(t.TempDir(), "good.yaml")
			if err := os.WriteFile(good, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := runCmd(t, "config", "check", good); code != 0 {
				t.Fatalf("config check of the good file: exit %d: %s", code, stderr)
			}
			// What serve reports.
			cfg, err := config.Load(file)
			if err != nil {
				t.Fatalf("the mistake is meant to pass config.Load, to be found by what serve builds: %v", err)
			}
			gw, serveErr := gateway.New(cfg, gateway.Options{})
			if serveErr == nil {
				gw.Close()
				t.Fatal("gateway.New accepted the config")
			}
			want := file + ":" + strconv.Itoa(line) + ": " + tc.key
			if !strings.Contains(serveErr.Error(), want) {
				t.Fatalf("serve's error %q does not name %q", serveErr, want)
			}
			stdout, stderr, code := runCmd(t, "config", "check", file)
			if code == 0 || !strings.Contains(stderr, serveErr.Error()) || stdout != "" {
				t.Errorf("config check: exit %d, stdout %q, stderr %q; want a failure with serve's error %q", code, stdout, stderr, serveErr)
			}
		})
	}
}

// TestConfigCheckContactsNothing: config check builds the backend pool and
// the Redis tier's clients of a config but connects to neither node nor
// Redis (gateway.Check reads no shared LIB and starts no prober), so
// running it next to production touches nothing.
func TestConfigCheckContactsNothing(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			_ = c.Close()
		}
	}()
	addr := ln.Addr().String()
	yaml := "hivegate:\n  port: 0\n  admin_listen: \"\"\nbackends:\n  hived: http://" + addr + "\nurls:\n  appbase: hived\n" +
		"cache:\n  redis_url: redis://" + addr + "/0\n" +
		"quotas:\n  classes:\n    public: {limit: 600, period: 60}\n  per_address: public\n"
	file := filepath.Join(t.TempDir(), "hivegate.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCmd(t, "config", "check", file); code != 0 {
		t.Fatalf("config check: exit %d: %s", code, stderr)
	}
	// The check has returned and closed what it built: whatever it would
	// have dialled has been accepted by now.
	_ = ln.Close()
	select {
	case <-accepted:
		t.Error("config check connected to the node or Redis")
	default:
	}
}

// TestConfigDefaultIsAFile: `config default` prints a file that config
// check accepts and that routes exactly as the embedded default with
// --node-url does (it once printed no backends section, and config check
// refused its own default: urls.appbase: unknown backend "hived").
func TestConfigDefaultIsAFile(t *testing.T) {
	t.Parallel()
	const node = "http://10.1.2.3:8099"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"placeholder", nil, "backends:\n  hived: ["},
		{"node-url", []string{"--node-url", node}, `hived: ["` + node + `"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, stderr, code := runCmd(t, append([]string{"config", "default"}, tc.args...)...)
			if code != 0 || !strings.Contains(out, tc.want) {
				t.Fatalf("config default: exit %d, stderr %q; output lacks %q:\n%s", code, stderr, tc.want, out)
			}
			file := filepath.Join(t.TempDir(), "default.yaml")
			if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}
			if table, stderr, code := runCmd(t, "config", "check", file); code != 0 || !strings.Contains(table, "appbase.condenser_api") {
				t.Fatalf("config check of the printed default: exit %d: %s\n%s", code, stderr, table)
			}
			if tc.args == nil {
				return
			}
			for _, call := range []string{
				`{"jsonrpc":"2.0","id":1,"method":"get_block","params":[1]}`,
				`{"jsonrpc":"2.0","id":1,"method":"bridge.get_ranked_posts","params":{"sort":"trending"}}`,
				`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_state","params":["/trending"]}`,
			} {
				fromFile, _, code1 := runCmd(t, "route", "--config", file, call)
				fromFlag, _, code2 := runCmd(t, "route", "--node-url", node, call)
				if code1 != 0 || code2 != 0 || fromFile != fromFlag {
					t.Errorf("route %s: from the printed file (exit %d) %s; from --node-url (exit %d) %s", call, code1, fromFile, code2, fromFlag)
				}
			}
		})
	}
}
