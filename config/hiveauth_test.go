package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
)

// TestAuthHiveAuthRelay: auth.hiveauth_relay is off by default, takes a
// wss URL or a loopback ws URL, and refuses anything else naming file,
// line and key.
func TestAuthHiveAuthRelay(t *testing.T) {
	t.Parallel()
	if cfg := mustParse(t, "a.yaml", authYAML("")); cfg.Auth.HiveAuthRelay != "" {
		t.Errorf("default %q, want off", cfg.Auth.HiveAuthRelay)
	}
	for _, ok := range []string{"wss://hive-auth.arcange.eu", "wss://has.example/ws", "ws://127.0.0.1:7001", "ws://localhost:7001/"} {
		if cfg := mustParse(t, "a.yaml", authYAML("  hiveauth_relay: "+ok+"\n")); cfg.Auth.HiveAuthRelay != ok {
			t.Errorf("%s loaded as %q", ok, cfg.Auth.HiveAuthRelay)
		}
	}
	for _, bad := range []struct{ v, want string }{
		{"ws://has.example", "want wss://"},
		{"https://hive-auth.arcange.eu", "want wss://"},
		{"hive-auth.arcange.eu", "WebSocket URL"},
		{"wss://has.example/?x=1", "WebSocket URL"},
		{"[wss://a]", "want a string"},
	} {
		_, err := config.Parse("a.yaml", []byte(authYAML("  hiveauth_relay: "+bad.v+"\n")))
		var ce *config.Error
		if !errors.As(err, &ce) || ce.Key != "auth.hiveauth_relay" || ce.Pos.Line != 9 || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "a.yaml") {
			t.Errorf("%s: error %v, want a.yaml line 9 auth.hiveauth_relay saying %q", bad.v, err, bad.want)
		}
	}
}
