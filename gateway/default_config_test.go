package gateway_test

import (
	"net/http/httptest"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/hivesim"
)

// TestDefaultConfigAnswersEveryForm runs the embedded default config (what
// `hivegate serve --node-url` uses) in front of the simulated node, which,
// as hived does, refuses bare methods (-32002) and appbase database_api
// calls with list params: translated to condenser_api, the bare, call and
// condenser_api forms all answer the same block.
func TestDefaultConfigAnswersEveryForm(t *testing.T) {
	t.Parallel()
	node := httptest.NewServer(hivesim.New(hivesim.Options{Seed: 1}))
	t.Cleanup(node.Close)
	direct := (&proxy{t: t}).withServer(node)
	if e := direct.post(call("1", "get_block", `[1]`)).single(t).Error; e == nil {
		t.Fatal("the simulated node answers a bare get_block: this test would prove nothing")
	}
	cfg, err := config.Default(node.URL)
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
	p := (&proxy{t: t}).withServer(srv)
	var want string
	for _, tc := range []struct{ method, params string }{
		{"condenser_api.get_block", `[1]`},
		{"get_block", `[1]`},
		{"call", `["database_api","get_block",[1]]`},
		{"call", `["condenser_api","get_block",[1]]`},
		{"get_dynamic_global_properties", `[]`},
		{"call", `["database_api","get_dynamic_global_properties",[]]`},
	} {
		got := p.post(call("1", tc.method, tc.params)).single(t)
		if got.Error != nil || len(got.Result) < 10 {
			t.Errorf("%s %s: %s", tc.method, tc.params, got.Error)
			continue
		}
		if tc.params == `[1]` || tc.method == "call" && tc.params[len(tc.params)-4:] == "[1]]" {
			if want == "" {
				want = string(got.Result)
			} else if string(got.Result) != want {
				t.Errorf("%s %s answered another block", tc.method, tc.params)
			}
		}
	}
}

// withServer points p at an already running server.
func (p *proxy) withServer(srv *httptest.Server) *proxy {
	p.srv = srv
	return p
}
