package gateway_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// TestCORSAllowedOriginsConfig shows hivegate.cors_allowed_origins changes
// which browser origins may call the gateway.
func TestCORSAllowedOriginsConfig(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, settings, origin, wantAllow string
	}{
		{"unset allows any origin", "", "https://evil.example", "*"},
		{"listed origin allowed", "  cors_allowed_origins: [https://app.example]\n", "https://app.example", "https://app.example"},
		{"unlisted origin refused", "  cors_allowed_origins: [https://app.example]\n", "https://evil.example", ""},
		{"Drone's add_cors_headers: false", "  add_cors_headers: false\n", "https://app.example", ""},
		{"Drone's add_cors_headers: true", "  add_cors_headers: true\n", "https://app.example", "*"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := corsGateway(t, tc.settings)
			req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/hive.database_api.v1.DatabaseApiService/ListAccounts", nil)
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tc.wantAllow {
				t.Errorf("Access-Control-Allow-Origin = %q, want %q", got, tc.wantAllow)
			}
		})
	}
}

// TestCORSVaryKept: a JSON-RPC answer that may be compressed varies by
// Accept-Encoding and, for a listed origin, by Origin too: the handler
// once replaced the CORS layer's "Vary: Origin", so a shared cache could
// serve one origin's answer (and its Access-Control-Allow-Origin) to
// another.
func TestCORSVaryKept(t *testing.T) {
	t.Parallel()
	srv := corsGateway(t, "  cors_allowed_origins: [https://app.example]\n")
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_config","params":[]}`))
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	vary := strings.Join(resp.Header.Values("Vary"), ",")
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(vary, "Origin") || !strings.Contains(vary, "Accept-Encoding") {
		t.Errorf("Access-Control-Allow-Origin %q, Vary %q: want the origin, and Vary naming Origin and Accept-Encoding",
			resp.Header.Get("Access-Control-Allow-Origin"), vary)
	}
}

// corsGateway serves a gateway whose hivegate section has settings, with
// one unreachable node (these tests need no answer from it).
func corsGateway(t *testing.T, settings string) *httptest.Server {
	t.Helper()
	cfg, err := config.Parse("cors.yaml", []byte("hivegate:\n  port: 0\n"+settings+
		"backends:\n  hived: http://127.0.0.1:1\nurls:\n  appbase: hived\n"))
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(cfg, gateway.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gw.Close)
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(srv.Close)
	return srv
}
