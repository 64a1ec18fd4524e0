package main

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

// TestRustLogLevels maps RUST_LOG values (env_logger's syntax, which Drone
// reads and haf_api_node sets) to the levels of hivegate's own logs and of
// its access log.
func TestRustLogLevels(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		spec         string
		base, access slog.Level
		ignored      []string
	}{
		{"", slog.LevelInfo, slog.LevelInfo, nil},
		{"info", slog.LevelInfo, slog.LevelInfo, nil},
		{"warn", slog.LevelWarn, slog.LevelWarn, nil},
		{"WARN", slog.LevelWarn, slog.LevelWarn, nil},
		{"error", slog.LevelError, slog.LevelError, nil},
		{"debug", slog.LevelDebug, slog.LevelDebug, nil},
		{"trace", levelTrace, levelTrace, nil},
		{"off", levelOff, levelOff, nil},
		// haf_api_node's default (drone.yaml, DRONE_LOG_LEVEL).
		{"warn,access_log=info", slog.LevelWarn, slog.LevelInfo, nil},
		{"drone=debug,actix=info", slog.LevelDebug, levelOff, []string{"actix=info"}},
		{"drone::proxy=debug", slog.LevelDebug, levelOff, nil},
		{"info,hivegate=warn,access_log=off", slog.LevelWarn, levelOff, nil},
		{"access_log", slog.LevelError, levelTrace, nil},
		{"actix_web=info", slog.LevelError, levelOff, []string{"actix_web=info"}},
		{"warn,drone=loud", slog.LevelWarn, slog.LevelWarn, []string{"drone=loud"}},
		{" info , access_log=warn ", slog.LevelInfo, slog.LevelWarn, nil},
		{"info/foo", slog.LevelInfo, slog.LevelInfo, []string{"/foo"}},
	}
	for _, tc := range testCases {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			got := rustLogLevels(tc.spec)
			if got.base != tc.base || got.access != tc.access || !slices.Equal(got.ignored, tc.ignored) {
				t.Errorf("rustLogLevels(%q) = base %v, access %v, ignored %q; want %v, %v, %q",
					tc.spec, got.base, got.access, got.ignored, tc.base, tc.access, tc.ignored)
			}
		})
	}
}

// TestRustLogFilters checks the handler newLogger builds from RUST_LOG:
// each record is kept or dropped by its own level, the access log's
// (msg=request) or the base one.
func TestRustLogFilters(t *testing.T) {
	testCases := []struct {
		spec       string
		want, drop []string // messages logged / not logged
	}{
		{"warn,access_log=info", []string{"request", "a warning"}, []string{"started", "detail"}},
		{"warn", []string{"a warning"}, []string{"request", "started", "detail"}},
		{"debug,access_log=off", []string{"started", "detail", "a warning"}, []string{"request"}},
		{"", []string{"request", "started", "a warning"}, []string{"detail"}},
		{"actix=debug", []string{"failed", `"RUST_LOG directives ignored`}, []string{"request", "started", "a warning", "detail"}},
	}
	for _, tc := range testCases {
		t.Run(tc.spec, func(t *testing.T) {
			t.Setenv(rustLogEnv, tc.spec)
			var buf bytes.Buffer
			logger, err := newLogger(&buf, "text")
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if logger.Enabled(ctx, slog.LevelInfo) {
				logger.LogAttrs(ctx, slog.LevelInfo, accessLogMsg, slog.String("status", "200"))
			}
			logger.Info("started")
			logger.Debug("detail")
			logger.Warn("a warning")
			logger.Error("failed")
			out := buf.String()
			for _, m := range tc.want {
				if !strings.Contains(out, "msg="+quoteMsg(m)) {
					t.Errorf("RUST_LOG=%q: %q not logged:\n%s", tc.spec, m, out)
				}
			}
			for _, m := range tc.drop {
				if strings.Contains(out, "msg="+quoteMsg(m)) {
					t.Errorf("RUST_LOG=%q: %q logged:\n%s", tc.spec, m, out)
				}
			}
		})
	}
}

// quoteMsg is how slog's text handler writes a message (m starting with
// a quote: its beginning, already quoted).
func quoteMsg(m string) string {
	if strings.Contains(m, " ") && !strings.HasPrefix(m, `"`) {
		return `"` + m + `"`
	}
	return m
}
