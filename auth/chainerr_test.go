package auth_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/hivesim"
)

// A node that answers the login's account read with a result of the wrong
// shape: the page's answer says the account could not be read, and never
// carries the Go decoder's error text (type names, "json:", "cannot
// unmarshal").
func TestLoginAccountReadErrorHidesGoErrors(t *testing.T) {
	t.Parallel()
	node := hivesim.New(hivesim.Options{Seed: 5})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &req) == nil && req.Method == "condenser_api.get_accounts" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"not":"a list"}}`))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		node.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg, err := config.Parse("auth.yaml", []byte(nodeYAML(srv.URL, "")+authSection(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	e := serve(t, node, cfg)
	_, page := e.authorize(codeQuery("login", "s1"))
	id, _ := page["request_id"].(string)
	ch := e.page("/oauth2/challenge", map[string]any{"request_id": id, "username": "alice"})
	if ch.status == http.StatusOK {
		t.Fatalf("challenge for an unreadable account: HTTP 200 %s", ch.body)
	}
	for _, leak := range []string{"json:", "cannot unmarshal", "Go value", "[]json.RawMessage", "decoding"} {
		if strings.Contains(string(ch.body), leak) {
			t.Errorf("answer carries a Go error (%q): %s", leak, ch.body)
		}
	}
	if !strings.Contains(string(ch.body), "@alice") {
		t.Errorf("answer does not say which account could not be read: %s", ch.body)
	}
}
