package hivesim_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/hivesim"
	"github.com/hivegate/hivegate/internal/fixtures"
)

func TestReplayFixtures(t *testing.T) {
	t.Parallel()
	r := fixtures.Replay(t)
	cases := r.Cases()
	if len(cases) < 100 {
		t.Fatalf("only %d cases under HIVEGATE_FIXTURES", len(cases))
	}
	c := serve(t, r)
	// Known cases answer exactly their recorded member, with the caller's id.
	known := map[string]bool{
		"database_api_patterns/list_accounts/by_name":                    false,
		"block_api_patterns/get_block/milion":                            false, //nolint:misspell // the recorded case's name
		"condenser_api_patterns/get_dynamic_global_properties/get":       false,
		"account_history_api_negative/get_account_history/invalid_limit": false,
		"condenser_api_patterns/get_followers/blog/steemit":              false,
	}
	for _, cs := range cases {
		if _, ok := known[cs.Name]; !ok {
			continue
		}
		known[cs.Name] = true
		body := []byte(`{"jsonrpc":"2.0","id":"replay-1","method":"` + cs.Method + `","params":` + string(orNull(cs.Params)) + `}`)
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
			ID     json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(c.post(t, body), &resp); err != nil {
			t.Fatalf("%s: %v", cs.Name, err)
		}
		if string(resp.ID) != `"replay-1"` {
			t.Fatalf("%s: id %s", cs.Name, resp.ID)
		}
		want, got := cs.Result, resp.Result
		if cs.Error != nil {
			want, got = cs.Error, resp.Error
		}
		if !bytes.Equal(compact(t, got), compact(t, want)) {
			t.Fatalf("%s: answered %.200s, recorded %.200s", cs.Name, got, want)
		}
	}
	for name, seen := range known {
		if !seen {
			t.Errorf("fixture case %s not found", name)
		}
	}
	// Every recorded call finds a case with the same response (a batch of all of them).
	var batch bytes.Buffer
	batch.WriteByte('[')
	for i, cs := range cases {
		if i > 0 {
			batch.WriteByte(',')
		}
		batch.WriteString(`{"jsonrpc":"2.0","id":` + jsonInt(i) + `,"method":"` + cs.Method + `","params":` + string(orNull(cs.Params)) + `}`)
	}
	batch.WriteByte(']')
	var out []struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(c.post(t, batch.Bytes()), &out); err != nil || len(out) != len(cases) {
		t.Fatalf("batch of all cases: %v, %d answers", err, len(out))
	}
	for i, cs := range cases {
		want, got := cs.Result, out[i].Result
		if cs.Error != nil {
			want, got = cs.Error, out[i].Error
		}
		if !bytes.Equal(compact(t, got), compact(t, want)) {
			t.Fatalf("%s: answer differs from the recording", cs.Name)
		}
	}
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func jsonInt(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("compacting %.100s: %v", b, err)
	}
	return out.Bytes()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReplayHandWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "database_api.list_accounts.jsonl"),
		`{"case":"accounts/one","request":{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start":"alice","limit":1,"order":"by_name"}},"response":{"result":{"accounts":[{"name":"alice","id":5}]}}}
{"case":"accounts/zero","request":{"jsonrpc":"2.0","id":1,"method":"database_api.list_accounts","params":{"start":"","limit":0,"order":"by_name"}},"response":{"error":{"code":-32003,"message":"Assert Exception:limit not set"}}}
`)
	writeFile(t, filepath.Join(dir, "b", "c", "condenser_api.get_block.jsonl"),
		`{"case":"block/one","request":{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]},"response":{"result":null}}`+"\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "not a fixture")
	loaded, err := fixtures.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hivesim.NewReplay(loaded)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.Cases()); got != 3 {
		t.Fatalf("%d cases, want 3", got)
	}
	c := serve(t, r)
	c.post(t, request("condenser_api.get_block", []any{1}))
	if got := r.Calls("condenser_api.get_block"); got != 1 {
		t.Fatalf("Calls = %d, want 1", got)
	}
	cases := []struct {
		name, body, want string
	}{
		{"member order and spacing do not matter",
			`{"jsonrpc":"2.0","id":9,"method":"database_api.list_accounts","params":{ "order":"by_name", "limit":1, "start":"alice" }}`,
			`{"jsonrpc":"2.0","result":{"accounts":[{"name":"alice","id":5}]},"id":9}`},
		{"number spelling does not matter",
			`{"jsonrpc":"2.0","id":"x","method":"database_api.list_accounts","params":{"start":"","limit":0.0,"order":"by_name"}}`,
			`{"jsonrpc":"2.0","error":{"code":-32003,"message":"Assert Exception:limit not set"},"id":"x"}`},
		{"null result", `{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_block","params":[1e0]}`,
			`{"jsonrpc":"2.0","result":null,"id":2}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]},{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_block","params":[2]}]`,
			`[{"jsonrpc":"2.0","result":null,"id":1},{"jsonrpc":"2.0","error":{"code":-32601,"message":"hivesim replay: no recorded response for condenser_api.get_block with these params"},"id":2}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := string(c.post(t, []byte(tc.body))); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestReplayErrors: a replay needs cases, and each case's params must be
// JSON (the error names the file and line the case was read from).
func TestReplayErrors(t *testing.T) {
	t.Parallel()
	if _, err := hivesim.NewReplay(nil); err == nil || !strings.Contains(err.Error(), "no recorded cases") {
		t.Fatalf("no cases: %v", err)
	}
	bad := []hivesim.Case{{Name: "ok", File: "x.jsonl", Line: 1, Method: "a.b", Result: json.RawMessage("1")},
		{Name: "bad", File: "x.jsonl", Line: 2, Method: "a.b", Params: json.RawMessage("{broken"), Result: json.RawMessage("1")}}
	if _, err := hivesim.NewReplay(bad); err == nil || !strings.Contains(err.Error(), "x.jsonl:2") {
		t.Fatalf("params that are not JSON: %v", err)
	}
}
