package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// The admin listener's default address, 127.0.0.1:9090, is Prometheus'
// port too. These tests never touch 9090: the port they call busy is one
// they hold themselves, given to the gateway as its default address.

// holdPort listens on a free loopback port for the test's duration and
// returns its address: a port that is busy.
func holdPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String()
}

// droneYAML is a Drone config (drone: settings, no admin listener key) in
// front of nodeURL, listening on a free port.
func droneYAML(nodeURL string) string {
	return fmt.Sprintf("drone:\n  hostname: 127.0.0.1\n  port: 0\nbackends:\n  hived: %s\nurls:\n  appbase: hived\n", nodeURL)
}

// TestBusyDefaultAdminPortWarns shows that a Drone config starts when the
// admin listener's default address is busy: the admin listener stays off
// and a warning says how to choose another address; the gateway serves.
func TestBusyDefaultAdminPortWarns(t *testing.T) {
	t.Parallel()
	node := reloadNode(t)
	cfg, err := config.Parse("drone.yaml", []byte(droneYAML(node.URL)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Ops.AdminListen != config.DefaultAdminListen {
		t.Fatalf("admin_listen %q, want the default", cfg.Ops.AdminListen)
	}
	busy := holdPort(t)
	cfg.Ops.AdminListen = busy // the default address, busy (not given by the config)
	var logs syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mainc, adminc := make(chan string, 1), make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- serveWith(ctx, cfg, slog.New(slog.NewJSONHandler(&logs, nil)), serveOptions{
			ready:      func(a string) { mainc <- a },
			adminReady: func(a string) { adminc <- a },
		})
	}()
	var main string
	select {
	case main = <-mainc:
	case err := <-served:
		t.Fatalf("serve ended before listening: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not listen within 10s")
	}
	resp, err := http.Post("http://"+main, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"result":true`) {
		t.Errorf("the gateway does not serve: %s", body)
	}
	select {
	case a := <-adminc:
		t.Errorf("an admin listener on %s", a)
	default:
	}
	if l := logs.String(); !strings.Contains(l, `"level":"WARN","msg":"admin listener off`) || !strings.Contains(l, busy) || !strings.Contains(l, "--admin-listen") {
		t.Errorf("no warning naming the busy address and --admin-listen:\n%s", l)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serveWith: %v", err)
	}
}

// runServe runs `hivegate serve` with args (through run, or with opts
// when they give the default admin address) until the main listener is up or serve ends. It returns
// the JSON logs, the exit code (-1 while serving) and a stop function that
// ends serve and returns its exit code.
func runServe(t *testing.T, opts serveOptions, args ...string) (logs *syncbuf.Buffer, code int, stop func() int) {
	t.Helper()
	logs = &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		args := append([]string{"--log-format", "json"}, args...)
		if opts.defaultAdminListen == "" {
			// The command itself, as main runs it.
			done <- run(ctx, append([]string{"serve"}, args...), io.Discard, logs)
			return
		}
		if err := serveCmdWith(ctx, args, logs, opts); err != nil {
			fmt.Fprintln(logs, "hivegate:", err)
			done <- 1
			return
		}
		done <- 0
	}()
	deadline := time.After(10 * time.Second)
	for logField(logs.String(), "hivegate listening", "main", "addr") == "" {
		select {
		case code := <-done:
			cancel()
			return logs, code, func() int { return code }
		case <-deadline:
			cancel()
			t.Fatalf("serve did not listen within 10s:\n%s", logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	stop = sync.OnceValue(func() int { cancel(); return <-done })
	t.Cleanup(func() { stop() }) // also when the test fails first
	return logs, -1, stop
}

// TestServeAdminListen runs `hivegate serve`: --admin-listen chooses the
// admin address or turns the listener off; a busy default address only
// warns, with a Drone config or with --node-url; a busy address given
// explicitly, by the flag or the config key, fails loudly.
func TestServeAdminListen(t *testing.T) {
	t.Parallel()
	node := reloadNode(t)
	dir := t.TempDir()
	drone := filepath.Join(dir, "drone.yaml")
	explicit := filepath.Join(dir, "explicit.yaml")
	busy := holdPort(t)
	if err := os.WriteFile(drone, []byte(droneYAML(node.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(explicit, []byte(strings.Replace(droneYAML(node.URL), "  port: 0\n", "  port: 0\n  admin_listen: "+busy+"\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	testCases := []struct {
		name       string
		defaultAdm string // the default admin address; "" config's (never bound here)
		args       []string
		wantErr    string // serve fails with this; "" it serves
		admin      bool   // an admin listener opens
		warned     bool   // the busy-default warning is logged
	}{
		{"busy default, Drone config", busy, []string{"--config", drone}, "", false, true},
		{"busy default, --node-url", busy, []string{"--node-url", node.URL, "--listen", "127.0.0.1:0"}, "", false, true},
		{"--admin-listen on a free port", busy, []string{"--config", drone, "--admin-listen", "127.0.0.1:0"}, "", true, false},
		{"--admin-listen off", busy, []string{"--config", drone, "--admin-listen", ""}, "", false, false},
		{"--admin-listen busy", "", []string{"--config", drone, "--admin-listen", busy}, "address already in use", false, false},
		{"admin_listen busy", "", []string{"--config", explicit}, "address already in use", false, false},
		{"--admin-listen over a busy admin_listen", "", []string{"--config", explicit, "--admin-listen", "127.0.0.1:0"}, "", true, false},
		{"--admin-listen without a port", "", []string{"--config", drone, "--admin-listen", "9090"}, "--admin-listen: want HOST:PORT", false, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			logs, code, stop := runServe(t, serveOptions{defaultAdminListen: tc.defaultAdm}, tc.args...)
			if tc.wantErr != "" {
				if code != 1 || !strings.Contains(logs.String(), tc.wantErr) {
					t.Fatalf("exit %d, want 1 with %q:\n%s", code, tc.wantErr, logs.String())
				}
				return
			}
			if code != -1 {
				t.Fatalf("serve ended with %d:\n%s", code, logs.String())
			}
			admin := logField(logs.String(), "hivegate listening", "admin", "addr")
			if (admin != "") != tc.admin {
				t.Errorf("admin listener at %q, want one: %v", admin, tc.admin)
			}
			if admin != "" {
				resp, err := http.Get("http://" + admin + "/admin/health")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET /admin/health: %d", resp.StatusCode)
				}
			}
			if warned := strings.Contains(logs.String(), `"msg":"admin listener off`); warned != tc.warned {
				t.Errorf("warned %v, want %v:\n%s", warned, tc.warned, logs.String())
			}
			if code := stop(); code != 0 {
				t.Errorf("serve exited with %d:\n%s", code, logs.String())
			}
		})
	}
}
