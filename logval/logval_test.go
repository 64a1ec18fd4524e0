package logval_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hivegate/hivegate/logval"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, in string
		n        int
		want     string
	}{
		{"short kept", "vote", 10, "vote"},
		{"exact kept", "vote,vote", 9, "vote,vote"},
		{"ascii cut", "vote,vote,vote", 9, "vote,vote…(+5 bytes)"},
		// "é" is two bytes: a cut inside it backs up to its start.
		{"rune not split", "aé", 2, "a…(+2 bytes)"},
		{"rune ends at n", "aé", 3, "aé"},
		{"four-byte rune", "ab😀cd", 4, "ab…(+6 bytes)"},
		{"zero", "abc", 0, "…(+3 bytes)"},
		{"not UTF-8 cut at n", "a\x80\x80\x80\x80\x80", 3, "a\x80\x80…(+3 bytes)"},
	}
	for _, tc := range testCases {
		if got := logval.Truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("%s: Truncate(%q, %d) = %q, want %q", tc.name, tc.in, tc.n, got, tc.want)
		}
	}
	long := strings.Repeat("ü", 1000) // 2,000 bytes
	got := logval.Bound(long)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, " bytes)") || len(got) > logval.MaxValueBytes+len("…(+99999 bytes)") {
		t.Errorf("Bound of 2,000 bytes of ü: %d bytes, valid UTF-8 %v: %q…", len(got), utf8.ValidString(got), got[:40])
	}
}

// stringer is a fmt.Stringer with a long text.
type stringer struct{ n int }

func (s stringer) String() string { return strings.Repeat("s", s.n) }

// TestHandler logs long values of every kind through the bounding handler
// into a JSON handler: each comes out bounded and marked, short values come
// out as they were (numbers stay numbers), and no line is longer than its
// values' bounds.
func TestHandler(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(logval.NewHandler(slog.NewJSONHandler(&buf, nil)))
	huge := strings.Repeat("vote,", 8000) // the 8,000-operation broadcast: 40 KB
	log = log.With("fixed", huge)
	log.Info(huge, "ops", huge, "err", errors.New(huge), "stringer", stringer{50_000},
		"struct", struct{ S []string }{[]string{huge}}, "bytes", []byte(huge),
		slog.Group("g", "inner", huge, "n", 7), "count", 8000, "short", "ok")
	line := buf.Bytes()
	if len(line) > 12*(logval.MaxValueBytes+40) {
		t.Errorf("log line of %d bytes, want at most %d", len(line), 12*(logval.MaxValueBytes+40))
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, line)
	}
	for _, k := range []string{"msg", "fixed", "ops", "err", "stringer", "struct", "bytes"} {
		s, _ := m[k].(string)
		if len(s) > logval.MaxValueBytes+len("…(+99999 bytes)") || !strings.Contains(s, "…(+") {
			t.Errorf("%s: %d bytes %q, want bounded and marked", k, len(s), s[:min(len(s), 40)])
		}
	}
	if g, _ := m["g"].(map[string]any); g == nil || !strings.Contains(g["inner"].(string), "…(+") || g["n"] != float64(7) {
		t.Errorf("group: %v, want inner bounded and n 7", m["g"])
	}
	if m["count"] != float64(8000) || m["short"] != "ok" {
		t.Errorf("count %v short %v: short values must pass as they are", m["count"], m["short"])
	}
	if logval.NewHandler(log.Handler()) != log.Handler() || logval.NewLogger(log) != log {
		t.Error("wrapping twice made a second handler")
	}
}

// TestHandlerPassesShortRecords shows that a record with nothing to cut
// reaches the next handler as it is.
func TestHandlerPassesShortRecords(t *testing.T) {
	t.Parallel()
	var plain, bounded bytes.Buffer
	opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	args := []any{"backend", "hived", "node", 0, "err", errors.New("refused"), "ok", true}
	slog.New(slog.NewJSONHandler(&plain, opts)).Warn("backend down", args...)
	slog.New(logval.NewHandler(slog.NewJSONHandler(&bounded, opts))).Warn("backend down", args...)
	if plain.String() != bounded.String() {
		t.Errorf("bounded %s, plain %s", bounded.Bytes(), plain.Bytes())
	}
}
