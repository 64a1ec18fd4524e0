package fakenode

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func testAnswers() *Answers {
	return &Answers{
		CondenserDGPO: json.RawMessage(`{"head_block_number":10,"last_irreversible_block_num":5}`),
		DatabaseDGPO:  json.RawMessage(`{"head_block_number":10,"last_irreversible_block_num":5,"db":true}`),
		ListAccounts:  json.RawMessage(`{"accounts":[{"name":"a"}]}`),
		Block:         json.RawMessage(`{"block_id":"0000000a"}`),
	}
}

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return string(b)
}

func TestBackendAnswers(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(NewBackend(testAnswers()))
	t.Cleanup(srv.Close)
	cases := []struct {
		name, body, want string
	}{
		{"condenser dgpo, integer id", `{"jsonrpc":"2.0","id":7,"method":"condenser_api.get_dynamic_global_properties","params":[]}`,
			`{"jsonrpc":"2.0","result":{"head_block_number":10,"last_irreversible_block_num":5},"id":7}`},
		{"database dgpo, string id", `{"jsonrpc":"2.0","id":"x","method":"database_api.get_dynamic_global_properties","params":{}}`,
			`{"jsonrpc":"2.0","result":{"head_block_number":10,"last_irreversible_block_num":5,"db":true},"id":"x"}`},
		{"list_accounts, null id", `{"jsonrpc":"2.0","id":null,"method":"database_api.list_accounts","params":{"start":"","limit":1000,"order":"by_name"}}`,
			`{"jsonrpc":"2.0","result":{"accounts":[{"name":"a"}]},"id":null}`},
		{"call form", `{"jsonrpc":"2.0","id":3,"method":"call","params":["condenser_api","get_block",[10]]}`,
			`{"jsonrpc":"2.0","result":{"block_id":"0000000a"},"id":3}`},
		{"unknown method gets the fixed result", `{"jsonrpc":"2.0","id":4,"method":"x_api.y","params":[]}`,
			`{"jsonrpc":"2.0","result":{"head_block_number":10,"last_irreversible_block_num":5},"id":4}`},
		{"batch keeps order and ids", ` [{"jsonrpc":"2.0","id":1,"method":"block_api.get_block","params":{"block_num":1}},{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_dynamic_global_properties","params":[]}]`,
			`[{"jsonrpc":"2.0","result":{"block_id":"0000000a"},"id":1},{"jsonrpc":"2.0","result":{"head_block_number":10,"last_irreversible_block_num":5},"id":2}]`},
		{"not JSON", `{"jsonrpc"`, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse Error"},"id":null}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := post(t, srv.URL, tc.body); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestMinimalBodies(t *testing.T) {
	t.Parallel()
	m := NewMinimal(json.RawMessage(`{"v":1}`), 3)
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	cases := []struct{ path, want string }{
		{"/", `{"jsonrpc":"2.0","result":{"v":1},"id":1}`},
		{"/anything", `{"jsonrpc":"2.0","result":{"v":1},"id":1}`},
		{BatchPath, `[{"jsonrpc":"2.0","result":{"v":1},"id":1},{"jsonrpc":"2.0","result":{"v":1},"id":2},{"jsonrpc":"2.0","result":{"v":1},"id":3}]`},
	}
	for _, tc := range cases {
		if got := post(t, srv.URL+tc.path, `{"ignored":true}`); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
	if got := string(m.SingleBody()); got != cases[0].want {
		t.Errorf("SingleBody = %s", got)
	}
}

// TestWithGatewayHeaders shows the wrapper adds hivegate's response headers
// and leaves the body alone.
func TestWithGatewayHeaders(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(WithGatewayHeaders(NewMinimal(json.RawMessage(`{"v":1}`), 1)))
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","result":{"v":1},"id":1}`; string(body) != want {
		t.Errorf("body %s, want %s", body, want)
	}
	for _, h := range []string{"X-Request-Id", "Vary", "X-Hivegate-Cache", "X-Hivegate-Route", "Content-Type"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("no %s header", h)
		}
	}
}
