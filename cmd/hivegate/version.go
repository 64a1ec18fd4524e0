package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// buildCommit is the source revision the binary was built from, set by the
// container build (-ldflags "-X main.buildCommit=…"), where the Go
// toolchain sees no git checkout. Empty: the revision the toolchain
// stamped (debug.ReadBuildInfo), if any.
var buildCommit string

// versionCmd prints the version: "hivegate 0.1.0" and, on the lines after
// it, the commit, the Go release and the platform; with --short only the
// version (the container image is tagged with it).
func versionCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", "version [--short]", stderr)
	short := fs.Bool("short", false, "print only the version number (e.g. 0.1.0)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version takes no arguments, got %q", fs.Arg(0))
	}
	if *short {
		_, err := fmt.Fprintln(stdout, version)
		return err
	}
	_, err := fmt.Fprintf(stdout, "hivegate %s\ncommit: %s\ngo: %s\nplatform: %s/%s\n",
		version, commitOf(buildCommit, readBuildInfo()), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}

// readBuildInfo is debug.ReadBuildInfo's settings, nil when the binary has
// none.
func readBuildInfo() []debug.BuildSetting {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return bi.Settings
}

// commitOf names the source revision: the one set at link time, else the
// one the toolchain stamped (with "-dirty" for uncommitted changes), else
// "unknown".
func commitOf(linked string, settings []debug.BuildSetting) string {
	if linked != "" {
		return linked
	}
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "unknown"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}
