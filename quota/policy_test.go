package quota_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/quota"
	"github.com/hivegate/hivegate/router"
)

func sha(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// policyYAML: addresses get 4 units a minute, key acme 100; heavy methods
// weigh more, matched by namespace, api and method as ttls are.
var policyYAML = `backends:
  hived: http://127.0.0.1:8091
urls:
  hived: hived
  appbase: hived
limits:
  trusted_proxy_header: X-Forwarded-For
  trusted_proxies: [127.0.0.1]
quotas:
  classes:
    public: {limit: 4, period: 60}
    partner: {limit: 100, period: 60}
  per_address: public
  default_weight: 1
  weights:
    appbase.condenser_api.get_account_history: 4
    appbase.account_history_api: 3
    hived.database_api.get_dynamic_global_properties: 0
  keys:
    acme: {sha256: ` + sha("acme-secret-key") + `, class: partner}
`

func newPolicy(t *testing.T, yaml string) (*quota.Policy, *prometheus.Registry) {
	t.Helper()
	cfg, err := config.Parse("q.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	clk := newClock()
	lim, err := quota.NewLimiter(quota.Options{Now: clk.Now, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	p, err := quota.NewPolicy(cfg, quota.PolicyOptions{Limiter: lim})
	if err != nil {
		t.Fatal(err)
	}
	return p, reg
}

// routerCall is the router's parse of a call, as a front end makes it;
// nil for a method the router cannot parse.
func routerCall(t *testing.T, r *router.Router, method, params string) *router.Call {
	t.Helper()
	var c router.Call
	if _, err := r.ParseKey(&c, nil, method, json.RawMessage(params)); err != nil {
		return nil
	}
	return &c
}

func testRouter(t *testing.T) *router.Router {
	t.Helper()
	cfg, err := config.Parse("q.yaml", []byte(policyYAML))
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestWeights: a call weighs its most specific weights entry, else
// default_weight (a method the router cannot parse too).
func TestWeights(t *testing.T) {
	t.Parallel()
	p, _ := newPolicy(t, policyYAML)
	r := testRouter(t)
	testCases := []struct {
		method string
		params string
		want   int
	}{
		{"condenser_api.get_account_history", `["alice",-1,100]`, 4},
		{"account_history_api.get_account_history", `{"account":"alice"}`, 3},
		{"account_history_api.enum_virtual_ops", `{}`, 3},
		{"call", `["condenser_api","get_account_history",["alice",-1,10]]`, 4},
		{"condenser_api.get_block", `[1]`, 1},
		{"get_dynamic_global_properties", `[]`, 0},
		{"not a method", `[]`, 1},
	}
	for _, tc := range testCases {
		if got := p.Weight(routerCall(t, r, tc.method, tc.params)); got != tc.want {
			t.Errorf("%s %s weighs %d, want %d", tc.method, tc.params, got, tc.want)
		}
	}
}

// TestSubjects: a key counts against the key, an unknown key is refused,
// an address behind a trusted proxy is the address the proxy names, and a
// trusted proxy's own address is not limited.
func TestSubjects(t *testing.T) {
	t.Parallel()
	p, reg := newPolicy(t, policyYAML)
	testCases := []struct {
		name    string
		remote  string
		header  http.Header
		kind    string
		limited bool
		refused bool
	}{
		{"direct client", "192.0.2.7:5000", nil, quota.SubjectAddress, true, false},
		{"behind the proxy", "127.0.0.1:5000", http.Header{"X-Forwarded-For": {"198.51.100.3"}}, quota.SubjectAddress, true, false},
		{"the proxy itself", "127.0.0.1:5000", nil, "", false, false},
		{"spoofed header from an untrusted peer", "192.0.2.7:5000", http.Header{"X-Forwarded-For": {"127.0.0.1"}}, quota.SubjectAddress, true, false},
		{"key", "192.0.2.7:5000", http.Header{"X-Api-Key": {"acme-secret-key"}}, quota.SubjectKey, true, false},
		{"unknown key", "192.0.2.7:5000", http.Header{"X-Api-Key": {"guessed"}}, "", false, true},
	}
	for _, tc := range testCases {
		s, limited, e := p.SubjectOf(context.Background(), tc.remote, tc.header)
		if (e != nil) != tc.refused || limited != tc.limited || s.Kind != tc.kind {
			t.Errorf("%s: subject %+v limited=%v err=%v", tc.name, s, limited, e)
		}
		if e != nil && (e.Kind != jsonrpc.KindUnauthorized || strings.Contains(e.Message, "guessed")) {
			t.Errorf("%s: refusal %+v", tc.name, e)
		}
	}
	if got := metricValue(t, reg, "hivegate_quota_unknown_keys_total", nil); got != 1 {
		t.Errorf("unknown keys counted %v, want 1", got)
	}
}

// TestRequestAdmit: a request's calls are charged in order, each its
// weight (a lighter call after a refused one still fits); the calls over
// quota get an error with the wait in its data; the subject is worked out
// once per request (an unknown key is counted once however often asked).
func TestRequestAdmit(t *testing.T) {
	t.Parallel()
	p, reg := newPolicy(t, policyYAML)
	r := testRouter(t)
	calls := []struct{ method, params string }{
		{"condenser_api.get_block", `[1]`},
		{"condenser_api.get_account_history", `["alice",-1,10]`},
		{"condenser_api.get_block", `[2]`},
		{"condenser_api.get_block", `[3]`},
		{"get_dynamic_global_properties", `[]`},
		{"condenser_api.get_block", `[4]`},
		{"condenser_api.get_block", `[5]`},
	}
	weights := make([]int, len(calls))
	for i, c := range calls {
		weights[i] = p.Weight(routerCall(t, r, c.method, c.params))
	}
	q := p.Request("192.0.2.7:5000", nil)
	waits := make([]time.Duration, len(calls))
	if e := q.Admit(context.Background(), weights, waits); e != nil {
		t.Fatal(e)
	}
	// 4 units, one every 15 s: 1 (1) fits, 2 (4) does not, 3, 4 and 6 fit
	// (4 units), 5 is free, 7 does not fit.
	var refused []int
	for i, w := range waits {
		if w == 0 {
			continue
		}
		refused = append(refused, i+1)
		e := q.Refusal(weights[i], w)
		if e.Kind != jsonrpc.KindRateLimited || !strings.Contains(string(e.Data), `"retry_after":15`) || !strings.Contains(e.Message, "quota of your address exceeded") {
			t.Errorf("call %d: %s %s", i+1, e.Message, e.Data)
		}
		if w != 15*time.Second {
			t.Errorf("call %d waits %v, want 15s (one unit)", i+1, w)
		}
	}
	if fmt.Sprint(refused) != "[2 7]" {
		t.Fatalf("refused calls %v, want [2 7]", refused)
	}
	if a, r := metricValue(t, reg, "hivegate_quota_calls_total", map[string]string{"subject": "address", "outcome": "admitted"}),
		metricValue(t, reg, "hivegate_quota_calls_total", map[string]string{"subject": "address", "outcome": "refused"}); a != 5 || r != 2 {
		t.Fatalf("calls admitted %v refused %v, want 5 and 2", a, r)
	}

	bad := p.Request("192.0.2.7:5000", http.Header{"X-Api-Key": {"guessed"}})
	for range 2 {
		if e := bad.Admit(context.Background(), weights[:1], waits); e == nil || e.Kind != jsonrpc.KindUnauthorized || waits[0] != 0 {
			t.Fatalf("unknown key: %v, wait %v", e, waits[0])
		}
	}
	if got := metricValue(t, reg, "hivegate_quota_unknown_keys_total", nil); got != 1 {
		t.Errorf("unknown keys counted %v, want 1 (one request)", got)
	}
	proxy := p.Request("127.0.0.1:5000", nil) // a trusted proxy's own address: not limited
	waits[0] = time.Hour
	if e := proxy.Admit(context.Background(), []int{1000}, waits); e != nil || waits[0] != 0 {
		t.Fatalf("unlimited request: %v, wait %v", e, waits[0])
	}
}

// TestPolicyOff: without a class given to anything there is no policy.
func TestPolicyOff(t *testing.T) {
	t.Parallel()
	for _, yaml := range []string{
		"backends:\n  hived: http://127.0.0.1:8091\nurls:\n  hived: hived\n",
		"backends:\n  hived: http://127.0.0.1:8091\nurls:\n  hived: hived\nquotas:\n  classes:\n    public: {limit: 1}\n",
	} {
		cfg, err := config.Parse("q.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		p, err := quota.NewPolicy(cfg, quota.PolicyOptions{})
		if p != nil || err != nil {
			t.Fatalf("%q: policy %v, %v", yaml, p, err)
		}
	}
}

// TestBadWeightKey: a malformed weights key names file, line and key.
func TestBadWeightKey(t *testing.T) {
	t.Parallel()
	yaml := strings.Replace(policyYAML, "  keys:", "    \"appbase..x\": 2\n  keys:", 1)
	cfg, err := config.Parse("q.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	_, err = quota.NewPolicy(cfg, quota.PolicyOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "q.yaml:19: quotas.weights.appbase..x: ") {
		t.Fatalf("error %v, want q.yaml:19: quotas.weights.appbase..x: …", err)
	}
}
