package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
)

// TestStreamDefaults: streams are on, with the documented bounds, when the
// section is absent or empty.
func TestStreamDefaults(t *testing.T) {
	t.Parallel()
	for _, text := range []string{minimal, minimal + "streams:\n", minimal + "streams: {}\n"} {
		s := mustParse(t, "s.yaml", text).Streams
		if !s.Enabled || s.MaxSubscribers != 10000 || s.Buffer != 100 || s.Window != 1200 ||
			s.BlockInterval != 3*time.Second || s.SendTimeout != 30*time.Second || s.WSMaxSubscriptions != 10 || s.HistoryRate != 100 {
			t.Errorf("%q: defaults %+v", text, s)
		}
	}
}

// TestStreamKeys shows that every streams key changes the loaded value.
func TestStreamKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line  string
		check func(config.StreamSettings) bool
	}{
		{"enabled: false", func(s config.StreamSettings) bool { return !s.Enabled }},
		{"max_subscribers: 5", func(s config.StreamSettings) bool { return s.MaxSubscribers == 5 }},
		{"buffer: 7", func(s config.StreamSettings) bool { return s.Buffer == 7 }},
		{"window: 50", func(s config.StreamSettings) bool { return s.Window == 50 && s.Buffer == 50 }},
		{"block_interval: 500ms", func(s config.StreamSettings) bool { return s.BlockInterval == 500*time.Millisecond }},
		{"block_interval: 2", func(s config.StreamSettings) bool { return s.BlockInterval == 2*time.Second }},
		{"send_timeout: 5", func(s config.StreamSettings) bool { return s.SendTimeout == 5*time.Second }},
		{"ws_max_subscriptions: 3", func(s config.StreamSettings) bool { return s.WSMaxSubscriptions == 3 }},
		{"block_wait: 0", func(s config.StreamSettings) bool { return s.BlockWait == 0 }},
		{"block_wait: 5", func(s config.StreamSettings) bool { return s.BlockWait == 5 }},
		{"history_rate: 20", func(s config.StreamSettings) bool { return s.HistoryRate == 20 }},
	} {
		cfg := mustParse(t, "s.yaml", minimal+"streams:\n  "+tc.line+"\n")
		if !tc.check(cfg.Streams) {
			t.Errorf("%s: %+v", tc.line, cfg.Streams)
		}
	}
}

// TestStreamErrors: a wrong value names the file, the line and the key.
func TestStreamErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lines, want string }{
		{"  enabled: yes please\n", "s.yaml:6: streams.enabled: want true or false"},
		{"  max_subscribers: 0\n", "s.yaml:6: streams.max_subscribers: max_subscribers 0 out of range 1..1000000"},
		{"  buffer: 0\n", "s.yaml:6: streams.buffer: buffer 0 out of range"},
		{"  window: 5\n", "s.yaml:6: streams.window: window 5 out of range 10..100000"},
		{"  window: 20\n  buffer: 30\n", "s.yaml:7: streams.buffer: buffer 30 is larger than streams.window (20)"},
		{"  block_interval: 10ms\n", "s.yaml:6: streams.block_interval: 10ms out of range"},
		{"  send_timeout: forever\n", "s.yaml:6: streams.send_timeout: want seconds or a duration"},
		{"  ws_max_subscriptions: 0\n", "s.yaml:6: streams.ws_max_subscriptions: ws_max_subscriptions 0 out of range"},
		{"  block_wait: -1\n", "s.yaml:6: streams.block_wait: block_wait -1 out of range 0..1200"},
		{"  history_rate: 0\n", "s.yaml:6: streams.history_rate: history_rate 0 out of range 1..100000"},
		{"  max_subscriber: 5\n", "s.yaml:6: streams.max_subscriber: unknown key"},
	} {
		_, err := config.Parse("s.yaml", []byte(minimal+"streams:\n"+tc.lines))
		var ce *config.Error
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want *config.Error containing %q", tc.lines, err, tc.want)
		}
	}
}
