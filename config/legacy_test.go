package config_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

// TestLegacyDefaultNamespace checks that a legacy config's bare methods
// belong to steemd when it has a steemd upstream, and to hived otherwise.
func TestLegacyDefaultNamespace(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		upstreams string
		want      string
	}{
		{`{"name": "steemd", "urls": [["steemd", "http://h"]]}`, "steemd"},
		{`{"name": "appbase", "urls": [["appbase", "http://h"]]}, {"name": "steemd"}`, "steemd"},
		{`{"name": "hived", "urls": [["hived", "http://h"]]}`, "hived"},
		{`{"name": "appbase", "urls": [["appbase", "http://h"]]}`, "hived"},
	}
	for _, tc := range testCases {
		cfg := mustParse(t, "n.json", `{"upstreams": [`+tc.upstreams+`]}`)
		if cfg.DefaultNamespace != tc.want {
			t.Errorf("upstreams %s: default namespace %q, want %q", tc.upstreams, cfg.DefaultNamespace, tc.want)
		}
	}
}

// TestLegacyBackends checks that each distinct legacy URL becomes one backend
// named after the first key routed to it (never after its address), and that
// both pair spellings load.
func TestLegacyBackends(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, "b.json", `{"upstreams": [
  {"name": "steemd", "translate_to_appbase": false,
   "urls": [["steemd", "https://node.example"], {"prefix": "steemd.database_api.get_block", "upstream_url": "https://node.example:8443"}],
   "ttls": [{"prefix": "steemd", "upstream_ttl": 3}],
   "timeouts": [{"prefix": "steemd", "upstream_timeout": 5}],
   "retries": [{"prefix": "steemd", "upstream_retries": 1}]},
  {"name": "appbase", "translate_to_appbase": true,
   "urls": [["appbase", "https://node.example"], ["appbase.block_api", "http://node.example/history"]]}
]}`)
	want := []config.Backend{
		{Name: "steemd", URL: "https://node.example", Pos: config.Pos{File: "b.json", Line: 3}},
		{Name: "steemd.database_api.get_block", URL: "https://node.example:8443", Pos: config.Pos{File: "b.json", Line: 3}},
		{Name: "appbase.block_api", URL: "http://node.example/history", Pos: config.Pos{File: "b.json", Line: 8}},
	}
	if !reflect.DeepEqual(cfg.Backends, want) {
		t.Errorf("backends\n got %+v\nwant %+v", cfg.Backends, want)
	}
	wantURLs := []string{"steemd=steemd", "steemd.database_api.get_block=steemd.database_api.get_block", "appbase=steemd", "appbase.block_api=appbase.block_api"}
	var got []string
	for _, u := range cfg.URLs {
		got = append(got, u.Key+"="+u.Value)
	}
	if !slices.Equal(got, wantURLs) {
		t.Errorf("urls %q, want %q", got, wantURLs)
	}
	if len(cfg.TTLs) != 1 || cfg.TTLs[0].Value.Seconds != 3 || len(cfg.Timeouts) != 1 || cfg.Timeouts[0].Value != 5*time.Second || len(cfg.Retries) != 1 || cfg.Retries[0].Value != 1 {
		t.Errorf("prefix objects: ttls %+v timeouts %+v retries %+v", cfg.TTLs, cfg.Timeouts, cfg.Retries)
	}
	// translate_to_appbase on appbase itself is recorded (and is a no-op in the router).
	if !slices.Equal(cfg.TranslateToAppbase, []string{"appbase"}) {
		t.Errorf("TranslateToAppbase = %q", cfg.TranslateToAppbase)
	}
}

// TestTestdataDrone loads the Drone config.yaml as Drone's users write it.
func TestTestdataDrone(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load("testdata/drone.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wantSettings := config.Settings{
		Hostname: "0.0.0.0", Port: 8999, CacheMaxCapacity: 4294967296,
		OperatorMessage:             "Drone test node, operated by the hivegate tests",
		MiddlewareConnectionThreads: 16, LIBPollInterval: config.DefaultLIBPollInterval,
		NodeFailThreshold: config.DefaultNodeFailThreshold, NodeMaxLagBlocks: config.DefaultNodeMaxLagBlocks,
		NodeMaxHeadAge: config.DefaultNodeMaxHeadAge, NodeMaxSyncAge: config.DefaultNodeMaxSyncAge,
		CompressMinBytes: config.DefaultCompressMinBytes,
	}
	if !reflect.DeepEqual(cfg.Settings, wantSettings) {
		t.Errorf("settings %+v, want %+v", cfg.Settings, wantSettings)
	}
	if cfg.Listen() != "0.0.0.0:8999" {
		t.Errorf("Listen() = %q", cfg.Listen())
	}
	var names []string
	for _, b := range cfg.Backends {
		names = append(names, b.Name)
	}
	if !slices.Equal(names, []string{"hived", "hivemind", "hafah", "hived-sync"}) {
		t.Errorf("backends %q", names)
	}
	if !slices.Equal(cfg.TranslateToAppbase, []string{"hived"}) || cfg.DefaultNamespace != "hived" {
		t.Errorf("translate %q, default namespace %q", cfg.TranslateToAppbase, cfg.DefaultNamespace)
	}
	wantWarnings := []string{
		"testdata/drone.yaml:12: drone.access_log_format: hivegate writes its access log in the format of its other logs (--log-format text or json), one msg=request line per request",
		"testdata/drone.yaml:28: equivalent_methods.condenser_api.get_block: source \"block_api.get_block\" never matches: a call to block_api.get_block is keyed appbase.block_api.get_block (write that)",
		"testdata/drone.yaml:31: urls.hived never matches: hived is in translate_to_appbase, so its calls are keyed appbase.condenser_api.<method>",
		"testdata/drone.yaml:57: ttls.hived never matches: hived is in translate_to_appbase, so its calls are keyed appbase.condenser_api.<method>",
		"testdata/drone.yaml:79: timeouts.hived never matches: hived is in translate_to_appbase, so its calls are keyed appbase.condenser_api.<method>",
	}
	if !slices.Equal(cfg.Warnings, wantWarnings) {
		t.Errorf("warnings:\n%q\nwant\n%q", cfg.Warnings, wantWarnings)
	}
}

// TestTestdataJussi loads the jussi config.json.
func TestTestdataJussi(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load("testdata/jussi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Limits.BlacklistAccounts, []string{"spammer-one", "spammer-two"}) {
		t.Errorf("blacklist %q", cfg.Limits.BlacklistAccounts)
	}
	if cfg.DefaultNamespace != "steemd" || !slices.Equal(cfg.TranslateToAppbase, []string{"steemd"}) {
		t.Errorf("default namespace %q, translate %q", cfg.DefaultNamespace, cfg.TranslateToAppbase)
	}
	want := map[string]string{
		"steemd":                              "https://steemd.example.com",
		"appbase":                             "https://appbase.example.com",
		"appbase.condenser_api.get_followers": "https://hivemind.example.com",
		"appbase.condenser_api.get_account_history": "https://history.example.com",
		"overseer": "https://overseer.example.com",
	}
	if got := cfg.BackendMap(); len(got) != len(want) {
		t.Errorf("backends %v, want %v", got, want)
	} else {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("backend %s = %q, want %q", k, got[k], v)
			}
		}
	}
	// One warning per steemd key, naming it (steemd is translated).
	var keys []string
	for _, w := range cfg.Warnings {
		if _, rest, ok := strings.Cut(w, ": "); ok {
			k, _, _ := strings.Cut(rest, " never matches: steemd is in translate_to_appbase")
			keys = append(keys, k)
		}
	}
	wantKeys := []string{
		"urls.steemd", "ttls.steemd", "ttls.steemd.login_api", "ttls.steemd.network_broadcast_api",
		"ttls.steemd.database_api.get_block", "timeouts.steemd", "timeouts.steemd.network_broadcast_api",
		"retries.steemd", "retries.steemd.network_broadcast_api",
	}
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("warnings %q name keys %q, want %q", cfg.Warnings, keys, wantKeys)
	}
}
