package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/jsonrpc"
)

func runCmd(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestRouteCommand(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name    string
		file    string // default testdata/drone.yaml
		request string
		want    map[string]any
	}{
		{
			name:    "condenser get_block",
			request: `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]}`,
			want: map[string]any{
				"key": "appbase.condenser_api.get_block.params=[1]", "backend": "hived",
				"url": "http://hived.invalid:8091", "ttl": "EXPIRE_IF_REVERSIBLE",
				"timeout_s": 3.0, "retries": 1.0,
			},
		},
		{
			name:    "method routed to hivemind with a ttl in seconds",
			request: `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_blog","params":["a",0,1]}`,
			want:    map[string]any{"backend": "hivemind", "ttl": 3.0},
		},
		{
			name:    "renamed by equivalent_methods, to a backend of two nodes",
			file:    "testdata/nodes.yaml",
			request: `{"jsonrpc":"2.0","id":1,"method":"search_api.find_text","params":{"pattern":"x"}}`,
			want: map[string]any{
				"key": `search-api.find_text.params={"pattern":"x"}`, "backend": "hivemind",
				"upstream_method": "search-api.find_text", "renamed_from": "appbase.search_api.find_text",
				"nodes": []any{"http://hivemind-a.invalid:8080", "ws://hivemind-b.invalid:8080"},
			},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := "testdata/drone.yaml"
			if tc.file != "" {
				file = tc.file
			}
			stdout, stderr, code := runCmd(t, "route", "--config", file, tc.request)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout)
			}
			for k, v := range tc.want {
				if fmt.Sprint(got[k]) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
			matched, _ := got["matched"].(map[string]any)
			for _, k := range []string{"url", "ttl", "timeout", "retries"} {
				if _, ok := matched[k]; !ok {
					t.Errorf("matched.%s missing in %s", k, stdout)
				}
			}
		})
	}
}

func TestRouteCommandErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct{ name, request, want string }{
		{"four parts", `{"jsonrpc":"2.0","id":1,"method":"a.b.c.d"}`, "dotted parts"},
		{"not json", `{`, "not valid JSON"},
		{"no route", `{"jsonrpc":"2.0","id":1,"method":"bridge.get_post"}`, "no route"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr, code := runCmd(t, "route", "--config", "testdata/drone.yaml", tc.request)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want non-zero and %q", code, stderr, tc.want)
			}
		})
	}
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runCmd(t, "config", "check", "testdata/drone.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"appbase.condenser_api.get_blog", "hivemind", "EXPIRE_IF_REVERSIBLE", "2 backends"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("route table lacks %q:\n%s", want, stdout)
		}
	}
	bad := t.TempDir() + "/bad.yaml"
	if err := os.WriteFile(bad, []byte("backends:\n  a: http://x\nurls:\n  appbase: a\nbogus: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runCmd(t, "config", "check", bad)
	if code == 0 || !strings.Contains(stderr, "bad.yaml:5") || !strings.Contains(stderr, "bogus") {
		t.Fatalf("exit %d, stderr %q; want an error naming bad.yaml:5 and bogus", code, stderr)
	}
}

// TestDocErrorTable checks that docs/api.md lists every gateway error with
// the code, message and HTTP status the code uses.
func TestDocErrorTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range jsonrpc.Errors {
		row := fmt.Sprintf("| %d | `%s: …` | %d |", e.Code, e.Name, e.Status)
		if !bytes.Contains(doc, []byte(row)) {
			t.Errorf("docs/api.md's error table lacks the row starting %q", row)
			continue
		}
		// The meaning column says what the code's ErrorSpec says (the
		// doc may quote config keys in backticks).
		line, _, _ := bytes.Cut(doc[bytes.Index(doc, []byte(row))+len(row):], []byte("\n"))
		if got := strings.TrimSpace(strings.TrimSuffix(strings.ReplaceAll(string(line), "`", ""), "|")); e.Code != 1701 && got != e.Meaning {
			t.Errorf("docs/api.md says %d means %q; jsonrpc.Errors says %q", e.Code, got, e.Meaning)
		}
	}
}

// TestDocErrorCauses: every cause of a gateway error is in its meaning,
// in the code and in docs/api.md: -32017 is the per-address rate limit and
// the quotas by address, API key and app; -32016 is also an API key that
// quotas.keys does not have.
func TestDocErrorCauses(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code  jsonrpc.Code
		names []string
	}{
		{jsonrpc.CodeRateLimited, []string{"limits.rate_limit_per_second", "quota", "API key", "app", "address", "Retry-After"}},
		{jsonrpc.CodeUnauthorized, []string{"auth.require_token", "quotas.keys"}},
	} {
		var meaning string
		for _, e := range jsonrpc.Errors {
			if e.Code == tc.code {
				meaning = e.Meaning
			}
		}
		_, row, _ := bytes.Cut(doc, fmt.Appendf(nil, "\n| %d |", tc.code))
		row, _, _ = bytes.Cut(row, []byte("\n"))
		for _, name := range tc.names {
			if !strings.Contains(meaning, name) {
				t.Errorf("jsonrpc.Errors: %d means %q, which does not name %s", tc.code, meaning, name)
			}
			if !bytes.Contains(row, []byte(name)) {
				t.Errorf("docs/api.md: %d means %q, which does not name %s", tc.code, row, name)
			}
		}
	}
}
