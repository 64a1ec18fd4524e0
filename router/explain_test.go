package router_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// TestExplainJSON checks the JSON `hivegate route` prints: its field names
// and that ttl is a number of seconds or a word.
func TestExplainJSON(t *testing.T) {
	t.Parallel()
	r := newRouter(t, specificity)
	testCases := []struct {
		method, params string
		want           map[string]any
	}{
		{"condenser_api.get_state", `["/trending"]`, map[string]any{
			"key": `appbase.condenser_api.get_state.params=["/trending"]`, "backend": "method", "url": "http://method.example",
			"ttl": 4.0, "timeout_s": 40.0, "retries": 3.0, "upstream_method": "condenser_api.get_state", "nodes": []any{"http://method.example"},
			"matched": map[string]any{"url": "appbase.condenser_api.get_state", "ttl": `appbase.condenser_api.get_state.params=["/trending"]`,
				"timeout": `appbase.condenser_api.get_state.params=["/trending"]`, "retries": "appbase.condenser_api.get_state"},
		}},
		{"condenser_api.get_block", `[1]`, map[string]any{
			"key": "appbase.condenser_api.get_block.params=[1]", "backend": "api", "url": "http://api.example",
			"ttl": "NO_EXPIRE", "timeout_s": 10.0, "retries": 1.0, "upstream_method": "condenser_api.get_block", "nodes": []any{"http://api.example"},
			"matched": map[string]any{"url": "appbase.condenser_api", "ttl": "appbase.condenser_api.get_block", "timeout": "appbase", "retries": "appbase"},
		}},
		{"condenser_api.broadcast_transaction", `[{}]`, map[string]any{
			"key": "appbase.condenser_api.broadcast_transaction.params=[{}]", "backend": "api", "url": "http://api.example",
			"ttl": "NO_CACHE", "timeout_s": 10.0, "retries": 0.0, "upstream_method": "condenser_api.broadcast_transaction", "broadcast": true, "nodes": []any{"http://api.example"},
			"matched": map[string]any{"url": "appbase.condenser_api", "ttl": "appbase.condenser_api", "timeout": "appbase", "retries": "appbase"},
		}},
	}
	for _, tc := range testCases {
		c, err := r.Parse(tc.method, raw(tc.params))
		if err != nil {
			t.Fatal(err)
		}
		e, err := r.Explain(c)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s:\n got %s\nwant %v", tc.method, tc.params, b, tc.want)
		}
	}
	c, err := r.Parse("bridge.get_discussion", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Explain(c); !errors.Is(err, router.ErrNoRoute) {
		t.Errorf("Explain of an unrouted call: %v, want ErrNoRoute", err)
	}
}

// ExampleRouter_Explain shows how a call is routed under the embedded
// default config.
func ExampleRouter_Explain() {
	cfg, err := config.Default("http://127.0.0.1:8091")
	if err != nil {
		panic(err)
	}
	r, err := router.New(cfg)
	if err != nil {
		panic(err)
	}
	call, err := r.Parse("call", json.RawMessage(`["database_api", "get_state", ["/trending"]]`))
	if err != nil {
		panic(err)
	}
	e, err := r.Explain(call)
	if err != nil {
		panic(err)
	}
	out, _ := json.MarshalIndent(e, "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "key": "appbase.condenser_api.get_state.params=[\"/trending\"]",
	//   "backend": "hived",
	//   "url": "http://127.0.0.1:8091",
	//   "ttl": 30,
	//   "timeout_s": 5,
	//   "retries": 3,
	//   "matched": {
	//     "url": "appbase",
	//     "ttl": "appbase.condenser_api.get_state.params=['/trending']",
	//     "timeout": "appbase.condenser_api",
	//     "retries": "appbase.condenser_api"
	//   },
	//   "upstream_method": "condenser_api.get_state",
	//   "nodes": [
	//     "http://127.0.0.1:8091"
	//   ]
	// }
}
