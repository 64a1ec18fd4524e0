package quota_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	clk := newClock()
	lim, err := quota.NewLimiter(quota.Options{Now: clk.Now, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	p, err := quota.NewPolicy(cfg, quota.PolicyOptions{Router: r, Limiter: lim})
	if err != nil {
		t.Fatal(err)
	}
	return p, reg
}

// TestWeights: a call weighs its most specific weights entry, else
// default_weight.
func TestWeights(t *testing.T) {
	t.Parallel()
	p, _ := newPolicy(t, policyYAML)
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
		if got := p.Weight(tc.method, json.RawMessage(tc.params)); got != tc.want {
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

// TestAdmitJSONRPCBatch: the elements over quota get an error with the
// wait in its data, the others none; invalid elements weigh nothing.
func TestAdmitJSONRPCBatch(t *testing.T) {
	t.Parallel()
	p, reg := newPolicy(t, policyYAML)
	body := `[{"jsonrpc":"2.0","id":1,"method":"condenser_api.get_block","params":[1]},
	{"jsonrpc":"2.0","id":2,"method":"condenser_api.get_account_history","params":["alice",-1,10]},
	{"jsonrpc":"2.0","id":3},
	{"jsonrpc":"2.0","id":4,"method":"condenser_api.get_block","params":[2]},
	{"jsonrpc":"2.0","id":5,"method":"condenser_api.get_block","params":[3]},
	{"jsonrpc":"2.0","id":6,"method":"get_dynamic_global_properties","params":[]},
	{"jsonrpc":"2.0","id":7,"method":"condenser_api.get_block","params":[4]},
	{"jsonrpc":"2.0","id":8,"method":"condenser_api.get_block","params":[5]}]`
	parsed, perr := jsonrpc.ParseBody([]byte(body), 50, 64)
	if perr != nil {
		t.Fatal(perr)
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.RemoteAddr = "192.0.2.7:5000"
	retry, e := p.AdmitJSONRPC(r, parsed.Elements)
	if e != nil {
		t.Fatal(e)
	}
	// 4 units, one every 15 s: id 1 (1) fits, id 2 (4) does not, id 3 is
	// invalid, ids 4, 5 and 7 fit (4 units), id 6 is free, id 8 does not fit.
	refused := map[int]bool{}
	for i, el := range parsed.Elements {
		if el.Err != nil && el.Err.Kind == jsonrpc.KindRateLimited {
			refused[i+1] = true
			if !strings.Contains(string(el.Err.Data), `"retry_after":`) || !strings.Contains(el.Err.Message, "quota of your address exceeded") {
				t.Errorf("element %d: %s %s", i+1, el.Err.Message, el.Err.Data)
			}
		}
	}
	if len(refused) != 2 || !refused[2] || !refused[8] {
		t.Fatalf("refused elements %v, want 2 and 8", refused)
	}
	if parsed.Elements[2].Err == nil || parsed.Elements[2].Err.Kind != jsonrpc.KindInvalidRequest {
		t.Fatalf("the invalid element's error was replaced: %+v", parsed.Elements[2].Err)
	}
	if retry != 15*time.Second { // 2 and 8 both wait for one unit, 15 s
		t.Fatalf("retry after %v, want 15s", retry)
	}
	if a, r := metricValue(t, reg, "hivegate_quota_calls_total", map[string]string{"subject": "address", "outcome": "admitted"}),
		metricValue(t, reg, "hivegate_quota_calls_total", map[string]string{"subject": "address", "outcome": "refused"}); a != 5 || r != 2 {
		t.Fatalf("calls admitted %v refused %v, want 5 (the invalid one is not counted) and 2", a, r)
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
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = quota.NewPolicy(cfg, quota.PolicyOptions{Router: r})
	if err == nil || !strings.HasPrefix(err.Error(), "q.yaml:19: quotas.weights.appbase..x: ") {
		t.Fatalf("error %v, want q.yaml:19: quotas.weights.appbase..x: …", err)
	}
}
