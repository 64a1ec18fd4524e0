package router_test

import "testing"

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
		{"lone surrogates differ", req{"condenser_api.get_accounts", `[["\ud800"]]`}, req{"condenser_api.get_accounts", `[["\udfff"]]`}, false},
		{"lone surrogate is not U+FFFD", req{"condenser_api.get_accounts", `[["\ud800"]]`}, req{"condenser_api.get_accounts", `[["\ufffd"]]`}, false},
		{"invalid UTF-8 is not U+FFFD", req{"condenser_api.get_accounts", "[[\"\xff\"]]"}, req{"condenser_api.get_accounts", `[["\ufffd"]]`}, false},
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
