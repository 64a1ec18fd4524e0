package main

import (
	"bytes"
	"log"
	"strings"
	"testing"
)

// TestLoggerBoundsValues shows the process's logger, and the standard log
// package it becomes the default of (net/http's error log), cutting long
// values in both formats. Not parallel: newLogger sets slog's default, as
// serve does.
func TestLoggerBoundsValues(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		logger, err := newLogger(&buf, format)
		if err != nil {
			t.Fatal(err)
		}
		huge := strings.Repeat("vote,", 8000)
		logger.Info("auth: broadcast", "operations", huge)
		log.Print("http: " + huge)
		for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
			if len(line) > 1<<10 || !strings.Contains(line, "…(+") {
				t.Errorf("%s: a line of %d bytes: %.120s…", format, len(line), line)
			}
		}
	}
}
