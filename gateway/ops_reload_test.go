package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// trafficPost sends one JSON-RPC call and returns an error unless it was
// answered with a result (safe to call from any goroutine).
func trafficPost(url, body string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*hangGuard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &r) != nil || r.Result == nil {
		return fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return nil
}

// TestReloadUnderTraffic reloads the config through POST /admin/reload
// while several clients send requests without pause (misses that go
// upstream and hits): no request fails, and afterwards the new backend
// serves the calls, the new TTL applies to what is stored, the cache kept
// its entries and the last irreversible block did not move back.
func TestReloadUnderTraffic(t *testing.T) {
	t.Parallel()
	oldNode, newNode := newFakeNode(t), newFakeNode(t)
	for _, n := range []*fakeNode{oldNode, newNode} {
		n.result("condenser_api.get_accounts", `[{"name":"x"}]`)
	}
	oldNode.lib.Store(9000)
	newNode.lib.Store(8990) // newNode is a little behind: the LIB must not move back
	o := startOps(t, opsYAML(oldNode, "  access_log: false\n"))
	waitFor(t, "the LIB poll", func() bool { return o.metric("hivegate_last_irreversible_block", "") == 9000 })
	shared := rpc(1, "condenser_api.get_accounts", `[["shared"]]`)
	if err := trafficPost(o.srv.URL, shared); err != nil {
		t.Fatal(err)
	}

	var (
		served   atomic.Int64
		failedMu sync.Mutex
		failed   []string
		wg       sync.WaitGroup
	)
	stop := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := shared
				if i%2 == 0 {
					body = rpc(i, "condenser_api.get_accounts", fmt.Sprintf(`[["w%d-%d"]]`, w, i))
				}
				if err := trafficPost(o.srv.URL, body); err != nil {
					failedMu.Lock()
					failed = append(failed, err.Error())
					failedMu.Unlock()
				}
				served.Add(1)
			}
		})
	}
	// Stop the traffic however the test ends.
	var stopOnce sync.Once
	stopTraffic := func() { stopOnce.Do(func() { close(stop) }); wg.Wait() }
	defer stopTraffic()
	// Traffic is counted, not timed: a slow machine sends as many requests
	// on each config as a fast one.
	const span = 200
	waitFor(t, "traffic on the old config", func() bool { return served.Load() >= span })
	beforeReload := served.Load()
	o.write(strings.Replace(opsYAML(newNode, "  access_log: false\n"), "ttls:\n", "ttls:\n  appbase.condenser_api.get_accounts: 7\n", 1))
	status, body := o.adminReq("POST", "/admin/reload", "")
	if status != http.StatusOK {
		t.Errorf("POST /admin/reload: %d %s", status, body)
	}
	reloaded := served.Load()
	waitFor(t, "traffic on the new config", func() bool { return served.Load() >= reloaded+span })
	stopTraffic()

	if len(failed) > 0 {
		t.Errorf("%d of %d requests failed during the reload; first: %s", len(failed), served.Load(), failed[0])
	}
	if beforeReload == 0 || served.Load() == reloaded {
		t.Fatalf("traffic did not span the reload: %d requests before, %d after", beforeReload, served.Load()-reloaded)
	}
	if newNode.count("condenser_api.get_accounts") == 0 {
		t.Error("the new backend received no call after the reload")
	}
	oldCalls, newCalls := oldNode.count("condenser_api.get_accounts"), newNode.count("condenser_api.get_accounts")
	start := time.Now()
	fresh := rpc(1, "condenser_api.get_accounts", `[["after-reload"]]`)
	status, h, _ := o.post(fresh)
	if status != 200 || h.Get("X-Hivegate-Cache") != "miss" {
		t.Fatalf("fresh call after the reload: %d, cache %q", status, h.Get("X-Hivegate-Cache"))
	}
	if oldNode.count("condenser_api.get_accounts") != oldCalls || newNode.count("condenser_api.get_accounts") != newCalls+1 {
		t.Error("a call after the reload did not go to the new backend")
	}
	c, err := o.gw.Dispatcher().Router().Parse("condenser_api.get_accounts", json.RawMessage(`[["after-reload"]]`))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := o.gw.Dispatcher().Cache().Get(c.Key)
	if !ok {
		t.Fatal("the fresh call was not cached")
	}
	checkExpiry(t, e, start, 7*time.Second)
	if _, h, _ := o.post(shared); h.Get("X-Hivegate-Cache") != "hit" {
		t.Errorf("an entry cached before the reload: cache %q after it, want hit (the cache survives reloads)", h.Get("X-Hivegate-Cache"))
	}
	if got := o.metric("hivegate_last_irreversible_block", ""); got != 9000 {
		t.Errorf("last irreversible block after the reload = %v, want 9000 (never moves back)", got)
	}
	if got := o.metric("hivegate_config_reloads_total", `result="ok"`); got != 1 {
		t.Errorf("config_reloads_total{ok} = %v, want 1", got)
	}
}

// TestReloadRejected shows that an invalid config is rejected with its
// error (HTTP 400 on POST /admin/reload, logged) and the running config
// stays in use.
func TestReloadRejected(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	node.result("condenser_api.get_accounts", `[{"name":"x"}]`)
	o := startOps(t, opsYAML(node, ""))
	good := opsYAML(node, "")
	testCases := []struct{ name, yaml, want string }{
		{"unknown backend", strings.Replace(good, "  appbase: hived\n", "  appbase: nosuch\n", 1), `hivegate.yaml:9: urls.appbase: unknown backend \"nosuch\"`},
		{"not YAML", good + "\n  - [\n", "hivegate.yaml"},
		{"unknown key", good + "bogus: 1\n", "bogus: unknown key"},
		{"file gone", "", "no such file"},
	}
	for i, tc := range testCases {
		if tc.yaml == "" {
			if err := os.Remove(o.file); err != nil {
				t.Fatal(err)
			}
		} else {
			o.write(tc.yaml)
		}
		status, body := o.adminReq("POST", "/admin/reload", "")
		if status != http.StatusBadRequest || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %s, want 400 containing %q", tc.name, status, body, tc.want)
		}
		if err := trafficPost(o.srv.URL, rpc(i, "condenser_api.get_accounts", `[["a"]]`)); err != nil {
			t.Errorf("%s: the running config stopped serving: %v", tc.name, err)
		}
		if got := o.metric("hivegate_config_reloads_total", `result="error"`); got != float64(i+1) {
			t.Errorf("%s: config_reloads_total{error} = %v, want %d", tc.name, got, i+1)
		}
	}
	if got := o.gw.Config().Backends[0].URL; got != node.srv.URL {
		t.Errorf("backend after rejected reloads: %s", got)
	}
	if n := len(o.logs.lines(t, "config reload rejected: the running config stays in use")); n != len(testCases) {
		t.Errorf("%d rejections logged, want %d", n, len(testCases))
	}
}

// TestReloadRestartRequired shows that changed settings that cannot apply
// live are reported, and that the rest of the config still applies.
func TestReloadRestartRequired(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	o := startOps(t, opsYAML(node, ""))
	o.write(opsYAML(node, "  port: 9999\n  admin_listen: 127.0.0.1:9998\n  operator_message: reloaded\n"))
	status, body := o.adminReq("POST", "/admin/reload", "")
	var res gateway.ReloadResult
	if err := json.Unmarshal(body, &res); err != nil || status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	joined := strings.Join(res.RestartRequired, "\n")
	for _, want := range []string{"hivegate.port changed (8090 → 9999)", "hivegate.admin_listen changed"} {
		if !strings.Contains(joined, want) {
			t.Errorf("restart_required lacks %q: %q", want, res.RestartRequired)
		}
	}
	if len(res.RestartRequired) != 2 {
		t.Errorf("restart_required = %q, want 2 entries", res.RestartRequired)
	}
	req, _ := http.NewRequest(http.MethodGet, o.srv.URL, nil)
	if _, _, health := o.do(req); !strings.Contains(string(health), `"operator_message":"reloaded"`) {
		t.Errorf("GET / after the reload: %s, want the new operator message", health)
	}
}

// TestReloadLoader shows Options.ConfigLoader is what ReloadFromSource
// loads, and that a config that is not a file cannot be reloaded without
// one.
func TestReloadLoader(t *testing.T) {
	t.Parallel()
	node := newFakeNode(t)
	cfg, err := config.Default(node.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gw.Close)
	if _, err := gw.ReloadFromSource(); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("reloading the embedded default: %v, want an error", err)
	}
	calls := 0
	gw2, err := gateway.New(cfg, gateway.Options{ConfigLoader: func() (*config.Config, error) {
		calls++
		return config.Parse("loaded.yaml", []byte(opsYAML(node, "")))
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gw2.Close)
	if _, err := gw2.ReloadFromSource(); err != nil || calls != 1 || gw2.Config().Source != "loaded.yaml" {
		t.Errorf("ReloadFromSource: %v, %d loader calls, source %q", err, calls, gw2.Config().Source)
	}
	gw2.Close()
	if _, err := gw2.Reload(cfg); !errors.Is(err, gateway.ErrClosed) {
		t.Errorf("Reload after Close: %v, want ErrClosed", err)
	}
}
