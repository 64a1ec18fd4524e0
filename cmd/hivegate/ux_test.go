package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/internal/syncbuf"
)

// TestHelpListsEveryFlag runs every command with -h and --help: each exits
// 0 and prints its usage line and every flag it takes.
func TestHelpListsEveryFlag(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		args  []string
		usage string
		flags []string
	}{
		{[]string{"serve"}, "Usage: hivegate serve", []string{"config", "node-url", "listen", "log-format", "ui"}},
		{[]string{"demo"}, "Usage: hivegate demo", []string{"listen", "admin-listen", "seed", "log-format"}},
		{[]string{"route"}, "Usage: hivegate route", []string{"config", "node-url"}},
		{[]string{"version"}, "Usage: hivegate version", []string{"short"}},
		{[]string{"config", "check"}, "Usage: hivegate config check FILE", nil},
		{[]string{"config", "default"}, "Usage: hivegate config default [--node-url URL]", nil},
		{[]string{"config"}, "Usage: hivegate config check FILE | hivegate config default", nil},
	}
	for _, tc := range testCases {
		for _, h := range []string{"-h", "--help", "-help"} {
			name := strings.Join(append(tc.args, h), " ")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				stdout, stderr, code := runCmd(t, append(append([]string(nil), tc.args...), h)...)
				if code != 0 {
					t.Errorf("hivegate %s exited %d, want 0; stderr:\n%s", name, code, stderr)
				}
				help := stdout + stderr
				if !strings.Contains(help, tc.usage) {
					t.Errorf("hivegate %s does not print %q:\n%s", name, tc.usage, help)
				}
				for _, f := range tc.flags {
					if !regexp.MustCompile(`(?m)^  -` + regexp.QuoteMeta(f) + `\b`).MatchString(help) {
						t.Errorf("hivegate %s does not list -%s:\n%s", name, f, help)
					}
				}
				if strings.Contains(help, "hivegate: ") {
					t.Errorf("hivegate %s reports an error:\n%s", name, help)
				}
			})
		}
	}
	// A bad flag is still an error, with the flags listed.
	_, stderr, code := runCmd(t, "serve", "--bogus")
	if code == 0 || !strings.Contains(stderr, "flag provided but not defined: -bogus") || !strings.Contains(stderr, "  -listen") {
		t.Errorf("serve --bogus: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestVersionCommand checks `hivegate version`: the version, the commit,
// the Go release and the platform; --short prints the version alone (the
// image's tag).
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runCmd(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "hivegate "+version+"\ncommit: ") || !strings.Contains(stdout, "\ngo: go1.") {
		t.Errorf("version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = runCmd(t, "version", "--short")
	if code != 0 || stdout != version+"\n" {
		t.Errorf("version --short: exit %d, %q; want %q", code, stdout, version+"\n")
	}
	if _, _, code := runCmd(t, "version", "extra"); code == 0 {
		t.Error("version extra: exit 0, want an error")
	}
	testCases := []struct {
		linked   string
		settings []debug.BuildSetting
		want     string
	}{
		{"abc123", []debug.BuildSetting{{Key: "vcs.revision", Value: "def"}}, "abc123"},
		{"", []debug.BuildSetting{{Key: "vcs.revision", Value: "def"}, {Key: "vcs.modified", Value: "false"}}, "def"},
		{"", []debug.BuildSetting{{Key: "vcs.revision", Value: "def"}, {Key: "vcs.modified", Value: "true"}}, "def-dirty"},
		{"", nil, "unknown"},
	}
	for _, tc := range testCases {
		if got := commitOf(tc.linked, tc.settings); got != tc.want {
			t.Errorf("commitOf(%q, %v) = %q, want %q", tc.linked, tc.settings, got, tc.want)
		}
	}
}

// TestConfigCheckNamesEveryKey runs `config check` on haf_api_node's real
// drone/config.yaml, whose translate_to_appbase: [hived] makes every key
// under hived dead: a warning names each of them, at its line.
func TestConfigCheckNamesEveryKey(t *testing.T) {
	t.Parallel()
	file := hafFile("drone/config.yaml")
	_, stderr, code := runCmd(t, "config", "check", file)
	if code != 0 {
		t.Fatalf("config check exit %d:\n%s", code, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	n := 0
	for i := 0; i+1 < len(root.Content); i += 2 {
		section, body := root.Content[i].Value, root.Content[i+1]
		if section != "urls" && section != "ttls" && section != "timeouts" && section != "retries" {
			continue
		}
		for j := 0; j+1 < len(body.Content); j += 2 {
			k := body.Content[j]
			if k.Value != "hived" && !strings.HasPrefix(k.Value, "hived.") {
				continue
			}
			n++
			want := fmt.Sprintf("warning: %s:%d: %s.%s never matches: hived is in translate_to_appbase", file, k.Line, section, k.Value)
			if !strings.Contains(stderr, want+",") {
				t.Errorf("config check does not say %q:\n%s", want, stderr)
			}
		}
	}
	if n < 10 {
		t.Fatalf("found %d keys under hived in %s, want the config's 21", n, file)
	}
	if got := strings.Count(stderr, "never matches: hived is in translate_to_appbase"); got != n {
		t.Errorf("%d warnings about keys under hived, want one per key (%d)", got, n)
	}
}

// TestStartupLogNamesConfigRead checks the config=… of the "hivegate
// listening" log line: the file serve read (from --config or
// HIVEGATE_CONFIG), or a name in parentheses for a config that is no file
// (the demo's, the embedded default), never a file name that does not
// exist.
func TestStartupLogNamesConfigRead(t *testing.T) {
	node := reloadNode(t)
	file := filepath.Join(t.TempDir(), "gw.yaml")
	if err := os.WriteFile(file, []byte(reloadYAML(node.URL, "3")), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(config.NodeURLEnv, "")
	testCases := []struct {
		name string
		env  string // HIVEGATE_CONFIG
		args []string
		want string
	}{
		{"--config", "", []string{"serve", "--config", file, "--listen", "127.0.0.1:0"}, file},
		{"HIVEGATE_CONFIG", file, []string{"serve", "--listen", "127.0.0.1:0"}, file},
		{"HIVEGATE_CONFIG absent, node URL", filepath.Join(t.TempDir(), "none.yaml"), []string{"serve", "--node-url", node.URL, "--listen", "127.0.0.1:0"}, config.DefaultSource},
		{"demo", "", []string{"demo", "--listen", "127.0.0.1:0"}, demoConfigSource},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(configEnv, tc.env)
			t.Setenv(rustLogEnv, "")
			src := startupConfig(t, append(tc.args, "--log-format", "json"))
			if src != tc.want {
				t.Errorf("config=%q, want %q", src, tc.want)
			}
			if !strings.HasPrefix(src, "(") {
				if _, err := os.Stat(src); err != nil {
					t.Errorf("the start-up log names config=%q, which is no file: %v", src, err)
				}
			}
		})
	}
}

// startupConfig runs hivegate with args until its main listener is up and
// returns the config=… of its "hivegate listening" line.
func startupConfig(t *testing.T, args []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, io.Discard, &stderr) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("hivegate did not stop")
		}
	}()
	var src string
	waitFor(t, "the main listener", func() bool {
		src = logField(stderr.String(), "hivegate listening", "main", "config")
		return src != ""
	})
	return src
}

// TestLoadDefaultConfig checks the config serve reads without --config:
// HIVEGATE_CONFIG's file when it exists (the image's /config.yaml), else
// the embedded default when a node URL is given, else an error that names
// the missing file and the missing URL.
func TestLoadDefaultConfig(t *testing.T) {
	t.Setenv(config.NodeURLEnv, "")
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte(reloadYAML("http://127.0.0.1:1", "3")), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	testCases := []struct {
		name, nodeURL, env string
		source, err        string
	}{
		{"no HIVEGATE_CONFIG", "http://127.0.0.1:1", "", config.DefaultSource, ""},
		{"no HIVEGATE_CONFIG, no node URL", "", "", "", "no config file and no node URL"},
		{"file exists", "", file, file, ""},
		{"file exists, node URL too", "http://127.0.0.1:1", file, file, ""},
		{"file missing, node URL", "http://127.0.0.1:1", missing, config.DefaultSource, ""},
		{"file missing, no node URL", "", missing, "", "no config: HIVEGATE_CONFIG names " + missing + ", which does not exist (mount a config file there), and no --node-url or HIVEGATE_NODE_URL"},
		{"not readable as a directory entry", "", filepath.Join(file, "x"), "", "HIVEGATE_CONFIG=" + filepath.Join(file, "x")},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadDefaultConfig(tc.nodeURL, tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Source != tc.source {
				t.Errorf("source %q, want %q", cfg.Source, tc.source)
			}
		})
	}
}

// jsonLines decodes the JSON log lines of logs.
func jsonLines(logs string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(logs, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}
