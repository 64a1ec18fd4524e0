package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// hafDir holds haf_api_node's Drone contract, copied from its repository
// (deploy/testdata/haf_api_node/ORIGIN.md names the commit).
const hafDir = "../../deploy/testdata/haf_api_node"

func hafFile(name string) string { return filepath.Join(hafDir, name) }

// TestHafAPINodeFilesAreUpstreams checks the copied files against the
// sha256 ORIGIN.md lists: they are haf_api_node's, unedited.
func TestHafAPINodeFilesAreUpstreams(t *testing.T) {
	t.Parallel()
	origin, err := os.ReadFile(hafFile("ORIGIN.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`(?m)^\| (\S+) \| ([0-9a-f]{64}) \|$`).FindAllStringSubmatch(string(origin), -1)
	if len(rows) != 5 {
		t.Fatalf("ORIGIN.md lists %d files, want 5", len(rows))
	}
	for _, r := range rows {
		data, err := os.ReadFile(hafFile(r[1]))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != r[2] {
			t.Errorf("%s: sha256 %x, ORIGIN.md says %s", r[1], sum, r[2])
		}
	}
}

// dockerfile is what the image's Dockerfile says about how it runs.
type dockerfile struct {
	env                       map[string]string
	expose, user              string
	entrypoint, cmd, baseLast string
}

// readDockerfile reads the repository's Dockerfile (one instruction per
// line, JSON form for ENTRYPOINT and CMD).
func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	f, err := os.Open("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := dockerfile{env: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		instr, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		switch instr {
		case "FROM":
			d.baseLast = arg
			d.env = map[string]string{} // a new stage
		case "ENV":
			k, v, _ := strings.Cut(arg, "=")
			d.env[k] = v
		case "EXPOSE":
			d.expose = arg
		case "USER":
			d.user = arg
		case "ENTRYPOINT":
			d.entrypoint = arg
		case "CMD":
			d.cmd = arg
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return d
}

// composeService is the part of a compose service the contract is about.
type composeService struct {
	Image       string            `yaml:"image"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []struct {
		Type     string `yaml:"type"`
		Source   string `yaml:"source"`
		Target   string `yaml:"target"`
		ReadOnly bool   `yaml:"read_only"`
	} `yaml:"volumes"`
}

func readCompose(t *testing.T, file string) map[string]composeService {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return c.Services
}

// composeDefault returns the default of a ${NAME:-default} reference.
func composeDefault(t *testing.T, ref, name string) string {
	t.Helper()
	prefix := "${" + name + ":-"
	if !strings.HasPrefix(ref, prefix) || !strings.HasSuffix(ref, "}") {
		t.Fatalf("%q is not ${%s:-…}", ref, name)
	}
	return strings.TrimSuffix(strings.TrimPrefix(ref, prefix), "}")
}

// TestHafAPINodeContract checks the image against haf_api_node's drone
// service, read from its files: the config it mounts is the one the image
// serves, hivegate loads that config unchanged and listens where Caddy
// and Prometheus look (port 9000), RUST_LOG's default means to hivegate
// what it means to Drone, and DRONE_IMAGE replaces the image's repository.
func TestHafAPINodeContract(t *testing.T) {
	t.Parallel()
	df := readDockerfile(t)
	drone, ok := readCompose(t, hafFile("drone.yaml"))["drone"]
	if !ok {
		t.Fatal("drone.yaml has no drone service")
	}
	// The config mount is the file the image serves.
	var mount string
	for _, v := range drone.Volumes {
		if v.Source == "./drone/config.yaml" {
			mount = v.Target
			if v.Type != "bind" || !v.ReadOnly {
				t.Errorf("drone/config.yaml is mounted %s, read_only %v", v.Type, v.ReadOnly)
			}
		}
	}
	if mount == "" || df.env[configEnv] != mount {
		t.Errorf("haf_api_node mounts drone/config.yaml at %q; the image's %s is %q", mount, configEnv, df.env[configEnv])
	}
	if df.entrypoint != `["/hivegate"]` || df.cmd != `["serve"]` || df.baseLast != "scratch" || df.user != "65532:65532" {
		t.Errorf("Dockerfile: FROM %s, USER %s, ENTRYPOINT %s, CMD %s; want scratch, 65532:65532, /hivegate serve", df.baseLast, df.user, df.entrypoint, df.cmd)
	}
	// ${DRONE_IMAGE:-…}:${DRONE_VERSION:-…}: DRONE_IMAGE names the
	// repository, DRONE_VERSION the tag.
	if !regexp.MustCompile(`^\$\{DRONE_IMAGE:-.*\}:\$\{DRONE_VERSION:-.*\}$`).MatchString(drone.Image) {
		t.Errorf("drone image %q: DRONE_IMAGE and DRONE_VERSION no longer name the repository and the tag", drone.Image)
	}
	// RUST_LOG's default: hivegate's own logs at warn, the access log on.
	levels := rustLogLevels(composeDefault(t, drone.Environment["RUST_LOG"], "DRONE_LOG_LEVEL"))
	if levels.base != slog.LevelWarn || levels.access != slog.LevelInfo || len(levels.ignored) != 0 {
		t.Errorf("RUST_LOG %q: base %v, access %v, ignored %q; want WARN, INFO, none", drone.Environment["RUST_LOG"], levels.base, levels.access, levels.ignored)
	}

	// The config loads as the image loads it (HIVEGATE_CONFIG, no --config).
	cfg, err := loadDefaultConfig("", hafFile("drone/config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != hafFile("drone/config.yaml") {
		t.Errorf("loaded %q", cfg.Source)
	}
	port := strconv.Itoa(cfg.Settings.Port)
	if cfg.Listen() != "0.0.0.0:9000" || df.expose != port {
		t.Errorf("listens on %s, the image exposes %s", cfg.Listen(), df.expose)
	}
	// Published as 9000, proxied to by Caddy, scraped by Prometheus.
	exposed := readCompose(t, hafFile("exposed/drone.exposed.yaml"))["drone"]
	if len(exposed.Ports) != 1 || !strings.HasSuffix(exposed.Ports[0], ":"+port) {
		t.Errorf("exposed ports %q, want the container's %s", exposed.Ports, port)
	}
	caddy, err := os.ReadFile(hafFile("caddy/Caddyfile.post_to_root.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"method POST", "path /\n", "reverse_proxy http://{$JSONRPC_API_SERVER_NAME}:" + port + " {"} {
		if !strings.Contains(string(caddy), want) {
			t.Errorf("Caddy's JSON-RPC block does not say %q", want)
		}
	}
	var scrape struct {
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			MetricsPath   string `yaml:"metrics_path"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	data, err := os.ReadFile(hafFile("monitoring/prometheus/scrape-drone.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &scrape); err != nil {
		t.Fatal(err)
	}
	if len(scrape.ScrapeConfigs) != 1 || len(scrape.ScrapeConfigs[0].StaticConfigs) != 1 {
		t.Fatalf("scrape config %+v", scrape)
	}
	sc := scrape.ScrapeConfigs[0]
	if sc.StaticConfigs[0].Targets[0] != "drone:"+port || sc.MetricsPath != cfg.Ops.MetricsPath {
		t.Errorf("Prometheus scrapes %s%s; hivegate serves metrics on :%s%s", sc.StaticConfigs[0].Targets[0], sc.MetricsPath, port, cfg.Ops.MetricsPath)
	}
	if cfg.Ops.PublicMetrics || cfg.Ops.Namespace() != "drone" {
		t.Errorf("metrics on the public port %v, namespace %q; the file says false, drone", cfg.Ops.PublicMetrics, cfg.Ops.Namespace())
	}
}

// backendNodes starts one loopback JSON-RPC node per backend of cfg,
// answering every call with the backend's name, and points cfg at them.
func backendNodes(t *testing.T, cfg *config.Config) {
	t.Helper()
	for i, b := range cfg.Backends {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","result":%q,"id":%s}`, b.Name, req.ID)
		}))
		t.Cleanup(srv.Close)
		cfg.Backends[i].URL, cfg.Backends[i].Nodes = srv.URL, nil
	}
}

// TestHafAPINodeConfigServes serves haf_api_node's drone/config.yaml (its
// backends, HAProxy's ports, replaced by loopback nodes) with the logger
// RUST_LOG's default makes: GET / and GET /health (jussi's health check)
// answer OK with the config's operator message, POST / routes each
// method to the backend the file names, the access log is written and
// info lines are not; with metrics_enabled: true, as an operator sets it
// for haf_api_node's Prometheus, /metrics on port 9000 has drone_*
// metrics.
func TestHafAPINodeConfigServes(t *testing.T) {
	drone := readCompose(t, hafFile("drone.yaml"))["drone"]
	t.Setenv(rustLogEnv, composeDefault(t, drone.Environment["RUST_LOG"], "DRONE_LOG_LEVEL"))
	data, err := os.ReadFile(hafFile("drone/config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, metricsOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("metrics_enabled=%v", metricsOn), func(t *testing.T) {
			text := data
			if metricsOn {
				text = []byte(strings.Replace(string(data), "metrics_enabled: false", "metrics_enabled: true", 1))
			}
			cfg, err := config.Parse("config.yaml", text)
			if err != nil {
				t.Fatal(err)
			}
			backendNodes(t, cfg)
			if err := applyListen(cfg, "127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			cfg.Ops.AdminListen = ""
			var logs syncbuf.Buffer
			logger, err := newLogger(&logs, "json")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			addr, served := startServe(t, ctx, cfg, logger, serveOptions{})
			defer func() {
				cancel()
				if err := <-served; err != nil {
					t.Error(err)
				}
			}()
			base := "http://" + addr
			for _, path := range []string{"/", "/health"} {
				code, body := httpGet(t, base+path)
				var h struct {
					Status          string `json:"status"`
					OperatorMessage string `json:"operator_message"`
				}
				_ = json.Unmarshal([]byte(body), &h)
				if code != http.StatusOK || h.Status != "OK" || h.OperatorMessage != "Drone by Deathwing" {
					t.Errorf("GET %s: %d %s", path, code, body)
				}
			}
			for method, backend := range map[string]string{
				"condenser_api.get_dynamic_global_properties": "hived",
				"bridge.get_post":                                 "hivemind",
				"condenser_api.get_account_history":               "hafah",
				"condenser_api.broadcast_transaction_synchronous": "hived-sync",
				"call": "hived",
				"network_broadcast_api.broadcast_transaction_synchronous": "hived-sync",
			} {
				params := "[]"
				if method == "call" {
					params = `["database_api","get_dynamic_global_properties",{}]`
				}
				resp, err := http.Post(base+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want := `"result":"` + backend + `"`; !strings.Contains(string(body), want) {
					t.Errorf("%s: %s, want %s", method, body, want)
				}
			}
			code, body := httpGet(t, base+"/metrics")
			hasMetrics := strings.Contains(body, "\ndrone_requests_total{")
			if code != http.StatusOK || hasMetrics != metricsOn {
				t.Errorf("GET /metrics with metrics_enabled %v: %d, drone_requests_total %v", metricsOn, code, hasMetrics)
			}
			requests := 0
			for _, l := range jsonLines(logs.String()) {
				switch {
				case l["msg"] == accessLogMsg:
					requests++
				case l["level"] == "INFO" || l["level"] == "DEBUG":
					t.Errorf("RUST_LOG=%s logged an info line: %v", os.Getenv(rustLogEnv), l)
				}
			}
			if requests < 8 {
				t.Errorf("%d access log lines, want one per request (8 and GET /metrics):\n%s", requests, logs.String())
			}
		})
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
