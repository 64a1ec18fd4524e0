package gateway_test

// Cost of the operations layer (request id, in-flight gauge, metrics,
// access log) on the cheapest request there is: a small cached JSON-RPC
// call served in-process.

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
)

// BenchmarkOpsCachedCall serves one cached get_accounts call with the
// access log off, on (JSON lines to io.Discard) and on but filtered out by
// the log level.
func BenchmarkOpsCachedCall(b *testing.B) {
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		id := string(body[strings.LastIndex(string(body), `"id":`)+5 : strings.Index(string(body), `,"method"`)])
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","result":[{"name":"alice"}],"id":`+id+`}`)
	}))
	b.Cleanup(node.Close)
	cases := []struct {
		name, settings string
		level          slog.Level
	}{
		{"access_log_off", "  access_log: false\n", slog.LevelInfo},
		{"access_log_on", "", slog.LevelInfo},
		{"access_log_below_level", "", slog.LevelWarn},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			yaml := "hivegate:\n  port: 0\n" + c.settings + "backends:\n  hived: " + node.URL + "\nurls:\n  appbase: hived\nttls:\n  appbase: 60\n"
			cfg, err := config.Parse("bench.yaml", []byte(yaml))
			if err != nil {
				b.Fatal(err)
			}
			logger := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: c.level}))
			gw, err := gateway.New(cfg, gateway.Options{Logger: logger})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(gw.Close)
			h := gw.Handler()
			body := `{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_accounts","params":[["alice"]]}`
			serve := func() *httptest.ResponseRecorder {
				r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			serve() // fills the cache
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if w := serve(); w.Header().Get("X-Hivegate-Cache") != "hit" {
					b.Fatalf("not a cache hit: %q", w.Header().Get("X-Hivegate-Cache"))
				}
			}
		})
	}
}
