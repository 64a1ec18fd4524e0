package gateway_test

import (
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	"github.com/hivegate/hivegate/router"
)

// TestRouteTableParamsKeys shows that a params= key is explained with its
// params, in JSON and in jussi's Python spelling alike: the TTL printed is
// the TTL in force for that call.
func TestRouteTableParamsKeys(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse("r.yaml", []byte(`backends:
  hived: http://h
urls:
  appbase: hived
ttls:
  appbase.condenser_api.get_state: 1
  appbase.condenser_api.get_state.params=['/trending']: 30
  appbase.condenser_api.get_state.params=["/hot"]: 20
  appbase.condenser_api.get_state.params=[True, None]: 5
`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"appbase":                         nil, // NO_CACHE
		"appbase.condenser_api.get_state": 1,
		"appbase.condenser_api.get_state.params=['/trending']": 30,
		`appbase.condenser_api.get_state.params=["/hot"]`:      20,
		"appbase.condenser_api.get_state.params=[True, None]":  5,
	}
	table := gateway.RouteTable(r)
	if len(table) != len(want) {
		t.Fatalf("table %+v", table)
	}
	for _, e := range table {
		w, ok := want[e.Key]
		if !ok || !e.Routed {
			t.Errorf("row %+v", e)
			continue
		}
		if w == nil {
			w = "NO_CACHE"
		}
		if e.TTL != w {
			t.Errorf("%s: ttl %v, want %v", e.Key, e.TTL, w)
		}
	}
}
