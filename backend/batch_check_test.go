package backend

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestCheckBatch drives checkBatch, which reads a batch's answer in one pass,
// over answers that must be taken and answers that must be refused, with
// the reason each is refused for. A syntax error anywhere in the answer is
// reported as "invalid JSON" even when a bad response comes before it.
func TestCheckBatch(t *testing.T) {
	t.Parallel()
	n := &node{name: "hived", url: &url.URL{Scheme: "http", Host: "127.0.0.1:1"}}
	ids := []uint64{11, 22}
	testCases := []struct {
		name    string
		body    string
		prefix  string   // ResultPrefix of the second call
		want    []string // each call's result or error, when taken
		wantErr []bool   // which of want are error objects
		detail  string   // the refusal's detail, when refused
		refused bool     // refused as a batch (its calls cost nothing)
	}{
		{name: "in order", body: `[{"id":11,"result":1},{"id":22,"result":{"a":[2]}}]`, want: []string{`1`, `{"a":[2]}`}, wantErr: []bool{false, false}},
		{name: "any order, spaces, string id", body: " [ {\"result\":\"x\",\"id\":\"22\"} ,\n{\"id\":11,\"error\":{\"code\":1}} ] ", want: []string{`{"code":1}`, `"x"`}, wantErr: []bool{true, false}},
		{name: "with prefix", body: `[{"id":11,"result":1},{"id":22,"result":[2]}]`, prefix: "key", want: []string{`1`, `[2]`}, wantErr: []bool{false, false}},
		{name: "prefix, error answer", body: `[{"id":11,"result":1},{"id":22,"error":{}}]`, prefix: "key", want: []string{`1`, `{}`}, wantErr: []bool{false, true}},
		{name: "error null beside result", body: `[{"id":11,"result":1,"error":null},{"id":22,"result":2}]`, want: []string{`1`, `2`}, wantErr: []bool{false, false}},
		{name: "error to the whole batch", body: `{"id":null,"error":{"code":-32600,"message":"no batches"}}`, detail: "answered an error to the whole batch", refused: true},
		{name: "object", body: `{"id":11,"result":1}`, detail: "answered no array to a batch"},
		{name: "empty", body: ``, detail: "answered no array to a batch"},
		{name: "empty array", body: `[]`, detail: "answered 0 of 2 calls of a batch"},
		{name: "one missing", body: `[{"id":22,"result":2}]`, detail: "answered 1 of 2 calls of a batch"},
		{name: "unknown id", body: `[{"id":11,"result":1},{"id":33,"result":2}]`, detail: "answered " + reasonWrongID + " in a batch"},
		{name: "repeated id", body: `[{"id":11,"result":1},{"id":11,"result":2}]`, detail: "answered " + reasonWrongID + " in a batch"},
		{name: "null id", body: `[{"id":null,"error":{}},{"id":22,"result":2}]`, detail: "answered " + reasonWrongID + " in a batch"},
		{name: "no id", body: `[{"result":1},{"id":22,"result":2}]`, detail: "answered a response without an id in a batch"},
		{name: "both", body: `[{"id":11,"result":1,"error":{}},{"id":22,"result":2}]`, detail: "answered a response with both result and error in a batch"},
		{name: "error not object", body: `[{"id":11,"error":"x"},{"id":22,"result":2}]`, detail: "answered an error member that is not an object in a batch"},
		{name: "two results", body: `[{"id":11,"result":1,"result":1},{"id":22,"result":2}]`, detail: `answered a response with two "result" members in a batch`},
		{name: "number element", body: `[1,{"id":22,"result":2}]`, detail: "answered a JSON value that is not a response object in a batch"},
		{name: "array element", body: `[[],{"id":22,"result":2}]`, detail: "answered a JSON array instead of a response object in a batch"},
		{name: "three answers", body: `[{"id":11,"result":1},{"id":22,"result":2},{"id":11,"result":1}]`, detail: "answered " + reasonWrongID + " in a batch"},
		{name: "invalid inside result", body: `[{"id":11,"result":[1,,2]},{"id":22,"result":2}]`, detail: "answered invalid JSON"},
		{name: "truncated", body: `[{"id":11,"result":1},{"id":22,"res`, detail: "answered invalid JSON"},
		{name: "truncated after comma", body: `[{"id":11,"result":1},`, detail: "answered invalid JSON"},
		{name: "unclosed", body: `[{"id":11,"result":1},{"id":22,"result":2}`, detail: "answered invalid JSON"},
		{name: "trailing data", body: `[{"id":11,"result":1},{"id":22,"result":2}]x`, detail: "answered invalid JSON"},
		{name: "wrong id before a syntax error", body: `[{"id":33,"result":1},{"id":22,"result":[}]`, detail: "answered invalid JSON"},
		{name: "two ids before a syntax error", body: `[{"id":11,"id":11,"result":1},{"id":22,"result":2},]`, detail: "answered invalid JSON"},
		{name: "non-object before trailing data", body: `[1,{"id":22,"result":2}] ]`, detail: "answered invalid JSON"},
		{name: "no id before trailing data", body: `[{"result":1}]{}`, detail: "answered invalid JSON"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reqs := []Request{{Method: "a"}, {Method: "b", ResultPrefix: tc.prefix}}
			envs := make([]envelope, len(reqs))
			raw := []byte(tc.body)
			f := checkBatch(n, raw, ids, reqs, envs)
			if tc.detail != "" {
				if f == nil {
					t.Fatalf("taken, want refused: %s", tc.detail)
				}
				if f.detail != tc.detail || f.refused != tc.refused {
					t.Errorf("refused with %q (refused as batch %v), want %q (%v)", f.detail, f.refused, tc.detail, tc.refused)
				}
				return
			}
			if f != nil {
				t.Fatalf("refused: %s", f.detail)
			}
			for k, env := range envs {
				got := env.result
				if tc.wantErr[k] {
					got = env.errObj
				}
				if string(got) != tc.want[k] || (env.result == nil) != tc.wantErr[k] {
					t.Errorf("call %d: result %q error %q, want %q (error %v)", k, env.result, env.errObj, tc.want[k], tc.wantErr[k])
				}
				if tc.prefix != "" && k == 1 && !tc.wantErr[k] && string(env.buf) != tc.prefix+tc.want[k] {
					t.Errorf("call %d: buffer %q, want the prefix then the result", k, env.buf)
				}
			}
			// Nothing taken may alias the answer's (pooled) buffer.
			for i := range raw {
				raw[i] = '#'
			}
			for k, env := range envs {
				if strings.Contains(string(env.result)+string(env.errObj), "#") {
					t.Errorf("call %d: its answer aliases the body", k)
				}
			}
		})
	}
}

// BenchmarkCheckBatch checks a node's answer to a batch of ten calls, each
// answered with a get_dynamic_global_properties-sized result.
func BenchmarkCheckBatch(b *testing.B) {
	n := &node{name: "hived", url: &url.URL{Scheme: "http", Host: "127.0.0.1:1"}}
	result := `{"head_block_number":5000000,"head_block_id":"004c4b40245ffb07380a393fb2b3d841b76cdaec","time":"2016-09-15T19:47:21","current_witness":"abit","virtual_supply":{"amount":"271342874","precision":3,"nai":"@@000000021"},"total_reward_shares2":"340282366920938463463374607431768211455","last_irreversible_block_num":4999980}`
	ids := make([]uint64, 10)
	reqs := make([]Request, len(ids))
	raw := []byte{'['}
	for i := range ids {
		ids[i] = uint64(1e18) + uint64(i)*7919
	}
	for i := range ids { // answered in reverse order
		if i > 0 {
			raw = append(raw, ',')
		}
		raw = append(raw, `{"jsonrpc":"2.0","result":`+result+`,"id":`+strconv.FormatUint(ids[len(ids)-1-i], 10)+`}`...)
	}
	raw = append(raw, ']')
	envs := make([]envelope, len(ids))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if f := checkBatch(n, raw, ids, reqs, envs); f != nil {
			b.Fatal(f.detail)
		}
	}
}
