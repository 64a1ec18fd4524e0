package backend

import (
	"strings"
	"testing"
)

func TestParseEnvelope(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		name       string
		body       string
		wantResult string
		wantError  string
		wantReason string // substring; empty means valid
	}{
		{name: "result", body: `{"jsonrpc":"2.0","id":7,"result":{"a":[1,2]}}`, wantResult: `{"a":[1,2]}`},
		{name: "result first, spaces", body: " {\n \"result\" : [ 1 ] , \"id\" : 7 }\n", wantResult: `[ 1 ]`},
		{name: "error", body: `{"jsonrpc":"2.0","error":{"code":-32000,"message":"x"},"id":7}`, wantError: `{"code":-32000,"message":"x"}`},
		{name: "string id", body: `{"id":"7","result":1}`, wantResult: `1`},
		{name: "escaped string id", body: `{"id":"\u0037","result":1}`, wantResult: `1`},
		{name: "exponent id", body: `{"id":7e0,"result":1}`, wantResult: `1`},
		{name: "escaped key", body: `{"id":7,"r\u0065sult":true}`, wantResult: `true`},
		{name: "error null beside result", body: `{"id":7,"result":0,"error":null}`, wantResult: `0`},
		{name: "null id with error", body: `{"id":null,"error":{"code":-32700,"message":"parse"}}`, wantError: `{"code":-32700,"message":"parse"}`},
		{name: "null result", body: `{"id":7,"result":null}`, wantResult: `null`},
		{name: "extra members ignored", body: `{"id":7,"result":1,"x":{"y":[]}}`, wantResult: `1`},
		{name: "empty", body: ``, wantReason: "empty body"},
		{name: "spaces only", body: "  \n", wantReason: "empty body"},
		{name: "html", body: `<html></html>`, wantReason: "not JSON"},
		{name: "bare string", body: `"ok"`, wantReason: "not a response object"},
		{name: "array", body: `[{"id":7,"result":1}]`, wantReason: "array"},
		{name: "broken array", body: `[{"id":7,`, wantReason: "truncated JSON"},
		{name: "truncated", body: `{"id":7,"result":{"a":`, wantReason: "truncated JSON"},
		{name: "truncated after value", body: `{"id":7,"result":1`, wantReason: "truncated JSON"},
		{name: "truncated after comma", body: `{"id":7,`, wantReason: "truncated JSON"},
		{name: "truncated after brace", body: `{`, wantReason: "truncated JSON"},
		{name: "invalid inside result", body: `{"id":7,"result":[1,,2]}`, wantReason: "invalid JSON"},
		{name: "bad key", body: `{id:7,"result":1}`, wantReason: "invalid JSON"},
		{name: "bad separator", body: `{"id":7;"result":1}`, wantReason: "invalid JSON"},
		{name: "trailing data", body: `{"id":7,"result":1}{}`, wantReason: "data after"},
		{name: "wrong id", body: `{"id":8,"result":1}`, wantReason: "wrong id"},
		{name: "wrong string id", body: `{"id":"x","result":1}`, wantReason: "wrong id"},
		{name: "negative id", body: `{"id":-7,"result":1}`, wantReason: "wrong id"},
		{name: "no id", body: `{"result":1}`, wantReason: "without an id"},
		{name: "null id with result", body: `{"id":null,"result":1}`, wantReason: "null id"},
		{name: "neither", body: `{"id":7}`, wantReason: "neither"},
		{name: "empty object", body: `{}`, wantReason: "without an id"},
		{name: "only null error", body: `{"id":7,"error":null}`, wantReason: "neither"},
		{name: "both", body: `{"id":7,"result":1,"error":{"code":1}}`, wantReason: "both"},
		{name: "error not object", body: `{"id":7,"error":"boom"}`, wantReason: "not an object"},
		{name: "two results", body: `{"id":7,"result":1,"result":2}`, wantReason: `two "result"`},
		{name: "two ids", body: `{"id":7,"id":7,"result":1}`, wantReason: `two "id"`},
		{name: "two errors", body: `{"id":7,"error":{},"error":{}}`, wantReason: `two "error"`},
	}
	for _, tc := range testCases {
		env, reason := parseEnvelope([]byte(tc.body), 7)
		if tc.wantReason != "" {
			if !strings.Contains(reason, tc.wantReason) {
				t.Errorf("%s: reason %q, want one containing %q", tc.name, reason, tc.wantReason)
			}
			continue
		}
		if reason != "" {
			t.Errorf("%s: rejected: %s", tc.name, reason)
			continue
		}
		if string(env.result) != tc.wantResult || string(env.errObj) != tc.wantError {
			t.Errorf("%s: result %q error %q; want %q %q", tc.name, env.result, env.errObj, tc.wantResult, tc.wantError)
		}
		if (env.result == nil) == (env.errObj == nil) {
			t.Errorf("%s: want exactly one of result and error", tc.name)
		}
	}
}

func BenchmarkParseEnvelope(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		body := []byte(`{"jsonrpc":"2.0","id":7,"result":{"blocks":["` + strings.Repeat(`x\"y`, size/4) + `"]}}`)
		b.Run(strings.TrimSpace(formatBytes(int64(size))), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, reason := parseEnvelope(body, 7); reason != "" {
					b.Fatal(reason)
				}
			}
		})
	}
}
