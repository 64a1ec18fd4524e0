package gateway_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/hivegate/hivegate/gateway"
	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"
	"github.com/hivegate/hivegate/metrics"
)

// TestQuotaRefusalsObserved: a call refused by quota never reaches the
// dispatcher, yet it is counted in hivegate_requests_total, on its route
// with its error's outcome (rate_limited; unauthorized for an unknown API
// key), single, in a batch and over Connect; and the access log line names
// who the request counted against (quota_subject address, or key with
// quota_key the key's configured name), never the key itself.
func TestQuotaRefusalsObserved(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	url, gw := quotaGatewayWith(t, quotaConfig(simNode(t), ""), gateway.Options{
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	count := func(frontend, outcome string) float64 {
		v, _ := metrics.Value(gw.Metrics().Registry(), "hivegate_requests_total",
			`frontend="`+frontend+`",outcome="`+outcome+`",route="appbase"`)
		return v
	}
	a := from("198.51.100.7")
	for range 3 {
		postRPC(t, url, getBlock, a).expect(t, "get_block within the quota", true, "")
	}
	postRPC(t, url, getBlock, a).expect(t, "get_block over the quota", false, "your address")
	batch := `[` + getBlock + `,` + getBlock + `]`
	if r := postRPC(t, url, batch, a); r.status != http.StatusOK || strings.Count(r.body, `"code":-32017`) != 2 {
		t.Fatalf("batch over the quota: %d %s", r.status, r.body)
	}
	key := map[string]string{"X-Forwarded-For": "198.51.100.8", "X-Api-Key": quotaTestKey}
	for range 6 {
		postRPC(t, url, getBlock, key).expect(t, "get_block with the key", true, "")
	}
	postRPC(t, url, getBlock, key).expect(t, "get_block with the key over its quota", false, "API key acme", 600)
	if r := postRPC(t, url, getBlock, map[string]string{"X-Api-Key": "guessed-key-123"}); r.status != http.StatusUnauthorized {
		t.Fatalf("unknown key: %d %s", r.status, r.body)
	}
	c := hivegatev1connect.NewJsonRpcServiceClient(http.DefaultClient, url)
	req := connect.NewRequest(&hivegatev1.CallRequest{Method: "condenser_api.get_block"})
	req.Header().Set("X-Forwarded-For", "198.51.100.7")
	if _, err := c.Call(context.Background(), req); connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("Connect call over the quota: %v", err)
	}

	for _, m := range []struct {
		frontend, outcome string
		want              float64
	}{
		{"jsonrpc", "ok", 9},
		{"jsonrpc", "rate_limited", 4}, // one single and two batch elements by address, one by key
		{"jsonrpc", "unauthorized", 1},
		{"connect", "rate_limited", 1},
	} {
		if got := count(m.frontend, m.outcome); got != m.want {
			t.Errorf(`hivegate_requests_total{frontend=%q,outcome=%q,route="appbase"} = %v, want %v`, m.frontend, m.outcome, got, m.want)
		}
	}

	type line struct{ subject, key, outcome, method string }
	var got []line
	for _, l := range logs.lines(t, "request") {
		if strings.Contains(l["method"].(string), "get_block") || strings.Contains(l["method"].(string), "Call") || strings.HasPrefix(l["method"].(string), "batch") {
			s, _ := l["quota_subject"].(string)
			k, _ := l["quota_key"].(string)
			got = append(got, line{s, k, l["outcome"].(string), l["method"].(string)})
		}
	}
	addr := line{"address", "", "ok", "appbase.condenser_api.get_block"}
	acme := line{"key", "acme", "ok", "appbase.condenser_api.get_block"}
	over := func(l line, outcome string) line { l.outcome = outcome; return l }
	want := []line{addr, addr, addr, over(addr, "rate_limited"), {"address", "", "", "batch(2)"},
		acme, acme, acme, acme, acme, acme, over(acme, "rate_limited"),
		{"", "", "unauthorized", "appbase.condenser_api.get_block"},
		{"address", "", "rate_limited", "/hivegate.v1.JsonRpcService/Call"}}
	if g, w := fmt.Sprintf("%q", got), fmt.Sprintf("%q", want); g != w {
		t.Errorf("access log lines (quota_subject, quota_key, outcome, method):\n got %s\nwant %s", g, w)
	}
	if strings.Contains(logs.String(), quotaTestKey) || strings.Contains(logs.String(), "guessed-key") {
		t.Errorf("the log shows an API key:\n%s", logs.String())
	}
}

// TestQuotaUnknownKeyBatch: a batch sent with an unknown API key has each
// of its calls answered -32016 by the dispatcher's Admit hook (HTTP 200,
// as for any batch: no result), and each call is counted as
// unauthorized on its route; the key appears nowhere in the answer.
func TestQuotaUnknownKeyBatch(t *testing.T) {
	t.Parallel()
	url, gw := quotaGatewayWith(t, quotaConfig(simNode(t), ""), gateway.Options{})
	batch := `[` + getBlock + `,` + getHistory + `]`
	r := postRPC(t, url, batch, map[string]string{"X-Api-Key": "guessed-key-123"})
	if r.status != http.StatusOK || strings.Count(r.body, `"code":-32016`) != 2 || strings.Contains(r.body, `"result"`) || strings.Contains(r.body, "guessed") {
		t.Fatalf("batch with an unknown key: HTTP %d %s", r.status, r.body)
	}
	if v, _ := metrics.Value(gw.Metrics().Registry(), "hivegate_requests_total",
		`frontend="jsonrpc",outcome="unauthorized",route="appbase"`); v != 2 {
		t.Errorf(`hivegate_requests_total{frontend="jsonrpc",outcome="unauthorized",route="appbase"} = %v, want 2`, v)
	}
}
