package router_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/router"
)

// specificity has entries at every level for each section, with the
// levels of each section deliberately different so a test can tell that the
// sections are resolved independently.
const specificity = `backends:
  ns: http://ns.example
  api: http://api.example
  method: http://method.example
  params: http://params.example
urls:
  appbase: ns
  appbase.condenser_api: api
  appbase.condenser_api.get_state: method
  appbase.condenser_api.get_state.params=['witnesses']: params
ttls:
  appbase: 1
  appbase.condenser_api: 2
  appbase.condenser_api.get_state: 3
  appbase.condenser_api.get_state.params=["/trending"]: 4
  appbase.condenser_api.get_block: NO_EXPIRE
timeouts:
  appbase: 10
  appbase.database_api: 20
  appbase.condenser_api.get_state.params=["/trending"]: 40
retries:
  appbase: 1
  appbase.condenser_api.get_state: 3
`

// TestMostSpecific checks that each section picks its own most specific key.
func TestMostSpecific(t *testing.T) {
	t.Parallel()
	r := newRouter(t, specificity)
	testCases := []struct {
		method, params string
		backend        string
		ttl            string
		timeout        time.Duration
		retries        int
		matched        router.Matched
	}{
		{"block_api.get_block", `{"block_num":1}`, "ns", "1", 10 * time.Second, 1,
			router.Matched{URL: "appbase", TTL: "appbase", Timeout: "appbase", Retries: "appbase"}},
		{"database_api.get_config", `{}`, "ns", "1", 20 * time.Second, 1,
			router.Matched{URL: "appbase", TTL: "appbase", Timeout: "appbase.database_api", Retries: "appbase"}},
		{"condenser_api.get_accounts", `[["a"]]`, "api", "2", 10 * time.Second, 1,
			router.Matched{URL: "appbase.condenser_api", TTL: "appbase.condenser_api", Timeout: "appbase", Retries: "appbase"}},
		{"condenser_api.get_block", `[1]`, "api", "NO_EXPIRE", 10 * time.Second, 1,
			router.Matched{URL: "appbase.condenser_api", TTL: "appbase.condenser_api.get_block", Timeout: "appbase", Retries: "appbase"}},
		{"condenser_api.get_state", `["/market"]`, "method", "3", 10 * time.Second, 3,
			router.Matched{URL: "appbase.condenser_api.get_state", TTL: "appbase.condenser_api.get_state", Timeout: "appbase", Retries: "appbase.condenser_api.get_state"}},
		{"condenser_api.get_state", ``, "method", "3", 10 * time.Second, 3,
			router.Matched{URL: "appbase.condenser_api.get_state", TTL: "appbase.condenser_api.get_state", Timeout: "appbase", Retries: "appbase.condenser_api.get_state"}},
		// A params-specific url does not make the ttl params-specific...
		{"condenser_api.get_state", `["witnesses"]`, "params", "3", 10 * time.Second, 3,
			router.Matched{URL: "appbase.condenser_api.get_state.params=['witnesses']", TTL: "appbase.condenser_api.get_state", Timeout: "appbase", Retries: "appbase.condenser_api.get_state"}},
		// ...and a params-specific ttl and timeout do not move the url.
		{"condenser_api.get_state", `["/trending"]`, "method", "4", 40 * time.Second, 3,
			router.Matched{URL: "appbase.condenser_api.get_state", TTL: `appbase.condenser_api.get_state.params=["/trending"]`, Timeout: `appbase.condenser_api.get_state.params=["/trending"]`, Retries: "appbase.condenser_api.get_state"}},
		{"call", `["condenser_api","get_state",["/trending"]]`, "method", "4", 40 * time.Second, 3,
			router.Matched{URL: "appbase.condenser_api.get_state", TTL: `appbase.condenser_api.get_state.params=["/trending"]`, Timeout: `appbase.condenser_api.get_state.params=["/trending"]`, Retries: "appbase.condenser_api.get_state"}},
	}
	for _, tc := range testCases {
		t.Run(tc.method+tc.params, func(t *testing.T) {
			t.Parallel()
			c, err := r.Parse(tc.method, raw(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := r.Resolve(c)
			if err != nil {
				t.Fatal(err)
			}
			if rt.Backend != tc.backend || rt.URL != "http://"+tc.backend+".example" {
				t.Errorf("backend %s %s, want %s", rt.Backend, rt.URL, tc.backend)
			}
			if rt.TTL.String() != tc.ttl || rt.Timeout != tc.timeout || rt.Retries != tc.retries {
				t.Errorf("ttl %s timeout %v retries %d, want %s %v %d", rt.TTL, rt.Timeout, rt.Retries, tc.ttl, tc.timeout, tc.retries)
			}
			if rt.Matched != tc.matched {
				t.Errorf("matched\n %+v\nwant\n %+v", rt.Matched, tc.matched)
			}
			if rt.Key != c.Key {
				t.Errorf("route key %s, call key %s", rt.Key, c.Key)
			}
		})
	}
}

// TestParamsMatching checks that params= keys match request params as JSON
// values, in every spelling a config may use. Numbers compare by exact
// value: params=[1.0] matches a request for [1] (and [1e0], [10e-1]), while
// the cache keys of those requests stay distinct.
func TestParamsMatching(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, key, params string
		match             bool
	}{
		{"JSON list", `[1, 2]`, `[1,2]`, true},
		{"JSON list spaced request", `[1,2]`, ` [ 1 , 2 ] `, true},
		{"longer list", `[1, 2]`, `[1,2,3]`, false},
		{"shorter list", `[1, 2]`, `[1]`, false},
		{"Python string", `['/trending']`, `["/trending"]`, true},
		{"Python string escaped request", `['/trending']`, `["\/trending"]`, true},
		{"Python string case differs", `['/trending']`, `["/Trending"]`, false},
		{"Python double quotes", `["/trending"]`, `["/trending"]`, true},
		{"Python escaped quote", `['it\'s']`, `["it's"]`, true},
		{"Python double quote inside single", `['say "hi"']`, `["say \"hi\""]`, true},
		{"Python True False None", `[True, False, None]`, `[true,false,null]`, true},
		{"Python True is not 1", `[True]`, `[1]`, false},
		{"Python dict", `{'sort': 'trending', 'tag': ''}`, `{"tag":"","sort":"trending"}`, true},
		{"Python nested", `[['steemit', 'alice']]`, `[["steemit","alice"]]`, true},
		{"object key order", `{"b":1,"a":2}`, `{"a":2,"b":1}`, true},
		{"object extra key", `{"a":2}`, `{"a":2,"b":1}`, false},
		{"unicode escape in key", `["\u0041"]`, `["A"]`, true},
		{"number 1.0 matches 1", `[1.0]`, `[1]`, true},
		{"number 1 matches 1.00", `[1]`, `[1.00]`, true},
		{"number exponent", `[1]`, `[1e0]`, true},
		{"number negative exponent", `[1]`, `[10e-1]`, true},
		{"number big exponent", `[100]`, `[0.001e5]`, true},
		{"number zero", `[0]`, `[-0.0e7]`, true},
		{"number sign", `[-1]`, `[1]`, false},
		{"number exact beyond float64", `[9007199254740993]`, `[9007199254740992]`, false},
		{"number exact big equal", `[123456789012345678901234567890]`, `[1.2345678901234567890123456789e29]`, true},
		{"number fraction", `[2889020, false]`, `[2889020.5,false]`, false},
		{"number string is not a number", `[1]`, `["1"]`, false},
		{"nested list", `[[1]]`, `[1]`, false},
		{"empty list", `[]`, `[]`, true},
		{"empty list and absent params", `[]`, ``, false},
		{"empty list and empty object", `[]`, `{}`, false},
		{"null", `null`, `null`, true},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			yamlKey := "appbase.condenser_api.get_x.params=" + tc.key
			yaml := "backends:\n  a: http://a\n  b: http://b\nurls:\n  appbase: a\n  " + yamlQuote(yamlKey) + ": b\n"
			r := newRouter(t, yaml)
			c, err := r.Parse("condenser_api.get_x", raw(tc.params))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := r.Resolve(c)
			if err != nil {
				t.Fatal(err)
			}
			if got := rt.Backend == "b"; got != tc.match {
				t.Errorf("params %s against key %s: matched %v (%q), want %v", tc.params, tc.key, got, rt.Matched.URL, tc.match)
			}
			if tc.match && rt.Matched.URL != yamlKey {
				t.Errorf("matched key %q, want %q", rt.Matched.URL, yamlKey)
			}
		})
	}
}

// yamlQuote writes s as a YAML double-quoted scalar (a JSON string is one).
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestParamsMatchingTwoPartMethod checks params= keys on namespace.method
// calls (no api), here with a hivemind bridge call's named params.
func TestParamsMatchingTwoPartMethod(t *testing.T) {
	t.Parallel()
	r := newRouter(t, `backends:
  hivemind: http://hivemind
urls:
  bridge: hivemind
ttls:
  bridge: 3
  bridge.get_ranked_posts.params={"sort":"trending","tag":"","observer":null}: 30
`)
	testCases := []struct {
		params string
		ttl    string
	}{
		{`{"observer":null,"tag":"","sort":"trending"}`, "30"},
		{`{"sort":"trending","tag":"","observer":null}`, "30"},
		{`{"sort":"created","tag":"","observer":null}`, "3"},
		{`{"sort":"trending","tag":""}`, "3"},
	}
	for _, tc := range testCases {
		c, err := r.Parse("bridge.get_ranked_posts", raw(tc.params))
		if err != nil {
			t.Fatal(err)
		}
		rt, err := r.Resolve(c)
		if err != nil {
			t.Fatal(err)
		}
		if rt.TTL.String() != tc.ttl {
			t.Errorf("%s: ttl %s (%s), want %s", tc.params, rt.TTL, rt.Matched.TTL, tc.ttl)
		}
	}
}

// TestResolveDefaults checks what a call gets when no ttls, timeouts or
// retries key matches, and that a call no urls key matches has no route.
func TestResolveDefaults(t *testing.T) {
	t.Parallel()
	r := newRouter(t, "backends:\n  a: http://a\nurls:\n  appbase.condenser_api: a\nttls:\n  bridge: 3\n")
	c, err := r.Parse("condenser_api.get_block", raw(`[1]`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := r.Resolve(c)
	if err != nil {
		t.Fatal(err)
	}
	if rt.TTL.Kind != config.TTLNoCache || rt.Timeout != 0 || rt.Retries != 0 {
		t.Errorf("defaults: ttl %s timeout %v retries %d, want NO_CACHE 0 0", rt.TTL, rt.Timeout, rt.Retries)
	}
	if rt.Matched != (router.Matched{URL: "appbase.condenser_api"}) {
		t.Errorf("matched %+v", rt.Matched)
	}
	for _, m := range []string{"database_api.get_config", "get_block", "bridge.get_discussion"} {
		c, err := r.Parse(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Resolve(c); !errors.Is(err, router.ErrNoRoute) || !strings.Contains(err.Error(), c.Key) {
			t.Errorf("Resolve(%s) error %v, want ErrNoRoute naming the key", m, err)
		}
	}
}

// TestResolveBuiltCall checks that Resolve works on a Call built by hand
// (as a typed front end does), including params that are not valid JSON,
// which match no params= key.
func TestResolveBuiltCall(t *testing.T) {
	t.Parallel()
	r := newRouter(t, specificity)
	rt, err := r.Resolve(&router.Call{Namespace: "appbase", API: "condenser_api", Method: "get_state", Params: json.RawMessage(`["witnesses"`)})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Backend != "method" {
		t.Errorf("backend %s, want method", rt.Backend)
	}
	rt, err = r.Resolve(&router.Call{Namespace: "appbase", API: "condenser_api", Method: "get_state", Params: json.RawMessage(`["witnesses"]`)})
	if err != nil || rt.Backend != "params" {
		t.Errorf("backend %s, %v; want params", rt.Backend, err)
	}
}

// TestHandBuiltConfig checks that a Config built in code, without a default
// namespace, routes bare methods to hived.
func TestHandBuiltConfig(t *testing.T) {
	t.Parallel()
	r, err := router.New(&config.Config{
		Backends: []config.Backend{{Name: "node", URL: "http://node"}},
		URLs:     []config.Entry[string]{{Key: "hived", Value: "node"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Parse("get_block", raw(`[1]`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := r.Resolve(c)
	if err != nil || c.Key != "hived.database_api.get_block.params=[1]" || rt.URL != "http://node" {
		t.Errorf("key %s route %+v, %v", c.Key, rt, err)
	}
}

// TestBroadcast checks that broadcast methods are never cached or retried,
// whatever the config says.
func TestBroadcast(t *testing.T) {
	t.Parallel()
	r := newRouter(t, `backends:
  a: http://a
urls:
  appbase: a
  hived: a
ttls:
  appbase: 3
  hived: 3
retries:
  appbase: 3
  hived: 2
timeouts:
  appbase: 9
`)
	testCases := []struct {
		method, params string
		broadcast      bool
	}{
		{"condenser_api.broadcast_transaction", `[{}]`, true},
		{"condenser_api.broadcast_transaction_synchronous", `[{}]`, true},
		{"condenser_api.broadcast_block", `[{}]`, true},
		{"network_broadcast_api.broadcast_transaction", `{"trx":{}}`, true},
		{"chain_api.push_transaction", `{}`, true},
		{"chain_api.push_block", `{}`, true},
		{"call", `["network_broadcast_api","broadcast_transaction",[{}]]`, true},
		{"call", `["condenser_api","broadcast_transaction",[{}]]`, true},
		{"broadcast_transaction", `[{}]`, true},
		{"condenser_api.get_block", `[1]`, false},
		{"database_api.push_block", `{}`, false},
	}
	for _, tc := range testCases {
		c, err := r.Parse(tc.method, raw(tc.params))
		if err != nil {
			t.Fatal(err)
		}
		rt, err := r.Resolve(c)
		if err != nil {
			t.Fatal(err)
		}
		if rt.Broadcast != tc.broadcast {
			t.Errorf("%s %s: broadcast %v, want %v", tc.method, tc.params, rt.Broadcast, tc.broadcast)
		}
		if tc.broadcast && (rt.TTL.Kind != config.TTLNoCache || rt.Retries != 0) {
			t.Errorf("%s: ttl %s retries %d, want NO_CACHE 0", tc.method, rt.TTL, rt.Retries)
		}
		if !tc.broadcast && (rt.TTL.Seconds != 3 || rt.Retries == 0) {
			t.Errorf("%s: ttl %s retries %d, want the configured values", tc.method, rt.TTL, rt.Retries)
		}
		if tc.method == "condenser_api.broadcast_transaction" && rt.Timeout != 9*time.Second {
			t.Errorf("broadcast timeout %v: timeouts still apply", rt.Timeout)
		}
	}
}

// TestBadConfigKeys checks that router.New refuses malformed method keys and
// keys that mean the same thing twice, naming file, line and key.
func TestBadConfigKeys(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name, section, key string
		msg                string
	}{
		{"empty segment", "urls", "appbase..get_block", "empty segment"},
		{"four segments", "ttls", "a.b.c.d", "has 4 segments"},
		{"space", "ttls", "'appbase.get block'", "bad segment"},
		{"bad params", "ttls", "'appbase.condenser_api.get_state.params=[''/trending'''", "bad params value"},
		{"bad Python literal", "timeouts", `"appbase.condenser_api.get_state.params=['a"`, "unterminated string"},
		{"params on a namespace", "retries", "'hived.params=[1]'", "params= needs a method"},
		{"params spelled twice", "ttls", "\"appbase.condenser_api.get_state.params=['x']\": 1\n  'appbase.condenser_api.get_state.params=[\"x\"]'", `same params value as key "appbase.condenser_api.get_state.params=['x']"`},
		{"number spelled twice", "urls", "'bridge.get_post.params=[1]': a\n  'bridge.get_post.params=[1.0]'", "same params value"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			value := "1"
			if tc.section == "urls" {
				value = "a"
			}
			text := "backends:\n  a: http://a\nurls:\n  appbase: a\n"
			if tc.section == "urls" {
				text += "  " + tc.key + ": " + value + "\n"
			} else {
				text += tc.section + ":\n  " + tc.key + ": " + value + "\n"
			}
			cfg, err := config.Parse("k.yaml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			_, err = router.New(cfg)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("New: %v, want a *config.Error", err)
			}
			if ce.Pos.File != "k.yaml" || ce.Pos.Line < 5 || !strings.HasPrefix(ce.Key, tc.section+".") {
				t.Errorf("error %v: want k.yaml:line and a %s key", err, tc.section)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}
