package router_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// equivalents is haf_api_node's Drone setup in small: hived translated to
// appbase, search-api on hivemind, and two renames.
const equivalents = `backends:
  hived: http://hived.example
  hivemind: http://hivemind.example
  hafah: http://hafah.example
translate_to_appbase: [hived]
urls:
  appbase: hived
  search-api: hivemind
  appbase.block_api: hafah
ttls:
  appbase: 1
  search-api: 30
  appbase.block_api: NO_EXPIRE
timeouts:
  appbase: 3
  search-api: 20
equivalent_methods:
  search-api.find_text:
    - appbase.search_api.find_text
  block_api.get_block:
    - appbase.condenser_api.get_block_header
`

// TestEquivalentMethods shows Drone's equivalent_methods: the call is
// renamed before routing, and the destination decides the key, backend,
// TTL, timeout and the method forwarded; the params are the client's.
func TestEquivalentMethods(t *testing.T) {
	t.Parallel()
	r := newRouter(t, equivalents)
	testCases := []struct {
		name, method, params                 string
		key, backend, upstream, renamed, ttl string
		timeout                              time.Duration
	}{
		{"renamed to another backend", "search_api.find_text", `{"pattern":"hive"}`,
			`search-api.find_text.params={"pattern":"hive"}`, "hivemind", "search-api.find_text", "appbase.search_api.find_text", "30", 20 * time.Second},
		{"renamed after translate_to_appbase", "get_block_header", `{"block_num":5}`,
			`appbase.block_api.get_block.params={"block_num":5}`, "hafah", "block_api.get_block", "appbase.condenser_api.get_block_header", "NO_EXPIRE", 3 * time.Second},
		{"the same through the call form", "call", `["condenser_api","get_block_header",{"block_num":5}]`,
			`appbase.block_api.get_block.params={"block_num":5}`, "hafah", "block_api.get_block", "appbase.condenser_api.get_block_header", "NO_EXPIRE", 3 * time.Second},
		{"not a source", "condenser_api.get_block", `[5]`,
			`appbase.condenser_api.get_block.params=[5]`, "hived", "condenser_api.get_block", "", "1", 3 * time.Second},
		{"the destination itself", "search-api.find_text", `{"pattern":"hive"}`,
			`search-api.find_text.params={"pattern":"hive"}`, "hivemind", "search-api.find_text", "", "30", 20 * time.Second},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := r.Parse(tc.method, raw(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := r.Resolve(c)
			if err != nil {
				t.Fatal(err)
			}
			if c.Key != tc.key || rt.Backend != tc.backend || c.UpstreamMethod != tc.upstream || c.RenamedFrom != tc.renamed {
				t.Errorf("key %q backend %q upstream %q renamed from %q\nwant %q %q %q %q", c.Key, rt.Backend, c.UpstreamMethod, c.RenamedFrom, tc.key, tc.backend, tc.upstream, tc.renamed)
			}
			if string(c.UpstreamParams) != tc.params && tc.method != "call" {
				t.Errorf("forwarded params %s, want the client's %s", c.UpstreamParams, tc.params)
			}
			if rt.TTL.String() != tc.ttl || rt.Timeout != tc.timeout {
				t.Errorf("ttl %s timeout %v, want %s %v", rt.TTL, rt.Timeout, tc.ttl, tc.timeout)
			}
			// ParseKey (the dispatcher's path) gives the same key.
			var pc router.Call
			key, err := r.ParseKey(&pc, nil, tc.method, raw(tc.params))
			if err != nil || string(key) != tc.key || pc.RenamedFrom != tc.renamed {
				t.Errorf("ParseKey: %q renamed from %q, %v", key, pc.RenamedFrom, err)
			}
			ex, err := r.Explain(c)
			if err != nil || ex.RenamedFrom != tc.renamed || ex.Upstream != tc.upstream {
				t.Errorf("Explain: %+v, %v", ex, err)
			}
		})
	}
}

// TestEquivalentMethodsChain follows a rename of a rename, as Drone does.
func TestEquivalentMethodsChain(t *testing.T) {
	t.Parallel()
	r := newRouter(t, allNamespaces+"equivalent_methods:\n  b_api.m: [appbase.a_api.m]\n  c_api.m: [appbase.b_api.m]\n")
	c, err := r.Parse("a_api.m", raw(`[1]`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Key != "appbase.c_api.m.params=[1]" || c.UpstreamMethod != "c_api.m" || c.RenamedFrom != "appbase.a_api.m" {
		t.Errorf("call %+v", c)
	}
}

// TestEquivalentMethodsErrors refuses renames that loop or name a
// destination that is not a method, at the entry's line.
func TestEquivalentMethodsErrors(t *testing.T) {
	t.Parallel()
	testCases := []struct{ name, text, want string }{
		{"loop", "equivalent_methods:\n  b_api.m: [appbase.a_api.m]\n  a_api.m: [appbase.b_api.m]\n", "test.yaml:10: equivalent_methods.b_api.m: renames loop: appbase.a_api.m -> appbase.b_api.m -> appbase.a_api.m"},
		{"self", "equivalent_methods:\n  a_api.m: [appbase.a_api.m]\n", "renames loop: appbase.a_api.m -> appbase.a_api.m"},
		{"bad destination", "equivalent_methods:\n  'a..b': [appbase.a_api.m]\n", "want a method as a client calls it"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Parse("test.yaml", []byte(allNamespaces+tc.text))
			if err == nil {
				_, err = router.New(cfg)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
