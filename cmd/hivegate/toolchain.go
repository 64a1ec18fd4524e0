package main

import (
	goversion "go/version"
	"log/slog"
	"runtime"
)

// fixedGo is the first Go release without the standard library
// vulnerabilities that govulncheck reports for hivegate's code; go.mod's
// toolchain line names it (a test keeps the two equal). A machine with
// GOTOOLCHAIN=local builds with its own Go, possibly an older one, so
// serve and demo say so at start.
const fixedGo = "go1.26.11"

// warnOldToolchain logs a warning when the running binary was built with a
// Go release older than fixedGo.
func warnOldToolchain(logger *slog.Logger, built string) bool {
	if !goversion.IsValid(built) || goversion.Compare(built, fixedGo) >= 0 {
		return false
	}
	logger.Warn("built with a Go release that has known vulnerabilities in net/http and crypto/tls; rebuild with GOTOOLCHAIN="+fixedGo,
		"built_with", built, "fixed_in", fixedGo)
	return true
}

// runtimeVersion is the Go release the binary was built with.
func runtimeVersion() string { return runtime.Version() }
