package server

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonrpc"
)

// TestErrorTableDocumented checks docs/api.md's table of Connect codes
// against kindCode: every gateway error kind is listed, with the code the
// server answers.
func TestErrorTableDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if !strings.Contains(doc, "| JSON-RPC error | Connect / gRPC code |") {
		t.Fatal("docs/api.md lacks the table \"| JSON-RPC error | Connect / gRPC code |\"")
	}
	kindRe := regexp.MustCompile("`([a-z_]+)` -?\\d{4,5}")
	codeRe := regexp.MustCompile("\\| `([a-z_]+)` \\|$")
	documented := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		m := codeRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, k := range kindRe.FindAllStringSubmatch(line, -1) {
			documented[k[1]] = m[1]
		}
	}
	for _, spec := range jsonrpc.Errors {
		got, ok := documented[string(spec.Kind)]
		if !ok {
			t.Errorf("the table does not list %s", spec.Kind)
			continue
		}
		if want := kindCode(spec.Kind).String(); got != want {
			t.Errorf("the table maps %s to %s; the server answers %s", spec.Kind, got, want)
		}
	}
}
