package config_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

// TestTTLSpellings loads every TTL spelling in both formats.
func TestTTLSpellings(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		yaml, json string // the value as written in each format
		want       config.TTL
		str        string
	}{
		{"3", "3", config.TTL{Kind: config.TTLSeconds, Seconds: 3}, "3"},
		{"86400", "86400", config.TTL{Kind: config.TTLSeconds, Seconds: 86400}, "86400"},
		{"'30'", `"30"`, config.TTL{Kind: config.TTLSeconds, Seconds: 30}, "30"}, // quoted integers
		{"NO_CACHE", `"NO_CACHE"`, config.TTL{Kind: config.TTLNoCache}, "NO_CACHE"},
		{"NO_EXPIRE", `"NO_EXPIRE"`, config.TTL{Kind: config.TTLNoExpire}, "NO_EXPIRE"},
		{"EXPIRE_IF_REVERSIBLE", `"EXPIRE_IF_REVERSIBLE"`, config.TTL{Kind: config.TTLExpireIfReversible}, "EXPIRE_IF_REVERSIBLE"},
		{"0", "0", config.TTL{Kind: config.TTLNoExpire}, "NO_EXPIRE"},
		{"-1", "-1", config.TTL{Kind: config.TTLNoCache}, "NO_CACHE"},
		{"-2", "-2", config.TTL{Kind: config.TTLExpireIfReversible}, "EXPIRE_IF_REVERSIBLE"},
	}
	for _, tc := range testCases {
		t.Run(tc.yaml, func(t *testing.T) {
			t.Parallel()
			y := mustParse(t, "t.yaml", minimal+"ttls:\n  hived: "+tc.yaml+"\n")
			j := mustParse(t, "t.json", `{"upstreams": [{"name": "hived", "urls": [["hived", "http://h"]], "ttls": [["hived", `+tc.json+`]]}]}`)
			for _, cfg := range []*config.Config{y, j} {
				if len(cfg.TTLs) != 1 {
					t.Fatalf("%s: %d TTLs, want 1", cfg.Source, len(cfg.TTLs))
				}
				got := cfg.TTLs[0]
				if got.Key != "hived" || got.Value != tc.want {
					t.Errorf("%s: TTL = %+v, want hived %+v", cfg.Source, got, tc.want)
				}
				if got.Value.String() != tc.str {
					t.Errorf("%s: String() = %q, want %q", cfg.Source, got.Value.String(), tc.str)
				}
			}
		})
	}
}

// TestTTLDuration checks the lifetime of seconds TTLs.
func TestTTLDuration(t *testing.T) {
	t.Parallel()
	if d := (config.TTL{Kind: config.TTLSeconds, Seconds: 30}).Duration(); d != 30*time.Second {
		t.Errorf("Duration() = %v, want 30s", d)
	}
	var zero config.TTL
	if zero.Kind != config.TTLNoCache || zero.String() != "NO_CACHE" {
		t.Errorf("zero TTL = %+v %q, want NO_CACHE", zero, zero)
	}
}

// TestTimeoutsAndRetries loads the whole range of timeouts and retries in
// both formats.
func TestTimeoutsAndRetries(t *testing.T) {
	t.Parallel()
	for _, secs := range []int{0, 1, 30, config.MaxTimeoutSeconds} {
		for r := range config.MaxRetries + 1 {
			y := mustParse(t, "t.yaml", minimal+fmt.Sprintf("timeouts:\n  hived: %d\nretries:\n  hived: %d\n", secs, r))
			j := mustParse(t, "t.json", fmt.Sprintf(`{"upstreams": [{"name": "hived", "urls": [["hived", "http://h"]], "timeouts": [["hived", %d]], "retries": [["hived", %d]]}]}`, secs, r))
			for _, cfg := range []*config.Config{y, j} {
				if got := cfg.Timeouts[0].Value; got != time.Duration(secs)*time.Second {
					t.Errorf("%s: timeout %d = %v", cfg.Source, secs, got)
				}
				if got := cfg.Retries[0].Value; got != r {
					t.Errorf("%s: retries %d = %d", cfg.Source, r, got)
				}
			}
		}
	}
}

func mustParse(t *testing.T, name, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse(name, []byte(text))
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return cfg
}
