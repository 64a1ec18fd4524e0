package router_test

import (
	"strings"
	"testing"

	"github.com/hivegate/hivegate/router"
)

// TestSameCallOneKey checks that requests meaning the same call get one
// canonical key, and that different calls do not.
func TestSameCallOneKey(t *testing.T) {
	t.Parallel()
	r := newRouter(t, allNamespaces)
	type req struct{ method, params string }
	testCases := []struct {
		name string
		a, b req
		same bool
	}{
		{"call form and api.method", req{"call", `["condenser_api","get_block",[1]]`}, req{"condenser_api.get_block", `[1]`}, true},
		{"call form and ns.api.method", req{"call", `["condenser_api","get_block",[1]]`}, req{"appbase.condenser_api.get_block", `[1]`}, true},
		{"pre-appbase call and bare method", req{"call", `["database_api","get_block",[1]]`}, req{"get_block", `[1]`}, true},
		{"numeric api and bare method", req{"call", `[0,"get_block",[1]]`}, req{"get_block", `[1]`}, true},
		{"object call and appbase method", req{"call", `["database_api","list_accounts",{"limit":1}]`}, req{"database_api.list_accounts", `{"limit":1}`}, true},
		{"whitespace", req{"condenser_api.get_block", `[ 1 ]`}, req{"condenser_api.get_block", "\n[1]\t"}, true},
		{"whitespace in objects", req{"bridge.get_post", `{ "author" : "a" , "permlink" : "p" }`}, req{"bridge.get_post", `{"author":"a","permlink":"p"}`}, true},
		{"key order", req{"bridge.get_post", `{"permlink":"p","author":"a"}`}, req{"bridge.get_post", `{"author":"a","permlink":"p"}`}, true},
		{"key order nested", req{"database_api.find", `{"x":{"d":[{"b":1,"a":2}],"c":2},"a":0}`}, req{"database_api.find", `{"a":0,"x":{"c":2,"d":[{"a":2,"b":1}]}}`}, true},
		{"unicode escape", req{"condenser_api.get_accounts", `[["\u0041"]]`}, req{"condenser_api.get_accounts", `[["A"]]`}, true},
		{"escaped slash", req{"condenser_api.get_state", `["\/trending"]`}, req{"condenser_api.get_state", `["/trending"]`}, true},
		{"escaped non-ASCII", req{"condenser_api.get_accounts", `["\u00e9"]`}, req{"condenser_api.get_accounts", `["é"]`}, true},
		{"escaped key", req{"bridge.get_post", `{"\u0061uthor":"a"}`}, req{"bridge.get_post", `{"author":"a"}`}, true},
		{"different params", req{"condenser_api.get_block", `[1]`}, req{"condenser_api.get_block", `[2]`}, false},
		{"number spelling kept", req{"condenser_api.get_block", `[1]`}, req{"condenser_api.get_block", `[1.0]`}, false},
		{"absent and empty params", req{"condenser_api.get_config", ``}, req{"condenser_api.get_config", `[]`}, false},
		{"empty list and object", req{"condenser_api.get_config", `{}`}, req{"condenser_api.get_config", `[]`}, false},
		{"null and absent", req{"condenser_api.get_config", `null`}, req{"condenser_api.get_config", ``}, false},
		{"array order matters", req{"condenser_api.get_accounts", `[["a","b"]]`}, req{"condenser_api.get_accounts", `[["b","a"]]`}, false},
		{"namespaces differ", req{"get_block", `[1]`}, req{"condenser_api.get_block", `[1]`}, false},
		{"two-part and method params", req{"bridge.get_discussion", `[1]`}, req{"bridge.get_discussion.x", ``}, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := r.Parse(tc.a.method, raw(tc.a.params))
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.Parse(tc.b.method, raw(tc.b.params))
			if err != nil {
				t.Fatal(err)
			}
			if (a.Key == b.Key) != tc.same {
				t.Errorf("keys %s and %s: same = %v, want %v", a.Key, b.Key, a.Key == b.Key, tc.same)
			}
		})
	}
}

// TestAppendCanonical checks the canonical JSON form byte for byte.
func TestAppendCanonical(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		in, want string
	}{
		{`1`, `1`},
		{` -0.5e+10 `, `-0.5e+10`},
		{`1.0`, `1.0`},
		{`true`, `true`},
		{`false`, `false`},
		{`null`, `null`},
		{`""`, `""`},
		{`"plain"`, `"plain"`},
		{`"\u0041\n\t\"\\\/"`, `"A\n\t\"\\/"`},
		{`"\u001f\u007f<>&"`, `"\u001f` + "\x7f" + `<>&"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{"\"bad \xff utf8\"", "\"bad \uFFFD utf8\""},
		{`[]`, `[]`},
		{`[ ]`, `[]`},
		{`{}`, `{}`},
		{`{ }`, `{}`},
		{`[1, [2, [3, []]], {}]`, `[1,[2,[3,[]]],{}]`},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{`{"b":{"z":[{"y":1,"x":2}],"a":null},"a":[]}`, `{"a":[],"b":{"a":null,"z":[{"x":2,"y":1}]}}`},
		{`{"a":1,"a":2}`, `{"a":1,"a":2}`},
		{`{"a":2,"a":1}`, `{"a":2,"a":1}`},
		{`{"b":1,"a":1,"b":0}`, `{"a":1,"b":1,"b":0}`},
		{`{"é":1,"z":2,"A":3}`, `{"A":3,"z":2,"é":1}`},
		{`{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
		{`{"k1":1,"k0":0,"k3":3,"k2":2,"k5":5,"k4":4,"k7":7,"k6":6,"k9":9,"k8":8}`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}`},
	}
	for _, tc := range testCases {
		got, err := router.AppendCanonical([]byte("prefix:"), []byte(tc.in))
		if err != nil {
			t.Errorf("AppendCanonical(%s): %v", tc.in, err)
			continue
		}
		if string(got) != "prefix:"+tc.want {
			t.Errorf("AppendCanonical(%s) = %s, want prefix:%s", tc.in, got, tc.want)
		}
		again, err := router.AppendCanonical(nil, got[len("prefix:"):])
		if err != nil || string(again) != tc.want {
			t.Errorf("canonical form of %s is not stable: %s, %v", tc.want, again, err)
		}
	}
}

// TestAppendCanonicalErrors checks that invalid JSON is refused.
func TestAppendCanonicalErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		``, ` `, `[`, `]`, `{`, `}`, `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{a:1}`, `{"a" 1}`, `[1 2]`,
		`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`, `tru`, `nul`, `falsey`,
		`"unterminated`, `"bad \x escape"`, `"\u12"`, "\"tab\there\"", `"\`, `1 2`, `[1] x`, `{"a":1}}`,
		strings.Repeat("[", 513) + strings.Repeat("]", 513),
		strings.Repeat(`{"a":`, 513) + "1" + strings.Repeat("}", 513),
	} {
		if got, err := router.AppendCanonical(nil, []byte(in)); err == nil {
			t.Errorf("AppendCanonical(%q) = %s, want an error", in, got)
		}
	}
	deep := strings.Repeat("[", 512) + strings.Repeat("]", 512)
	if _, err := router.AppendCanonical(nil, []byte(deep)); err != nil {
		t.Errorf("512 levels: %v", err)
	}
}
