package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/redistest"
)

// composeDir is the standalone compose example (deploy/README.md).
const composeDir = "../../deploy/compose"

// TestComposeExample checks deploy/compose against the image and its own
// config: each hivegate replica mounts hivegate.yaml where the image reads
// its config, builds the repository's Dockerfile, and is proxied to by
// Caddy on the port the config listens on (with GET / as the health
// check); the config loads without warnings and points its shared cache at
// the compose file's Redis service.
func TestComposeExample(t *testing.T) {
	t.Parallel()
	df := readDockerfile(t)
	services := readCompose(t, filepath.Join(composeDir, "compose.yaml"))
	for _, want := range []string{"redis", "hivegate-a", "hivegate-b", "caddy"} {
		if _, ok := services[want]; !ok {
			t.Fatalf("compose.yaml has no service %s (it has %v)", want, services)
		}
	}
	cfgFile := filepath.Join(composeDir, "hivegate.yaml")
	cfg, err := loadDefaultConfig("", cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) > 0 {
		t.Errorf("hivegate.yaml warnings: %q", cfg.Warnings)
	}
	port := strconv.Itoa(cfg.Settings.Port)
	if cfg.Settings.Hostname != "0.0.0.0" || port != df.expose {
		t.Errorf("hivegate.yaml listens on %s; the image exposes %s", cfg.Listen(), df.expose)
	}
	caddy, err := os.ReadFile(filepath.Join(composeDir, "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hivegate-a", "hivegate-b"} {
		s := services[name]
		mounted := false
		for _, v := range s.Volumes {
			mounted = mounted || (v.Source == "./hivegate.yaml" && v.Target == df.env[configEnv] && v.ReadOnly)
		}
		if !mounted {
			t.Errorf("%s does not mount ./hivegate.yaml read-only at %s: %+v", name, df.env[configEnv], s.Volumes)
		}
		if l := rustLogLevels(composeDefault(t, s.Environment["RUST_LOG"], "HIVEGATE_LOG_LEVEL")); len(l.ignored) > 0 {
			t.Errorf("%s: RUST_LOG ignored directives %q", name, l.ignored)
		}
		if !strings.Contains(string(caddy), " "+name+":"+port) {
			t.Errorf("Caddyfile does not proxy to %s:%s", name, port)
		}
	}
	for _, want := range []string{"health_uri /\n", "respond /metrics 404"} {
		if !strings.Contains(string(caddy), want) {
			t.Errorf("Caddyfile does not say %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(composeDir, "../../Dockerfile")); err != nil {
		t.Errorf("the build context has no Dockerfile: %v", err)
	}
	u, err := url.Parse(cfg.Cache.RedisURL)
	if err != nil || u.Hostname() != "redis" {
		t.Errorf("cache.redis_url %q: want the redis service", cfg.Cache.RedisURL)
	}
	if !cfg.Ops.PublicMetrics {
		t.Error("hivegate.yaml does not serve /metrics on its port, where Prometheus would scrape it on the compose network")
	}
}

// TestComposeReplicasShareCache runs compose.yaml's two replicas: the
// example's hivegate.yaml twice, with its node and Redis replaced by a
// loopback node and a real redis-server. A call answered by replica A is
// answered by replica B from Redis, without a second call to the node.
func TestComposeReplicasShareCache(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	var calls atomic.Int64
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if strings.HasSuffix(req.Method, "get_accounts") {
			calls.Add(1)
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","result":[{"name":"alice"}],"id":%s}`, req.ID)
	}))
	t.Cleanup(node.Close)
	var addrs []string
	for range 2 {
		cfg, err := config.Load(filepath.Join(composeDir, "hivegate.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Backends[0].URL, cfg.Backends[0].Nodes = node.URL, nil
		cfg.Cache.RedisURL = redis.URL()
		if err := applyListen(cfg, "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		addr, served := startServe(t, ctx, cfg, slog.New(slog.DiscardHandler), serveOptions{})
		t.Cleanup(func() {
			cancel()
			if err := <-served; err != nil {
				t.Error(err)
			}
		})
		addrs = append(addrs, addr)
	}
	call := func(addr string) (string, string) {
		resp, err := http.Post("http://"+addr, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_accounts","params":[["alice"]]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("X-Hivegate-Cache"), string(body)
	}
	if cache, body := call(addrs[0]); cache != "miss" || !strings.Contains(body, `"alice"`) {
		t.Fatalf("replica A: cache %q, %s", cache, body)
	}
	waitFor(t, "the answer in Redis", func() bool {
		n, err := redis.Client().DBSize(context.Background()).Result()
		return err == nil && n > 0
	})
	cache, body := call(addrs[1])
	if !strings.Contains(body, `"alice"`) || calls.Load() != 1 {
		t.Errorf("replica B: cache %q, %s; the node was asked for the accounts %d times, want once (B answers from Redis)", cache, body, calls.Load())
	}
}
