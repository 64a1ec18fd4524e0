package layers_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hivegate/hivegate/"

// layer is each package's place, from the bottom: a package may import
// packages of lower layers only, or those listed in siblings. A package
// missing here fails the test, so that a new package is placed on purpose.
var layer = map[string]int{
	// Leaves: the config model, the one JSON package, the static browser
	// page, the bound on logged values, the client address behind trusted
	// proxies.
	"config": 0, "jsonwire": 0, "web": 0, "logval": 0, "clientip": 0,
	// Vocabulary and routing: JSON-RPC types and errors, method keys; Hive's
	// transaction format and the accounts its operations name (read with
	// jsonwire).
	"router": 1, "jsonrpc": 1, "hivetx": 1,
	// The HiveAuth protocol's messages, encryption and relay client.
	"auth/has": 1,
	// The cache and the upstream pool; the front door every front end
	// stands behind (overload, per-client caps, rate, body read-ahead).
	// The simulated node (it builds on hivetx) ships with demo but stands
	// beside the gateway.
	"cache": 2, "backend": 2, "guard": 2, "hivesim": 2, "quota": 2,
	// The simulated HiveAuth relay and wallet (tests and demo).
	"hivesim/hassim": 2,
	// The one path every call takes; the metrics registry.
	"dispatch": 3, "metrics": 3,
	// Front ends: JSON-RPC over HTTP, Connect (with its codec and schema),
	// the app authorization service: the OAuth 2 server, the call policy
	// that checks its tokens, and the signer that broadcasts for its users.
	"jsonrpchttp": 4, "server": 4, "server/transcode": 4, "server/schema": 4,
	"auth": 4, "callpolicy": 4, "signer": 4,
	// The block and operation streams: a chain follower and its front ends
	// (Connect, SSE, WebSocket); like a front end it reads the chain
	// through the dispatcher only.
	"stream": 4,
	// The assembly of a running gateway.
	"gateway": 5,
	// Commands, examples, benchmarks and test helpers: they may use anything.
	"cmd/hivegate": 6, "examples/goclient": 6,
	"bench/cmd/benchload": 6, "bench/cmd/benchserver": 6,
	"bench/fakenode": 6, "bench/loadgen": 6,
	"internal/calltest": 6, "internal/faults": 6, "internal/fixtures": 6, "internal/layers": 6,
	"internal/redistest": 6, "internal/soak": 6, "internal/syncbuf": 6,
}

// siblings are the imports allowed within one layer.
var siblings = map[string][]string{
	"server": {"server/transcode", "server/schema"},
	// The OAuth server hands broadcasts (and its login's account reads) to
	// the signer; the call policy checks the OAuth server's tokens.
	"auth":       {"signer"},
	"callpolicy": {"auth"},
}

// frontEnds may not import these: they reach the cache and the nodes
// through the dispatcher only.
var (
	frontEnds   = []string{"jsonrpchttp", "server", "server/transcode", "auth", "callpolicy", "signer", "stream"}
	belowFronts = []string{"cache", "backend"}
)

// shipped are the packages of the binary (and of library users): they may
// not import test helpers, benchmarks or examples.
func shipped(pkg string) bool {
	return layer[pkg] < 6 || pkg == "cmd/hivegate"
}

// TestLayers reads the package graph with go list (imports of non-test
// files, the binary's graph) and fails on any import that runs back up.
func TestLayers(t *testing.T) {
	t.Parallel()
	graph := imports(t)
	if len(graph) < 20 {
		t.Fatalf("go list found %d packages: the test does not see the module", len(graph))
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

// TestViolations shows that each rule catches what it is for, on a graph
// made up for the test.
func TestViolations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pkg, dep, want string
	}{
		{"dispatch", "gateway", "imports must point down"},
		{"jsonrpc", "jsonrpchttp", "imports must point down"},
		{"server", "cache", "front ends reach it through dispatch only"},
		{"jsonrpchttp", "backend", "front ends reach it through dispatch only"},
		{"backend", "internal/faults", "a test helper or benchmark"},
		{"cache", "backend", "in its own layer"},
		{"auth", "jsonrpchttp", "in its own layer"},
		{"auth", "callpolicy", "in its own layer"},
		{"signer", "auth", "in its own layer"},
		{"signer", "backend", "front ends reach it through dispatch only"},
		{"callpolicy", "cache", "front ends reach it through dispatch only"},
		{"guard", "jsonrpchttp", "imports must point down"},
		{"newpkg", "config", "has no layer"},
	} {
		got := violations(map[string][]string{tc.pkg: {tc.dep}})
		if len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s -> %s: %q, want one violation saying %q", tc.pkg, tc.dep, got, tc.want)
		}
	}
	for _, ok := range [][2]string{{"gateway", "cache"}, {"server", "server/transcode"}, {"jsonrpchttp", "guard"}, {"auth", "clientip"}, {"callpolicy", "auth"}, {"auth", "signer"}, {"cmd/hivegate", "hivesim"}, {"internal/faults", "gateway"}} {
		if got := violations(map[string][]string{ok[0]: {ok[1]}}); len(got) != 0 {
			t.Errorf("%s -> %s: %q, want none", ok[0], ok[1], got)
		}
	}
}

// violations lists the imports of graph that break the rules.
func violations(graph map[string][]string) []string {
	var out []string
	for pkg, deps := range graph {
		lp, known := layer[pkg]
		if !known {
			out = append(out, "package "+pkg+" has no layer: add it to the table in layers_test.go (and to CONTRIBUTING.md)")
			continue
		}
		for _, dep := range deps {
			ld, depKnown := layer[dep]
			switch {
			case !depKnown:
				continue // reported as a package of its own
			case shipped(pkg) && (strings.HasPrefix(dep, "internal/") || strings.HasPrefix(dep, "bench/") || strings.HasPrefix(dep, "examples/")):
				out = append(out, fmt.Sprintf("%s (shipped) imports %s, a test helper or benchmark", pkg, dep))
			case slices.Contains(frontEnds, pkg) && slices.Contains(belowFronts, dep):
				out = append(out, fmt.Sprintf("front end %s imports %s: front ends reach it through dispatch only", pkg, dep))
			case ld > lp:
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports must point down", pkg, lp, dep, ld))
			case ld == lp && lp < 6 && !slices.Contains(siblings[pkg], dep):
				out = append(out, fmt.Sprintf("%s imports %s in its own layer (%d): list it in siblings or move one of them", pkg, dep, lp))
			}
		}
	}
	slices.Sort(out)
	return out
}

// imports returns the module's packages (but gen/) and, for each, the
// module packages (but gen/) its non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not in PATH: %v", err)
	}
	cmd := exec.Command(goBin, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	graph := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok || strings.HasPrefix(pkg, "gen/") {
			continue
		}
		deps := []string{}
		for _, imp := range fields[1:] {
			if dep, ok := strings.CutPrefix(imp, module); ok && !strings.HasPrefix(dep, "gen/") {
				deps = append(deps, dep)
			}
		}
		graph[pkg] = deps
	}
	return graph
}
