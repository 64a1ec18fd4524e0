package main

import (
	"bytes"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestFixedGoMatchesGoMod(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^toolchain (go\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no toolchain line")
	}
	if string(m[1]) != fixedGo {
		t.Fatalf("go.mod's toolchain is %s, fixedGo is %s: keep them equal", m[1], fixedGo)
	}
}

func TestWarnOldToolchain(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		built string
		warn  bool
	}{
		{"go1.26.8", true},
		{"go1.25.3", true},
		{fixedGo, false},
		{"go1.27.0", false},
		{"devel go1.27-abcdef", false}, // not a release: nothing to compare
	}
	for _, tc := range testCases {
		var buf bytes.Buffer
		logger := slog.New(slog.NewTextHandler(&buf, nil))
		if got := warnOldToolchain(logger, tc.built); got != tc.warn {
			t.Errorf("%s: warned %v, want %v", tc.built, got, tc.warn)
		}
		if tc.warn && !strings.Contains(buf.String(), "GOTOOLCHAIN="+fixedGo) {
			t.Errorf("%s: the warning does not say how to rebuild: %s", tc.built, buf.String())
		}
		if !tc.warn && buf.Len() != 0 {
			t.Errorf("%s: logged %q", tc.built, buf.String())
		}
	}
}
