package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// reloadNode is a JSON-RPC backend answering every call with result true.
func reloadNode(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":true,"id":%s}`, req.ID)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// reloadYAML is a config with an admin listener on a free port and ttl as
// the TTL of appbase.
func reloadYAML(nodeURL, ttl string) string {
	return fmt.Sprintf(`hivegate:
  hostname: 127.0.0.1
  port: 0
  admin_listen: 127.0.0.1:0
backends:
  hived: %s
urls:
  appbase: hived
ttls:
  appbase: %s
`, nodeURL, ttl)
}

// routeTTL asks the admin listener for the TTL of the appbase key.
func routeTTL(t *testing.T, adminAddr string) string {
	t.Helper()
	resp, err := http.Get("http://" + adminAddr + "/admin/routes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var table struct {
		Routes []struct {
			Key string `json:"key"`
			TTL any    `json:"ttl"`
		} `json:"routes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
		t.Fatal(err)
	}
	for _, r := range table.Routes {
		if r.Key == "appbase" {
			return fmt.Sprint(r.TTL)
		}
	}
	return ""
}

// TestServeReloadTrigger runs serveWith with a reload channel (what SIGHUP
// feeds) and an admin listener: a reload request applies a changed file, a
// broken file is rejected and the running config stays.
func TestServeReloadTrigger(t *testing.T) {
	t.Parallel()
	node := reloadNode(t)
	file := filepath.Join(t.TempDir(), "hivegate.yaml")
	if err := os.WriteFile(file, []byte(reloadYAML(node.URL, "60")), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reload := make(chan struct{})
	adminc, mainc := make(chan string, 1), make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- serveWith(ctx, cfg, slog.New(slog.DiscardHandler), serveOptions{
			ready:      func(a string) { mainc <- a },
			adminReady: func(a string) { adminc <- a },
			reload:     reload,
		})
	}()
	admin, main := <-adminc, <-mainc
	if got := routeTTL(t, admin); got != "60" {
		t.Fatalf("ttl before the reload: %s", got)
	}
	if err := os.WriteFile(file, []byte(reloadYAML(node.URL, "NO_CACHE")), 0o600); err != nil {
		t.Fatal(err)
	}
	reload <- struct{}{}
	waitFor(t, "the reload", func() bool { return routeTTL(t, admin) == "NO_CACHE" })

	if err := os.WriteFile(file, []byte("urls: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reload <- struct{}{}
	reload <- struct{}{} // the first reload is done once the loop takes the second
	if got := routeTTL(t, admin); got != "NO_CACHE" {
		t.Errorf("ttl after a rejected reload: %s, want the running config's NO_CACHE", got)
	}
	resp, err := http.Post("http://"+main, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"result":true`) {
		t.Errorf("main listener after a rejected reload: %s", body)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serveWith: %v", err)
	}
}

// TestSIGHUPReloads runs `hivegate serve` and sends the process a real
// SIGHUP (serve has signal.Notify installed, so the test binary lives on):
// the changed config file applies, and the --listen override still holds
// (no restart-required warning about the port).
func TestSIGHUPReloads(t *testing.T) {
	node := reloadNode(t)
	file := filepath.Join(t.TempDir(), "hivegate.yaml")
	if err := os.WriteFile(file, []byte(reloadYAML(node.URL, "60")), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", file, "--listen", "127.0.0.1:0", "--log-format", "json"}, io.Discard, &stderr)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited with %d:\n%s", code, stderr.String())
		}
	}()
	var admin string
	waitFor(t, "the admin listener", func() bool {
		admin = logField(stderr.String(), "hivegate listening", "admin", "addr")
		return admin != "" && logField(stderr.String(), "hivegate listening", "main", "addr") != ""
	})
	if got := routeTTL(t, admin); got != "60" {
		t.Fatalf("ttl before SIGHUP: %s", got)
	}
	if err := os.WriteFile(file, []byte(reloadYAML(node.URL, "EXPIRE_IF_REVERSIBLE")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// The new config is in use before the reload is logged: wait for both.
	waitFor(t, "the reload after SIGHUP", func() bool {
		return routeTTL(t, admin) == "EXPIRE_IF_REVERSIBLE" && strings.Contains(stderr.String(), `"msg":"config reloaded"`)
	})
	if strings.Contains(stderr.String(), "hivegate.port changed") || strings.Contains(stderr.String(), "hivegate.hostname changed") {
		t.Errorf("the --listen override was lost on reload:\n%s", stderr.String())
	}
}

// logField finds the JSON log line with msg and listener and returns field.
func logField(logs, msg, listener, field string) string {
	for _, line := range strings.Split(logs, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if m["msg"] == msg && m["listener"] == listener {
			return fmt.Sprint(m[field])
		}
	}
	return ""
}

// TestAdminListenerOff shows that hivegate.admin_listen: "" opens no admin
// listener (by default one listens on 127.0.0.1:9090: config's
// TestOpsDefaults).
func TestAdminListenerOff(t *testing.T) {
	t.Parallel()
	node := reloadNode(t)
	cfg, err := config.Parse("x.yaml", []byte(strings.Replace(reloadYAML(node.URL, "1"), "  admin_listen: 127.0.0.1:0\n", "  admin_listen: \"\"\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Ops.AdminListen != "" {
		t.Fatalf("admin_listen %q", cfg.Ops.AdminListen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	admin := make(chan string, 1)
	served := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		served <- serveWith(ctx, cfg, slog.New(slog.DiscardHandler), serveOptions{
			ready:      func(string) { close(ready) },
			adminReady: func(a string) { admin <- a },
		})
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not listen")
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-admin:
		t.Errorf("an admin listener opened on %s with admin_listen empty", a)
	default:
	}
}
