package router_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/hivegate/hivegate/router"
)

// TestMethodKeys covers every row of the design's method → key table.
func TestMethodKeys(t *testing.T) {
	t.Parallel()
	r := newRouter(t, allNamespaces)
	testCases := []struct {
		name, method, params  string
		ns, api, meth         string
		key                   string
		upstream, upstreamRaw string
	}{
		{"api.method", "condenser_api.get_block", `[1]`, "appbase", "condenser_api", "get_block",
			"appbase.condenser_api.get_block.params=[1]", "condenser_api.get_block", `[1]`},
		{"jsonrpc.method", "jsonrpc.get_methods", ``, "appbase", "jsonrpc", "get_methods",
			"appbase.jsonrpc.get_methods", "jsonrpc.get_methods", ``},
		{"jsonrpc.method with params", "jsonrpc.get_signature", `{"method":"database_api.get_config"}`, "appbase", "jsonrpc", "get_signature",
			`appbase.jsonrpc.get_signature.params={"method":"database_api.get_config"}`, "jsonrpc.get_signature", `{"method":"database_api.get_config"}`},
		{"namespace.method", "bridge.get_discussion", `{"permlink":"p","author":"a"}`, "bridge", "", "get_discussion",
			`bridge.get_discussion.params={"author":"a","permlink":"p"}`, "bridge.get_discussion", `{"permlink":"p","author":"a"}`},
		{"namespace.method no params", "hive.db_head_state", ``, "hive", "", "db_head_state",
			"hive.db_head_state", "hive.db_head_state", ``},
		{"ns.api.method", "appbase.condenser_api.get_block", `[1]`, "appbase", "condenser_api", "get_block",
			"appbase.condenser_api.get_block.params=[1]", "condenser_api.get_block", `[1]`},
		{"ns.api.method other namespace", "hived.database_api.get_state", `["/trending"]`, "hived", "database_api", "get_state",
			`hived.database_api.get_state.params=["/trending"]`, "database_api.get_state", `["/trending"]`},
		{"bare method", "get_block", `[1]`, "hived", "database_api", "get_block",
			"hived.database_api.get_block.params=[1]", "get_block", `[1]`},
		{"bare method no params", "get_dynamic_global_properties", ``, "hived", "database_api", "get_dynamic_global_properties",
			"hived.database_api.get_dynamic_global_properties", "get_dynamic_global_properties", ``},
		{"call api method", "call", `["database_api","get_dynamic_global_properties"]`, "appbase", "database_api", "get_dynamic_global_properties",
			"appbase.database_api.get_dynamic_global_properties", "call", `["database_api","get_dynamic_global_properties"]`},
		{"call condenser_api", "call", `["condenser_api","get_block",[1]]`, "appbase", "condenser_api", "get_block",
			"appbase.condenser_api.get_block.params=[1]", "call", `["condenser_api","get_block",[1]]`},
		{"call jsonrpc", "call", `["jsonrpc","get_methods",[]]`, "appbase", "jsonrpc", "get_methods",
			"appbase.jsonrpc.get_methods.params=[]", "call", `["jsonrpc","get_methods",[]]`},
		{"call object params", "call", `["database_api","list_accounts",{"start":"","order":"by_name","limit":1}]`, "appbase", "database_api", "list_accounts",
			`appbase.database_api.list_accounts.params={"limit":1,"order":"by_name","start":""}`, "call", `["database_api","list_accounts",{"start":"","order":"by_name","limit":1}]`},
		{"call array params", "call", `["database_api","get_block",[1]]`, "hived", "database_api", "get_block",
			"hived.database_api.get_block.params=[1]", "call", `["database_api","get_block",[1]]`},
		{"call other api array params", "call", `["follow_api","get_followers",["a","","blog",10]]`, "hived", "follow_api", "get_followers",
			`hived.follow_api.get_followers.params=["a","","blog",10]`, "call", `["follow_api","get_followers",["a","","blog",10]]`},
		{"call numeric api 0", "call", `[0,"get_block",[1]]`, "hived", "database_api", "get_block",
			"hived.database_api.get_block.params=[1]", "call", `[0,"get_block",[1]]`},
		{"call numeric api 1", "call", `[1,"login",["",""]]`, "hived", "login_api", "login",
			`hived.login_api.login.params=["",""]`, "call", `[1,"login",["",""]]`},
		{"call numeric api 0 no params", "call", `[0, "get_config"]`, "appbase", "database_api", "get_config",
			"appbase.database_api.get_config", "call", `[0, "get_config"]`},
		{"call escaped names", "call", `["condenser\u005fapi","get_block",[1]]`, "appbase", "condenser_api", "get_block",
			"appbase.condenser_api.get_block.params=[1]", "call", `["condenser\u005fapi","get_block",[1]]`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := r.Parse(tc.method, raw(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			if c.Namespace != tc.ns || c.API != tc.api || c.Method != tc.meth {
				t.Errorf("parsed %q/%q/%q, want %q/%q/%q", c.Namespace, c.API, c.Method, tc.ns, tc.api, tc.meth)
			}
			if c.Key != tc.key {
				t.Errorf("key %s, want %s", c.Key, tc.key)
			}
			if c.UpstreamMethod != tc.upstream || string(c.UpstreamParams) != tc.upstreamRaw {
				t.Errorf("upstream %s %s, want %s %s", c.UpstreamMethod, c.UpstreamParams, tc.upstream, tc.upstreamRaw)
			}
			if (tc.upstreamRaw == "") != (c.UpstreamParams == nil) {
				t.Errorf("upstream params %q: absent params must stay absent (nil)", c.UpstreamParams)
			}
			want := tc.meth
			if tc.api != "" {
				want = tc.api + "." + tc.meth
			}
			if c.APIMethod() != want {
				t.Errorf("APIMethod() = %q, want %q", c.APIMethod(), want)
			}
			var reused router.Call
			key, err := r.ParseKey(&reused, nil, tc.method, raw(tc.params))
			reused.Key = string(key)
			if err != nil || !reflect.DeepEqual(&reused, c) {
				t.Errorf("ParseKey = %+v, %v; Parse = %+v", reused, err, *c)
			}
		})
	}
}

// TestInvalidMethods checks that malformed methods and call forms are
// refused with ErrInvalidMethod.
func TestInvalidMethods(t *testing.T) {
	t.Parallel()
	r := newRouter(t, allNamespaces)
	testCases := []struct {
		name, method, params string
	}{
		{"four parts", "a.b.c.d", `[]`},
		{"five parts", "appbase.condenser_api.get_block.x.y", ``},
		{"empty method", "", `[]`},
		{"empty middle part", "condenser_api..get_block", `[]`},
		{"leading dot", ".get_block", `[]`},
		{"trailing dot", "condenser_api.", `[]`},
		{"only a dot", ".", ``},
		{"space in name", "condenser_api.get block", `[]`},
		{"equals in name", "bridge.get_discussion.params=[1]", ``},
		{"control character", "get_block\n", `[1]`},
		{"non-ASCII name", "condenser_api.gét_block", `[1]`},
		{"params not JSON", "condenser_api.get_block", `[1,`},
		{"params trailing data", "condenser_api.get_block", `[1] [2]`},
		{"params bad string", "condenser_api.get_block", `["\x"]`},
		{"call without params", "call", ``},
		{"call params not JSON", "call", `["a",`},
		{"call params object", "call", `{"api":"database_api"}`},
		{"call params null", "call", `null`},
		{"call one element", "call", `["database_api"]`},
		{"call empty", "call", `[]`},
		{"call four elements", "call", `["database_api","get_block",[1],[2]]`},
		{"call numeric api 2", "call", `[2,"get_block",[1]]`},
		{"call numeric api -1", "call", `[-1,"get_block",[1]]`},
		{"call numeric api 0.0", "call", `[0.0,"get_block",[1]]`},
		{"call numeric api 1e0", "call", `[1e0,"login",[]]`},
		{"call api true", "call", `[true,"get_block",[1]]`},
		{"call api null", "call", `[null,"get_block",[1]]`},
		{"call api list", "call", `[["database_api"],"get_block",[1]]`},
		{"call api empty", "call", `["","get_block",[1]]`},
		{"call api with dot", "call", `["appbase.condenser_api","get_block",[1]]`},
		{"call method number", "call", `["database_api",5,[1]]`},
		{"call method null", "call", `["database_api",null]`},
		{"call method empty", "call", `["database_api",""]`},
		{"call method with dot", "call", `["database_api","a.b"]`},
		{"call method with equals", "call", `["database_api","get_block.params=[1]"]`},
		{"call method with space", "call", `["database_api","get block"]`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := r.Parse(tc.method, raw(tc.params))
			if !errors.Is(err, router.ErrInvalidMethod) {
				t.Fatalf("Parse(%q, %s) = %+v, %v; want ErrInvalidMethod", tc.method, tc.params, c, err)
			}
		})
	}
}

// TestTranslateToAppbase checks that calls in a translate_to_appbase
// namespace are forwarded and keyed as condenser_api calls.
func TestTranslateToAppbase(t *testing.T) {
	t.Parallel()
	r := newRouter(t, allNamespaces+"translate_to_appbase: [hived, appbase]\n")
	testCases := []struct {
		name, method, params string
		key                  string
		upstream, upParams   string
	}{
		{"bare method", "get_block", `[ 1 ]`, "appbase.condenser_api.get_block.params=[1]", "condenser_api.get_block", `[ 1 ]`},
		{"bare method no params", "get_config", ``, "appbase.condenser_api.get_config", "condenser_api.get_config", ``},
		{"call form", "call", `["database_api", "get_block", [ 1 ]]`, "appbase.condenser_api.get_block.params=[1]", "condenser_api.get_block", `[ 1 ]`},
		{"call numeric api", "call", `[0,"get_accounts",[["a"]]]`, `appbase.condenser_api.get_accounts.params=[["a"]]`, "condenser_api.get_accounts", `[["a"]]`},
		{"three parts", "hived.database_api.get_state", `["/trending"]`, `appbase.condenser_api.get_state.params=["/trending"]`, "condenser_api.get_state", `["/trending"]`},
		{"appbase untouched", "database_api.list_accounts", `{"limit":1}`, `appbase.database_api.list_accounts.params={"limit":1}`, "database_api.list_accounts", `{"limit":1}`},
		{"call object untouched", "call", `["database_api","find_accounts",{"accounts":["a"]}]`, `appbase.database_api.find_accounts.params={"accounts":["a"]}`, "call", `["database_api","find_accounts",{"accounts":["a"]}]`},
		{"other namespace untouched", "bridge.get_discussion", `{"author":"a"}`, `bridge.get_discussion.params={"author":"a"}`, "bridge.get_discussion", `{"author":"a"}`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := r.Parse(tc.method, raw(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			if c.Key != tc.key || c.UpstreamMethod != tc.upstream || string(c.UpstreamParams) != tc.upParams {
				t.Errorf("got key %s upstream %s %s\nwant key %s upstream %s %s", c.Key, c.UpstreamMethod, c.UpstreamParams, tc.key, tc.upstream, tc.upParams)
			}
		})
	}
}

// TestDefaultNamespace shows that default_namespace decides the keys of bare
// methods and of pre-appbase call forms.
func TestDefaultNamespace(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		config, method, params, key string
	}{
		{allNamespaces, "get_block", `[1]`, "hived.database_api.get_block.params=[1]"},
		{allNamespaces + "default_namespace: steemd\n", "get_block", `[1]`, "steemd.database_api.get_block.params=[1]"},
		{allNamespaces + "default_namespace: steemd\n", "call", `["database_api","get_block",[1]]`, "steemd.database_api.get_block.params=[1]"},
		{allNamespaces + "default_namespace: steemd\n", "call", `["condenser_api","get_block",[1]]`, "appbase.condenser_api.get_block.params=[1]"},
	}
	for _, tc := range testCases {
		r := newRouter(t, tc.config)
		c, err := r.Parse(tc.method, raw(tc.params))
		if err != nil {
			t.Fatal(err)
		}
		if c.Key != tc.key {
			t.Errorf("%s %s: key %s, want %s", tc.method, tc.params, c.Key, tc.key)
		}
	}
	// A legacy config with a steemd upstream makes steemd the default.
	legacy := loadRouter(t, "../config/testdata/jussi.json")
	if legacy.Config().DefaultNamespace != "steemd" {
		t.Errorf("legacy default namespace %q", legacy.Config().DefaultNamespace)
	}
}
