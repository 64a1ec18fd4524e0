package callpolicy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hivegate/hivegate/auth"
	"github.com/hivegate/hivegate/callpolicy"
	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// TestTokenVerifiedOnce: a request's token is verified once, however many
// of its calls the policy checks and whether or not the quotas also ask
// which app it belongs to (TokenApp); without the policy's wrapper
// TokenApp verifies the token itself.
func TestTokenVerifiedOnce(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("p.yaml", []byte("backends:\n  hived: http://127.0.0.1:8091\nurls:\n  appbase: hived\n"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var verified atomic.Int32
	s, err := callpolicy.New(callpolicy.Options{
		RequireToken: []config.Entry[string]{{Key: "appbase.condenser_api.get_block", Value: config.ScopeLogin}},
		Verify: func(_ context.Context, raw string) (auth.Token, error) {
			verified.Add(1)
			if raw != "good" {
				return auth.Token{}, auth.ErrTokenMissing
			}
			return auth.Token{User: "alice", ClientID: "demo.app", Scopes: []string{config.ScopeLogin}}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var call router.Call
	if _, err := r.ParseKey(&call, nil, "condenser_api.get_block", json.RawMessage(`[1]`)); err != nil {
		t.Fatal(err)
	}
	header := http.Header{"Authorization": {"Bearer good"}}
	var app string
	h := s.PolicyHTTP(http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) {
		for range 3 { // a batch's calls
			if e := s.Authorize(req.Context(), &call); e != nil {
				t.Errorf("authorize: %v", e)
			}
		}
		app, _ = s.TokenApp(req.Context(), req.Header)
	}))
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
	req.Header = header
	h.ServeHTTP(httptest.NewRecorder(), req)
	if app != "demo.app" || verified.Load() != 1 {
		t.Fatalf("app %q, token verified %d times, want demo.app once", app, verified.Load())
	}

	if id, ok := s.TokenApp(context.Background(), header); !ok || id != "demo.app" || verified.Load() != 2 {
		t.Fatalf("TokenApp alone: %q %v, verified %d times in all, want 2", id, ok, verified.Load())
	}
	if _, ok := s.TokenApp(context.Background(), http.Header{}); ok || verified.Load() != 2 {
		t.Fatalf("no token: ok %v, verified %d times in all, want still 2", ok, verified.Load())
	}
}
